"""Translation between rows and the core's records.

Column lists for SELECT/RETURNING, row -> record converters, and the maps
from record field names (what callers pass in ``values``) to columns.
Unknown or store-owned keys in ``values`` (ids, lock fields, creation time)
raise ValueError: the lock and the row identity belong to the store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, TypeAlias, cast

from sqlalchemy import ColumnElement, CursorResult, Label, Row, RowMapping, select

from hotplate.db import schema as s
from hotplate.db.crypt import SecretBox, is_sealed
from hotplate.model.ids import EngineId, ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.records import EventRecord, ResourceRecord, ServiceRecord, StackRecord
from hotplate.model.states import Action, Status

RowData: TypeAlias = Mapping[str, Any] | RowMapping
"""A row by column name: a plain dict (the fast path) or SQLAlchemy's RowMapping."""

STACK_FIELDS: dict[str, str] = {
    "name": "name",
    "project_id": "tenant",
    "raw_template_id": "raw_template_id",
    "prev_raw_template_id": "prev_raw_template_id",
    "action": "action",
    "status": "status",
    "status_reason": "status_reason",
    "current_traversal": "current_traversal",
    "current_deps": "current_deps",
    "disable_rollback": "disable_rollback",
    "timeout_mins": "timeout",
    "created_at": "created_at",
    "updated_at": "updated_at",
    "deleted_at": "deleted_at",
    "owner_id": "owner_id",
    "nested_depth": "nested_depth",
    "user_id": "user_id",
    "username": "username",
    "convergence": "convergence",
    "user_creds_id": "user_creds_id",
    "parent_resource_name": "parent_resource_name",
    "stack_user_project_id": "stack_user_project_id",
}
"""StackRecord field -> stack column (``id`` and ``tags`` are handled apart)."""

RESOURCE_FIELDS: dict[str, str] = {
    "name": "name",
    "resource_type": "type",
    "action": "action",
    "status": "status",
    "status_reason": "status_reason",
    "physical_resource_id": "nova_instance",
    "current_template_id": "current_template_id",
    "requires": "requires",
    "replaces": "replaces",
    "replaced_by": "replaced_by",
    "metadata": "rsrc_metadata",
    "properties_data": "properties_data",
    "updated_at": "updated_at",
    "root_stack_id": "root_stack_id",
}
"""ResourceRecord fields a caller may write (``attr_data`` is stored apart)."""

RESOURCE_COLUMNS = (
    "id", "uuid", "stack_id", "name", "type", "action", "status", "status_reason",
    "atomic_key", "created_at", "nova_instance", "engine_id", "current_template_id",
    "requires", "replaces", "replaced_by", "rsrc_metadata", "properties_data",
    "updated_at", "root_stack_id", "attr_data_id",
)  # fmt: skip

RESOURCE_SUMMARY_COLUMNS = tuple(
    name for name in RESOURCE_COLUMNS
    if name not in ("requires", "rsrc_metadata", "properties_data", "attr_data_id"))
"""What a listing shows of a row and what picks the current row of a name: no JSON."""

STACK_COLUMNS = ("id", *STACK_FIELDS.values())


def plain(value: Any) -> Any:
    """Enums (states) as their text; tuples (requires) as lists."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def stack_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Map StackRecord field names to columns (``tags`` excluded)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key == "tags":
            continue
        column = STACK_FIELDS.get(key)
        if column is None or key == "created_at":
            raise ValueError(f"stack field {key!r} cannot be written")
        out[column] = plain(value)
    if "current_traversal" in out and out["current_traversal"] is None:
        out["current_traversal"] = ""
    return out


def resource_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Map ResourceRecord field names to columns (``attr_data``, ``resource_data`` excluded)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in ("attr_data", "resource_data"):
            continue
        column = RESOURCE_FIELDS.get(key)
        if column is None:
            raise ValueError(f"resource field {key!r} cannot be written")
        out[column] = plain(value)
    return out


def attr_data_subquery() -> ColumnElement[Any]:
    """The resource's attribute data, correlated to the resource row of the statement."""
    rpd = s.resource_properties_data
    return (
        select(rpd.c.data)
        .where(rpd.c.id == s.resource.c.attr_data_id)
        .scalar_subquery()
        .label("attr_data")
    )


def resource_select_columns(attr_data: ColumnElement[Any], prefix: str = "") -> list[Label[Any]]:
    """Resource columns (labelled ``<prefix><column>``) plus ``attr_data``."""
    columns = [s.resource.c[name].label(prefix + name) for name in RESOURCE_COLUMNS]
    return [*columns, attr_data.label(prefix + "attr_data")]


def stack_select_columns(prefix: str = "") -> list[Label[Any]]:
    """Every stack column but the traversal graph, which can be large and has its own read."""
    return [
        s.stack.c[name].label(prefix + name) for name in STACK_COLUMNS if name != "current_deps"
    ]


def _getter(row: RowData, prefix: str) -> Callable[[str], Any]:
    """A column's value by its name: the row's own lookup when no prefix is added (a
    resource row has twenty-two columns, and a listing converts thousands of rows)."""
    if not prefix:
        return row.__getitem__

    def get(name: str) -> Any:
        return row[prefix + name]

    return get


def to_resource(row: RowData, prefix: str = "", *, secrets: SecretBox,
                partial: bool = False) -> ResourceRecord:
    """The row as a record; properties and attributes stored encrypted are decrypted
    with ``secrets`` (db/crypt.py). ``partial`` (no ``prefix``): the columns the row
    lacks are left empty, as a row of ``RESOURCE_SUMMARY_COLUMNS`` lacks the data.

    Raises:
        EncryptionKeyError: they were encrypted with another key.
    """
    get: Callable[[str], Any] = row.get if partial else _getter(row, prefix)
    requires = get("requires") or ()
    properties, attributes = get("properties_data"), get("attr_data")
    if is_sealed(properties):
        properties = secrets.unseal(properties, what=f"a property of resource {get('id')}")
    if is_sealed(attributes):
        attributes = secrets.unseal(attributes, what=f"an attribute of resource {get('id')}")
    return ResourceRecord(
        id=ResourceId(get("id")),
        uuid=get("uuid"),
        stack_id=StackId(get("stack_id")),
        name=get("name"),
        resource_type=get("type"),
        action=Action(get("action")),
        status=Status(get("status")),
        status_reason=get("status_reason") or "",
        atomic_key=get("atomic_key"),
        created_at=get("created_at"),
        physical_resource_id=get("nova_instance"),
        engine_id=EngineId(get("engine_id")) if get("engine_id") is not None else None,
        current_template_id=_opt_template(get("current_template_id")),
        requires=tuple(ResourceId(r) for r in requires),
        replaces=_opt_resource(get("replaces")),
        replaced_by=_opt_resource(get("replaced_by")),
        metadata=get("rsrc_metadata") or {},
        properties_data=properties,
        attr_data=attributes,
        updated_at=get("updated_at"),
        root_stack_id=StackId(get("root_stack_id")) if get("root_stack_id") else None,
    )


def to_stack(row: RowData, tags: tuple[str, ...] = (), prefix: str = "") -> StackRecord:
    get = _getter(row, prefix)
    prev = get("prev_raw_template_id")
    owner = get("owner_id")
    return StackRecord(
        id=StackId(get("id")),
        name=get("name"),
        project_id=get("tenant") or "",
        raw_template_id=TemplateId(get("raw_template_id")),
        action=Action(get("action")),
        status=Status(get("status")),
        status_reason=get("status_reason") or "",
        current_traversal=TraversalId(get("current_traversal") or ""),
        created_at=get("created_at"),
        prev_raw_template_id=TemplateId(prev) if prev is not None else None,
        current_deps=row.get(prefix + "current_deps") or {},
        disable_rollback=bool(get("disable_rollback")),
        timeout_mins=get("timeout"),
        updated_at=get("updated_at"),
        deleted_at=get("deleted_at"),
        owner_id=StackId(owner) if owner is not None else None,
        nested_depth=get("nested_depth") or 0,
        user_id=get("user_id") or "",
        username=get("username") or "",
        tags=tags,
        convergence=bool(get("convergence")),
        user_creds_id=get("user_creds_id"),
        parent_resource_name=get("parent_resource_name"),
        stack_user_project_id=get("stack_user_project_id"),
    )


def stack_row(stack: StackRecord) -> dict[str, Any]:
    """The insert parameters for a StackRecord."""
    row = {column: plain(getattr(stack, field)) for field, column in STACK_FIELDS.items()}
    row["id"] = stack.id
    row["current_traversal"] = stack.current_traversal or ""
    return row


def to_event(row: RowData) -> EventRecord:
    return EventRecord(
        id=row["id"],
        uuid=row["uuid"],
        stack_id=StackId(row["stack_id"]),
        resource_name=row["resource_name"] or "",
        resource_action=row["resource_action"] or "",
        resource_status=row["resource_status"] or "",
        resource_status_reason=row["resource_status_reason"] or "",
        created_at=row["created_at"],
        physical_resource_id=row["physical_resource_id"],
        resource_type=row["resource_type"] or "",
    )


def to_service(row: RowData) -> ServiceRecord:
    return ServiceRecord(
        id=row["id"],
        engine_id=EngineId(row["engine_id"]),
        host=row["host"],
        hostname=row["hostname"],
        binary=row["binary"],
        topic=row["topic"],
        report_interval=row["report_interval"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def inserted_id(result: CursorResult[Any]) -> Any:
    """The primary key value of the one row a single-row INSERT wrote.

    SQLAlchemy types ``inserted_primary_key`` as optional; for a single-row
    INSERT into a table with an autoincrement key it is always a row.
    """
    return cast("Row[Any]", result.inserted_primary_key)[0]


def _opt_template(value: int | None) -> TemplateId | None:
    return TemplateId(value) if value is not None else None


def _opt_resource(value: int | None) -> ResourceId | None:
    return ResourceId(value) if value is not None else None
