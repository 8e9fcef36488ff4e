"""Deleting a snapshot: each resource's ``handle_delete_snapshot``, then its rows.

A deletion the user asks for marks the snapshot ``DELETE_IN_PROGRESS``
("Snapshot delete started") and hands it to any engine's worker; a failure
leaves it ``DELETE_FAILED`` with the plugin's error, and it can be asked again.
A stack's delete removes all its snapshots the same way before the stack is
gone, and fails "Snapshot deletion failed: <error>" if one cannot be.

The plugin of a resource's part is the one of the resource of that name in
the stack now (its client, its credentials); a part whose resource has left
the stack since gets a plugin of the type it had, over the part's physical
id, which is all a plugin's ``handle_delete_snapshot`` reads besides the part.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_class, row_instance
from hotplate.engine.stack_rows import current_rows
from hotplate.model.ids import ResourceId, StackId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.snapshots import SNAPSHOT_DELETE, SnapshotRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)

DELETE_STARTED = "Snapshot delete started"
DELETE_HANDLER = "handle_delete_snapshot"
"""The plugin method that deletes what its ``handle_snapshot`` made (optional)."""


def start_deletion(deps: EngineDeps, snapshot: SnapshotRecord) -> None:
    """Mark the snapshot being deleted and hand it to a worker."""
    deps.store.update_snapshot(snapshot.id, action=SNAPSHOT_DELETE,
                               status=str(Status.IN_PROGRESS), status_reason=DELETE_STARTED)
    deps.worker_client.delete_snapshot(snapshot.id)


def run(deps: EngineDeps, snapshot_id: str) -> None:
    """The worker's part: the plugins' deletions, then the rows (or DELETE_FAILED)."""
    snapshot = deps.store.get_snapshot(snapshot_id)
    if snapshot is None:
        return
    failure = delete_parts(deps, snapshot)
    if failure is None:
        deps.store.delete_snapshot(snapshot.id)
        LOG.info("snapshot %s of stack %s deleted", snapshot.id, snapshot.stack_id)
    else:
        deps.store.update_snapshot(snapshot.id, action=SNAPSHOT_DELETE,
                                   status=str(Status.FAILED), status_reason=failure)


def delete_all(deps: EngineDeps, stack: StackRecord) -> str | None:
    """Every snapshot of the stack, for its delete; the first failure's text, if any."""
    for snapshot in deps.store.list_snapshots(stack.id):
        failure = delete_parts(deps, snapshot, stack)
        if failure is not None:
            deps.store.update_snapshot(snapshot.id, action=SNAPSHOT_DELETE,
                                       status=str(Status.FAILED), status_reason=failure)
            return f"Snapshot deletion failed: {failure}"
        deps.store.delete_snapshot(snapshot.id)
    return None


def delete_parts(deps: EngineDeps, snapshot: SnapshotRecord,
                 stack: StackRecord | None = None) -> str | None:
    """Each resource's ``handle_delete_snapshot`` (and its check) with its part; the
    error's text if one fails."""
    stack = stack or deps.store.get_stack(StackId(snapshot.stack_id), include_deleted=True)
    if stack is None:
        return None
    rows = current_rows(deps, stack) if any(snapshot.resources.values()) else {}
    for name, part in snapshot.resources.items():
        row = rows.get(name) or _former_row(stack, name, part)
        try:
            cls = row_class(deps, row)
        except Exception:  # a type no longer known: nothing can delete its part
            LOG.warning("snapshot %s: no plugin for %s (%s)", snapshot.id, name,
                        row.resource_type)
            continue
        if not callable(getattr(cls, DELETE_HANDLER, None)):
            continue
        instance = row_instance(deps, row, stack, cls)
        handle = functools.partial(getattr(instance, DELETE_HANDLER),
                                   {"resource_data": dict(part.get("resource_data") or {})})
        check = getattr(instance, "check_delete_snapshot_complete", None)
        try:
            with deps.slots.released():  # a plugin acts: the slot is given back meanwhile
                deps.runner.run(handle, check, deadline=None, cancelled=None)
        except Exception as exc:
            LOG.info("snapshot %s: deleting the part of %s failed", snapshot.id, name,
                     exc_info=True)
            return str(exc) or type(exc).__name__
    return None


def _former_row(stack: StackRecord, name: str, part: dict[str, Any]) -> ResourceRecord:
    """A stand-in row for a resource that has left the stack: its type and physical id."""
    return ResourceRecord(
        id=ResourceId(0), uuid="", stack_id=stack.id, name=name,
        resource_type=str(part.get("type") or ""), action=Action.INIT,
        status=Status.COMPLETE, status_reason="", atomic_key=0,
        created_at=stack.created_at or datetime.min,
        physical_resource_id=part.get("resource_id"))
