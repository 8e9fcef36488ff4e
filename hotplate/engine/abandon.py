"""Export and abandon: a stack's abandon document, and forgetting a stack but not its resources.

Both are off unless ``enable_stack_abandon`` is set, as in Heat (the
document holds resource data, which may be secret). The document::

    {name, id, action, status, template, environment, files, project_id,
     stack_user_project_id, tags,
     resources: {name: {name, resource_id, type, action, status, metadata, resource_data}}}

Abandoning records a DELETE (started, then completed) with its events,
drops the resource rows without calling any plugin, and soft-deletes the
stack, so the physical resources live on outside hotplate. It refuses a
stack with an action in progress, and each step is guarded by the stack's
traversal id, so it cannot race a traversal that starts meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.convergence import outcome
from hotplate.engine import traversal as trav
from hotplate.engine.adopt import visible_files
from hotplate.engine.deps import EngineDeps
from hotplate.model.errors import ActionInProgress, NotSupported
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status


def check_enabled(deps: EngineDeps) -> None:
    if not deps.options.enable_stack_abandon:
        raise NotSupported("Stack Abandon is not supported.")


def abandon_document(deps: EngineDeps, stack: StackRecord,
                     rows: Mapping[str, ResourceRecord]) -> dict[str, Any]:
    loaded = deps.caches.template(stack.raw_template_id)
    return {
        "name": stack.name,
        "id": stack.id,
        "action": str(stack.action),
        "status": str(stack.status),
        "template": dict(loaded.raw),
        "environment": loaded.env.to_dict(),
        "files": visible_files(loaded.files),
        "resources": {name: _resource(deps, row) for name, row in rows.items()},
        "project_id": stack.project_id,
        "stack_user_project_id": stack.project_id,
        "tags": list(stack.tags) or None,
    }


def _resource(deps: EngineDeps, row: ResourceRecord) -> dict[str, Any]:
    return {
        "name": row.name,
        "resource_id": row.physical_resource_id,
        "type": row.resource_type,
        "action": str(row.action),
        "status": str(row.status),
        "metadata": dict(row.metadata or {}),
        "resource_data": deps.store.get_resource_data(row.id),
    }


def forget(deps: EngineDeps, stack: StackRecord) -> None:
    """Delete the stack from hotplate, leaving its physical resources alone.

    Raises:
        ActionInProgress: the stack is busy, or a traversal started meanwhile.
    """
    busy = ActionInProgress(stack.name, str(stack.action))
    if stack.status is Status.IN_PROGRESS:
        raise busy
    store = deps.store
    started = outcome.started_reason(Action.DELETE)
    if not store.update_stack_if_traversal(
        stack.id, stack.current_traversal,
        {"action": Action.DELETE, "status": Status.IN_PROGRESS, "status_reason": started},
        trav.stack_event(deps, stack, Action.DELETE, Status.IN_PROGRESS, started),
    ):
        raise busy
    for row in store.list_resources(stack.id):
        store.delete_resource(row.id)
    done = outcome.completed_reason(Action.DELETE)
    store.update_stack_if_traversal(
        stack.id, stack.current_traversal,
        {"action": Action.DELETE, "status": Status.COMPLETE, "status_reason": done},
        trav.stack_event(deps, stack, Action.DELETE, Status.COMPLETE, done),
    )
    store.soft_delete_stack(stack.id)
