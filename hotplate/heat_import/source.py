"""Reading a Heat 27 database, and only reading it.

Every read runs in a transaction the database itself holds read-only
(PostgreSQL's ``SET TRANSACTION READ ONLY``, MariaDB's ``START TRANSACTION
READ ONLY``), so however this module is changed it cannot write to Heat.
A stack tree is read in one such transaction: one consistent picture even
while someone still uses Heat's API.

The tables are declared here with the columns read, as Heat 27 names them;
Heat's JSON columns are text (LONGTEXT on MariaDB) and are parsed here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    select,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

_heat = MetaData()


def _table(name: str, *columns: Column[Any]) -> Table:
    return Table(name, _heat, *columns, Column("created_at", DateTime),
                 Column("updated_at", DateTime))


STACK = _table(
    "stack", Column("id", String(36), primary_key=True), Column("name", String(255)),
    Column("raw_template_id", Integer), Column("prev_raw_template_id", Integer),
    Column("username", String(256)), Column("tenant", String(256)),
    Column("user_creds_id", Integer), Column("owner_id", String(36)),
    Column("parent_resource_name", String(255)), Column("timeout", Integer),
    Column("disable_rollback", Boolean), Column("stack_user_project_id", String(64)),
    Column("nested_depth", Integer), Column("convergence", Boolean),
    Column("current_traversal", String(36)), Column("current_deps", Text),
    Column("action", String(255)), Column("status", String(255)),
    Column("status_reason", Text), Column("deleted_at", DateTime))
RAW_TEMPLATE = _table(
    "raw_template", Column("id", Integer, primary_key=True), Column("template", Text),
    Column("files", Text), Column("files_id", Integer), Column("environment", Text))
RAW_TEMPLATE_FILES = _table(
    "raw_template_files", Column("id", Integer, primary_key=True), Column("files", Text))
USER_CREDS = _table(
    "user_creds", Column("id", Integer, primary_key=True), Column("username", String(255)),
    Column("password", String(255)), Column("region_name", String(255)),
    Column("decrypt_method", String(64)), Column("tenant", String(1024)),
    Column("auth_url", Text), Column("tenant_id", String(256)),
    Column("trust_id", String(255)), Column("trustor_user_id", String(64)))
STACK_TAG = _table(
    "stack_tag", Column("id", Integer, primary_key=True), Column("tag", String(80)),
    Column("stack_id", String(36)))
RESOURCE = _table(
    "resource", Column("id", Integer, primary_key=True), Column("uuid", String(36)),
    Column("name", String(255)), Column("nova_instance", String(255)),
    Column("rsrc_metadata", Text), Column("stack_id", String(36)),
    Column("root_stack_id", String(36)), Column("rsrc_prop_data_id", Integer),
    Column("attr_data_id", Integer), Column("properties_data", Text),
    Column("properties_data_encrypted", Boolean), Column("engine_id", String(36)),
    Column("atomic_key", Integer), Column("needed_by", Text), Column("requires", Text),
    Column("replaces", Integer), Column("replaced_by", Integer),
    Column("current_template_id", Integer), Column("action", String(255)),
    Column("status", String(255)), Column("status_reason", Text))
RESOURCE_DATA = _table(
    "resource_data", Column("id", Integer, primary_key=True), Column("key", String(255)),
    Column("value", Text), Column("redact", Boolean), Column("decrypt_method", String(64)),
    Column("resource_id", Integer))
RESOURCE_PROPERTIES_DATA = _table(
    "resource_properties_data", Column("id", Integer, primary_key=True),
    Column("data", Text), Column("encrypted", Boolean))
EVENT = _table(
    "event", Column("id", Integer, primary_key=True), Column("stack_id", String(36)),
    Column("uuid", String(36)), Column("resource_action", String(255)),
    Column("resource_status", String(255)), Column("resource_name", String(255)),
    Column("physical_resource_id", String(255)), Column("resource_status_reason", String(255)),
    Column("resource_type", String(255)), Column("rsrc_prop_data_id", Integer))
SNAPSHOT = _table(
    "snapshot", Column("id", String(36), primary_key=True), Column("stack_id", String(36)),
    Column("name", String(255)), Column("data", Text), Column("tenant", String(64)),
    Column("action", String(255)), Column("status", String(255)),
    Column("status_reason", String(255)))
RESOURCE_SNAPSHOT = _table(
    "resource_snapshot", Column("id", String(36), primary_key=True),
    Column("resource_name", String(255)), Column("snapshot_id", String(36)),
    Column("data", Text))
SOFTWARE_CONFIG = _table(
    "software_config", Column("id", String(36), primary_key=True), Column("name", String(255)),
    Column("group", String(255)), Column("config", Text), Column("tenant", String(64)))
SOFTWARE_DEPLOYMENT = _table(
    "software_deployment", Column("id", String(36), primary_key=True),
    Column("config_id", String(36)), Column("server_id", String(36)),
    Column("input_values", Text), Column("output_values", Text),
    Column("action", String(255)), Column("status", String(255)),
    Column("status_reason", Text), Column("tenant", String(64)),
    Column("stack_user_project_id", String(64)))
SERVICE = _table(
    "service", Column("id", String(36), primary_key=True), Column("engine_id", String(36)),
    Column("host", String(255)), Column("hostname", String(255)), Column("binary", String(255)),
    Column("report_interval", Integer), Column("deleted_at", DateTime))
STACK_LOCK = _table(
    "stack_lock", Column("stack_id", String(36), primary_key=True),
    Column("engine_id", String(36)))

_READ_ONLY = {
    "postgresql": "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, "
                  "READ ONLY",
    "mysql": "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    "mariadb": "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
}
"""Said once per connection: every transaction on it is then read-only and sees one
snapshot of the database."""

JSON_COLUMNS = frozenset({
    "current_deps", "template", "files", "environment", "rsrc_metadata", "properties_data",
    "needed_by", "requires", "data", "config", "input_values", "output_values",
})
"""Heat's ``Json`` and ``List`` columns: text holding JSON."""


class HeatSourceError(RuntimeError):
    """The Heat database cannot be read as a Heat 27 database (the text says why)."""


@dataclass
class HeatTree:
    """One root stack and everything of it that an import brings, as Heat stores it
    (rows as dicts by column name; JSON parsed; datetimes in UTC)."""

    stacks: list[dict[str, Any]]
    """The root first, then each nested stack after its owner."""
    templates: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Heat's raw_template id -> template, files (from raw_template_files) and environment."""
    user_creds: dict[int, dict[str, Any]] = field(default_factory=dict)
    tags: dict[str, list[str]] = field(default_factory=dict)
    resources: list[dict[str, Any]] = field(default_factory=list)
    resource_data: list[dict[str, Any]] = field(default_factory=list)
    properties: dict[int, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    resource_snapshots: list[dict[str, Any]] = field(default_factory=list)
    locks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def root(self) -> dict[str, Any]:
        return self.stacks[0]


@dataclass(frozen=True)
class HeatService:
    engine_id: str
    host: str
    binary: str
    last_seen: datetime
    report_interval: int


def _row(mapping: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if key in JSON_COLUMNS and isinstance(value, str | bytes):
            value = json.loads(value) if value else None
        elif isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        out[key] = value
    return out


def _rows(conn: Connection, query: Any) -> list[dict[str, Any]]:
    return [_row(m) for m in conn.execute(query).mappings()]


def _chunks(values: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def driver_url(url: str) -> str:
    """Heat's URL with the driver hotplate has: Heat's configs name psycopg2, and
    hotplate installs psycopg (3)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif parsed.get_backend_name() in ("mysql", "mariadb"):
        parsed = parsed.set(drivername="mysql+pymysql")
    return parsed.render_as_string(hide_password=False)


def shown_url(url: str) -> str:
    """The URL without its password, for reports and the import's records."""
    return make_url(url).render_as_string(hide_password=True)[:255]


class HeatDatabase:
    """A Heat database, opened read-only."""

    def __init__(self, url: str) -> None:
        try:
            self.url = driver_url(url)
        except ArgumentError:
            raise HeatSourceError(f"not a database URL: {url!r}") from None
        backend = make_url(self.url).get_backend_name()
        if backend not in ("postgresql", "mysql", "mariadb", "sqlite"):
            raise HeatSourceError(f"cannot read a Heat database on {backend}: "
                                  "MariaDB/MySQL or PostgreSQL")
        self._backend = backend
        self._engine: Engine = create_engine(self.url, pool_size=1, max_overflow=0) \
            if backend != "sqlite" else create_engine(self.url)
        statement = _READ_ONLY.get(backend)
        if statement is not None:
            @event.listens_for(self._engine, "connect")
            def read_only(dbapi_conn: Any, _record: Any) -> None:
                cursor = dbapi_conn.cursor()
                cursor.execute(statement)
                cursor.close()
                dbapi_conn.commit()

    def close(self) -> None:
        self._engine.dispose()

    def _read(self, fn: Any) -> Any:
        with self._engine.connect() as conn, conn.begin():
            return fn(conn)

    def check_schema(self) -> None:
        """HeatSourceError unless this looks like Heat 27's schema (its newest tables)."""
        from sqlalchemy import inspect

        try:
            names = set(inspect(self._engine).get_table_names())
        except Exception as exc:  # the driver's own words: no such database, refused
            raise HeatSourceError(f"cannot open the Heat database {shown_url(self.url)}: "
                                  f"{exc.__class__.__name__}: {exc}") from None
        missing = sorted({t.name for t in _heat.sorted_tables} - names)
        if missing:
            raise HeatSourceError(f"{shown_url(self.url)} is not a Heat 27 database: "
                                  f"no table {', '.join(missing)}")

    def services(self) -> list[HeatService]:
        def read(conn: Connection) -> list[HeatService]:
            rows = _rows(conn, select(SERVICE).where(SERVICE.c.deleted_at.is_(None)))
            return [HeatService(r["engine_id"], r["host"], r["binary"],
                                r["updated_at"] or r["created_at"], r["report_interval"] or 60)
                    for r in rows]
        return list(self._read(read))

    def live_stacks(self) -> list[dict[str, Any]]:
        """Every stack not deleted (as Heat lists them: ``deleted_at`` unset)."""
        def read(conn: Connection) -> list[dict[str, Any]]:
            return _rows(conn, select(STACK).where(STACK.c.deleted_at.is_(None))
                         .order_by(STACK.c.created_at, STACK.c.id))
        return list(self._read(read))

    def software(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Every software config and deployment (they belong to projects, not stacks)."""
        def read(conn: Connection) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            return (_rows(conn, select(SOFTWARE_CONFIG).order_by(SOFTWARE_CONFIG.c.created_at)),
                    _rows(conn, select(SOFTWARE_DEPLOYMENT)
                          .order_by(SOFTWARE_DEPLOYMENT.c.created_at)))
        result: tuple[list[dict[str, Any]], list[dict[str, Any]]] = self._read(read)
        return result

    def tree(self, root_id: str) -> HeatTree | None:
        """The live stack ``root_id`` and its live nested stacks, with all they hold;
        None when it is gone."""
        return self._read(lambda conn: _read_tree(conn, root_id))  # type: ignore[no-any-return]


def _read_tree(conn: Connection, root_id: str) -> HeatTree | None:
    live = STACK.c.deleted_at.is_(None)
    roots = _rows(conn, select(STACK).where(STACK.c.id == root_id, live))
    if not roots:
        return None
    tree = HeatTree(stacks=roots)
    owners = [root_id]
    while owners:
        children: list[dict[str, Any]] = []
        for chunk in _chunks(owners):
            children += _rows(conn, select(STACK).where(STACK.c.owner_id.in_(chunk), live)
                              .order_by(STACK.c.created_at, STACK.c.id))
        tree.stacks += children
        owners = [c["id"] for c in children]
    ids = [s["id"] for s in tree.stacks]
    for chunk in _chunks(ids):
        for tag in _rows(conn, select(STACK_TAG).where(STACK_TAG.c.stack_id.in_(chunk))
                         .order_by(STACK_TAG.c.id)):
            tree.tags.setdefault(tag["stack_id"], []).append(tag["tag"])
        tree.resources += _rows(conn, select(RESOURCE).where(RESOURCE.c.stack_id.in_(chunk))
                                .order_by(RESOURCE.c.id))
        tree.events += _rows(conn, select(EVENT).where(EVENT.c.stack_id.in_(chunk))
                             .order_by(EVENT.c.id))
        tree.snapshots += _rows(conn, select(SNAPSHOT).where(SNAPSHOT.c.stack_id.in_(chunk))
                                .order_by(SNAPSHOT.c.created_at, SNAPSHOT.c.id))
        tree.locks += _rows(conn, select(STACK_LOCK).where(STACK_LOCK.c.stack_id.in_(chunk)))
    tree.events.sort(key=lambda e: e["id"])
    tree.resources.sort(key=lambda r: r["id"])
    resource_ids = [r["id"] for r in tree.resources]
    for chunk in _chunks(resource_ids):
        tree.resource_data += _rows(conn, select(RESOURCE_DATA)
                                    .where(RESOURCE_DATA.c.resource_id.in_(chunk))
                                    .order_by(RESOURCE_DATA.c.id))
    snapshot_ids = [s["id"] for s in tree.snapshots]
    for chunk in _chunks(snapshot_ids):
        tree.resource_snapshots += _rows(conn, select(RESOURCE_SNAPSHOT).where(
            RESOURCE_SNAPSHOT.c.snapshot_id.in_(chunk)).order_by(RESOURCE_SNAPSHOT.c.id))
    prop_ids = sorted({i for r in tree.resources for i in (r["rsrc_prop_data_id"],
                                                           r["attr_data_id"]) if i}
                      | {e["rsrc_prop_data_id"] for e in tree.events if e["rsrc_prop_data_id"]})
    for chunk in _chunks(prop_ids):
        for rpd in _rows(conn, select(RESOURCE_PROPERTIES_DATA)
                         .where(RESOURCE_PROPERTIES_DATA.c.id.in_(chunk))):
            tree.properties[rpd["id"]] = rpd
    template_ids = sorted({i for s in tree.stacks
                           for i in (s["raw_template_id"], s["prev_raw_template_id"]) if i}
                          | {r["current_template_id"] for r in tree.resources
                             if r["current_template_id"]})
    for chunk in _chunks(template_ids):
        for raw in _rows(conn, select(RAW_TEMPLATE).where(RAW_TEMPLATE.c.id.in_(chunk))):
            files = raw["files"] or {}
            if raw["files_id"]:
                found = conn.execute(select(RAW_TEMPLATE_FILES.c.files).where(
                    RAW_TEMPLATE_FILES.c.id == raw["files_id"])).scalar()
                files = json.loads(found) if found else {}
            tree.templates[raw["id"]] = {"template": raw["template"] or {}, "files": files,
                                         "environment": raw["environment"] or {},
                                         "created_at": raw["created_at"]}
    cred_ids = sorted({s["user_creds_id"] for s in tree.stacks if s["user_creds_id"]})
    for chunk in _chunks(cred_ids):
        for cred in _rows(conn, select(USER_CREDS).where(USER_CREDS.c.id.in_(chunk))):
            tree.user_creds[cred["id"]] = cred
    return tree
