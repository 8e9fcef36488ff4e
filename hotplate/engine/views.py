"""Stacks, resources, events and outputs in the shape Heat's engine answers with.

Key names are Heat's engine API keys (heat/rpc/api.py), so the REST layer
can pass them through as Heat's does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from hotplate.convergence.rows import choose_rows
from hotplate.model.ids import TemplateId
from hotplate.model.records import EventRecord, ResourceRecord, ServiceRecord, StackRecord
from hotplate.model.snapshots import SnapshotRecord
from hotplate.model.states import Action, Status
from hotplate.template import ParameterSchema

HIDDEN_VALUE = "******"


def iso(ts: datetime | None) -> str | None:
    """Heat's ``YYYY-MM-DDTHH:MM:SSZ`` (isoformat is a C call; strftime is several
    times slower, and a listing of 1,000 resources formats 2,000 of these)."""
    return ts.isoformat(timespec="seconds")[:19] + "Z" if ts is not None else None


def stack_identity(stack: StackRecord) -> dict[str, str]:
    return {"stack_name": stack.name, "stack_id": stack.id, "tenant": stack.project_id,
            "path": ""}


def format_stack(
    stack: StackRecord,
    *,
    description: str = "",
    parameters: Mapping[str, Any] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    view: dict[str, Any] = {
        "stack_identity": stack_identity(stack),
        "stack_name": stack.name,
        "creation_time": iso(stack.created_at),
        "updated_time": iso(stack.updated_at),
        "deletion_time": iso(stack.deleted_at),
        "notification_topics": [],
        "description": description,
        "template_description": description,
        "parameters": dict(parameters or {}),
        "stack_action": str(stack.action),
        "stack_status": str(stack.status),
        "stack_status_reason": stack.status_reason,
        "capabilities": [],
        "disable_rollback": stack.disable_rollback,
        "timeout_mins": stack.timeout_mins,
        "stack_owner": stack.username,
        "parent": stack.owner_id,
        "stack_user_project_id": stack.project_id,
        "tags": list(stack.tags) or None,
    }
    if outputs is not None:
        view["outputs"] = outputs
    return view


def format_resource(
    row: ResourceRecord, stack: StackRecord, *, required_by: Iterable[str] = (),
    with_detail: bool = False, description: str = "",
    attributes: Mapping[str, Any] | None = None, nested: StackRecord | None = None,
) -> dict[str, Any]:
    """Heat's engine view of one resource (heat/engine/api.py's keys).

    ``nested`` is the child stack the resource owns, shown as
    ``nested_stack_id`` (the API's ``nested`` link). Only the detailed view
    has ``description``, ``metadata`` and ``attributes`` (so a plain listing
    reads no row's data); without ``attributes`` it shows the values stored
    when the resource's action completed.
    """
    identity = stack_identity(stack)
    view: dict[str, Any] = {
        "resource_identity": {**identity, "path": f"/resources/{row.name}"},
        "stack_identity": identity,
        "stack_name": stack.name,
        "resource_name": row.name,
        "physical_resource_id": row.physical_resource_id or "",
        "resource_action": str(row.action),
        "resource_status": str(row.status),
        "resource_status_reason": row.status_reason,
        "resource_type": row.resource_type,
        "creation_time": iso(row.created_at),
        "updated_time": iso(row.updated_at or row.created_at),
        "required_by": sorted(required_by),
    }
    if nested is not None:
        view["nested_stack_id"] = stack_identity(nested)
    if stack.parent_resource_name:
        view["parent_resource"] = stack.parent_resource_name
    if with_detail:
        view["description"] = description
        view["metadata"] = row.metadata
        view["attributes"] = (stored_attributes(row.attr_data) if attributes is None
                              else dict(attributes))
    return view


def stored_attributes(attr_data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The attribute values a row stored, by attribute name.

    Values stored under a path key (``model.nodes.path_key``: the JSON text of
    ``[attribute, *path]``, for types that resolve paths themselves) are what a
    reader of that path saw, not attributes, and are left out.
    """
    return {key: value for key, value in (attr_data or {}).items()
            if not key.startswith("[")}


def format_event(event: EventRecord, stack: StackRecord) -> dict[str, Any]:
    return {
        "event_identity": {**stack_identity(stack),
                           "path": f"/resources/{event.resource_name}/events/{event.uuid}"},
        "stack_identity": stack_identity(stack),
        "stack_name": stack.name,
        "event_time": iso(event.created_at),
        "resource_name": event.resource_name,
        "physical_resource_id": event.physical_resource_id or "",
        "resource_action": event.resource_action,
        "resource_status": event.resource_status,
        "resource_status_reason": event.resource_status_reason,
        "resource_type": event.resource_type,
        "resource_properties": {},
        "id": event.uuid,
    }


def summarise_event(event: EventRecord, stack: StackRecord) -> dict[str, Any]:
    """What a page following a stack shows of an event: ``format_event`` without the
    identities, the type or the properties, and the event's stack by id and name.
    A stream reads every event of a traversal, so each field left out is saved
    thousands of times."""
    return {
        "id": event.uuid,
        "event_time": iso(event.created_at),
        "resource_name": event.resource_name,
        "resource_action": event.resource_action,
        "resource_status": event.resource_status,
        "resource_status_reason": event.resource_status_reason,
        "physical_resource_id": event.physical_resource_id or "",
        "stack_id": stack.id,
        "stack_name": stack.name,
    }


def visible_rows(
    rows: Iterable[ResourceRecord], template_names: Iterable[str], template_id: TemplateId,
    prev_template_id: TemplateId | None,
) -> dict[str, ResourceRecord]:
    """One row per resource name: the template's, plus rows still being cleaned up."""
    live = [r for r in rows if (r.action, r.status) != (Action.DELETE, Status.COMPLETE)
            or r.name in set(template_names)]
    names = list(dict.fromkeys([*template_names, *(r.name for r in live)]))
    return dict(choose_rows(names, live, template_id, prev_template_id).chosen)


def parameter_text(schema: ParameterSchema | None, value: Any) -> str:
    """A parameter's value as Heat shows it: text, with hidden ones masked.

    Lists are comma-joined, JSON values dumped, booleans ``True``/``False``.
    """
    if schema is not None and schema.hidden:
        return HIDDEN_VALUE
    if isinstance(value, list) and (schema is None or schema.type != "json"):
        return ",".join(str(item) for item in value)
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def parameter_texts(schemas: Mapping[str, ParameterSchema], values: Mapping[str, Any],
                    ) -> dict[str, str]:
    """Every parameter (pseudo parameters included) as Heat's stack view shows it."""
    return {name: parameter_text(schemas.get(name), value) for name, value in values.items()
            if name != "OS::resource_facade"}


def format_service(service: ServiceRecord, now: datetime) -> dict[str, Any]:
    """Heat's service view; ``status`` by ``ServiceRecord.is_up``."""
    return {
        "id": service.id,
        "binary": service.binary,
        "engine_id": service.engine_id,
        "host": service.host,
        "hostname": service.hostname,
        "topic": service.topic,
        "report_interval": service.report_interval,
        "created_at": iso(service.created_at),
        "updated_at": iso(service.updated_at),
        "deleted_at": None,
        "status": "up" if service.is_up(now) else "down",
    }


def format_snapshot(snapshot: SnapshotRecord) -> dict[str, Any]:
    """Heat's snapshot view; ``data.resources`` holds each resource's part once it has
    one (an empty ``resources`` until then, as Heat's)."""
    data = dict(snapshot.data) if snapshot.data is not None else None
    if data is not None and snapshot.resources:
        data["resources"] = dict(snapshot.resources)
    return {
        "id": snapshot.id,
        "name": snapshot.name,
        "action": snapshot.action,
        "status": snapshot.status,
        "status_reason": snapshot.status_reason,
        "data": data,
        "creation_time": iso(snapshot.created_at),
    }
