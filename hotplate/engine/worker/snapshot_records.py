"""What a stack's SNAPSHOT walk writes besides states: each resource's part of the
snapshot, and the snapshot itself once the walk ends.

The walk is stack_actions.py's, with the snapshot's id as its traversal id
(Heat's convergence engine uses the snapshot id the same way). A resource's
part is written once its ``SNAPSHOT`` is ``COMPLETE``, with what its plugin's
``handle_snapshot`` kept in its resource data (a backup's id, an image's):
Heat's ``resource_snapshot`` document. The snapshot itself ends ``COMPLETE``
or ``FAILED`` with the stack's reason, its document rewritten from the stack
as it now is.
"""

from __future__ import annotations

from hotplate.engine.deps import EngineDeps
from hotplate.engine.stack_document import stack_document
from hotplate.model.ids import ResourceId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.snapshots import SNAPSHOT_CREATE
from hotplate.model.states import Status


def record_resource(deps: EngineDeps, traversal: TraversalId, resource_id: ResourceId) -> None:
    row = deps.store.get_resource(resource_id)
    if row is None:
        return
    deps.store.add_resource_snapshot(str(traversal), row.name, {
        "name": row.name,
        "resource_id": row.physical_resource_id,
        "type": row.resource_type,
        "action": str(row.action),
        "status": str(row.status),
        "metadata": dict(row.metadata or {}),
        "resource_data": deps.store.get_resource_data(row.id),
    })


def finish(deps: EngineDeps, stack: StackRecord, traversal: TraversalId, status: Status,
           reason: str) -> None:
    """The snapshot ``status`` with the stack's ``reason``; ``stack`` is the stack as it
    was before it settled."""
    settled = deps.store.get_stack(stack.id) or stack
    document = stack_document(deps, settled)
    document["status"] = str(status)
    deps.store.update_snapshot(str(traversal), action=SNAPSHOT_CREATE, status=str(status),
                               status_reason=reason, data=document)
