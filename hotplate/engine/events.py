"""The event row recorded for a resource's state change."""

from __future__ import annotations

from hotplate.engine.deps import EngineDeps
from hotplate.model.records import NewEvent, ResourceRecord


def resource_event(deps: EngineDeps, row: ResourceRecord, action: str, status: str,
                   reason: str, physical_id: str | None = None) -> NewEvent:
    event = NewEvent(
        stack_id=row.stack_id,
        uuid=deps.ids.new_uuid(),
        resource_name=row.name,
        resource_action=str(action),
        resource_status=str(status),
        resource_status_reason=reason,
        physical_resource_id=physical_id or row.physical_resource_id,
        resource_type=row.resource_type,
    )
    if deps.event_sinks is not None:
        deps.event_sinks.observe(event)
    return event
