"""Export and abandon: a stack's abandon document, and forgetting a stack but not its resources.

Both are off unless ``enable_stack_abandon`` is set, as in Heat (the
document holds resource data, which may be secret). The document::

    {name, id, action, status, template, environment, files, project_id,
     stack_user_project_id, tags,
     resources: {name: {name, resource_id, type, action, status, metadata, resource_data}}}

except that a stack-backed resource's entry is its child stack's whole
document (the same keys, one level down), as Heat's StackResource gives it:
adopting that entry adopts the child's resources.

Abandoning records a DELETE (started, then completed) with its events,
drops the resource rows without calling any plugin, and soft-deletes the
stack, so the physical resources live on outside hotplate; the stacks it
owns are abandoned with it. It refuses a stack with an action in progress,
and each step is guarded by the stack's traversal id, so it cannot race a
traversal that starts meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.convergence import outcome
from hotplate.engine import notify
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_class
from hotplate.engine.stack_document import stack_document
from hotplate.engine.stack_rows import current_rows, owned_children
from hotplate.engine.worker import traversal as trav
from hotplate.model.errors import ActionInProgress, NotSupported
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.stack_resource import StackResource


def check_enabled(deps: EngineDeps) -> None:
    if not deps.options.enable_stack_abandon:
        raise NotSupported("Stack Abandon is not supported.")


def abandon_document(deps: EngineDeps, stack: StackRecord,
                     rows: Mapping[str, ResourceRecord]) -> dict[str, Any]:
    children = owned_children(deps, stack)
    return stack_document(deps, stack, {name: _resource(deps, row, children)
                                        for name, row in rows.items()})


def _resource(deps: EngineDeps, row: ResourceRecord,
              children: Mapping[str, StackRecord]) -> dict[str, Any]:
    """The row's entry; for a stack-backed one, its child's whole document (Heat's
    StackResource.prepare_abandon), or nothing while it has no child."""
    if _stack_backed(deps, row):
        child = children.get(row.physical_resource_id or "")
        return {} if child is None else abandon_document(deps, child, current_rows(deps, child))
    return {
        "name": row.name,
        "resource_id": row.physical_resource_id,
        "type": row.resource_type,
        "action": str(row.action),
        "status": str(row.status),
        "metadata": dict(row.metadata or {}),
        "resource_data": deps.store.get_resource_data(row.id),
    }


def _stack_backed(deps: EngineDeps, row: ResourceRecord) -> bool:
    """Whether the row's type keeps its physical form in a child stack of this stack."""
    try:
        cls = row_class(deps, row)
    except Exception:  # a type that is gone: its row is all there is to say
        return False
    return issubclass(cls, StackResource) and cls.owned






def forget(deps: EngineDeps, stack: StackRecord) -> None:
    """Delete the stack from hotplate, leaving its physical resources alone.

    The stacks it owns (its stack-backed resources' children) are forgotten
    with it, as Heat abandons them, once its DELETE has started.

    Raises:
        ActionInProgress: the stack or one it owns is busy, or a traversal
            started meanwhile.
    """
    for busy_stack in (stack, *_descendants(deps, stack)):
        if busy_stack.status is Status.IN_PROGRESS:
            raise ActionInProgress(busy_stack.name, str(busy_stack.action))
    busy = ActionInProgress(stack.name, str(stack.action))
    store = deps.store
    started = outcome.started_reason(Action.DELETE)
    deleting = {"action": Action.DELETE, "status": Status.IN_PROGRESS, "status_reason": started}
    if not store.update_stack_if_traversal(
        stack.id, stack.current_traversal, deleting,
        trav.stack_event(deps, stack, Action.DELETE, Status.IN_PROGRESS, started),
    ):
        raise busy
    notify.stack_changed(deps, stack, deleting)  # Heat's abandon is a delete: it says so
    for child in owned_children(deps, stack).values():
        forget(deps, child)
    for row in store.list_resources(stack.id):
        store.delete_resource(row.id)
    done = outcome.completed_reason(Action.DELETE)
    deleted = {"action": Action.DELETE, "status": Status.COMPLETE, "status_reason": done}
    if store.update_stack_if_traversal(
        stack.id, stack.current_traversal, deleted,
        trav.stack_event(deps, stack, Action.DELETE, Status.COMPLETE, done),
    ):
        notify.stack_changed(deps, stack, deleted)
    store.soft_delete_stack(stack.id)
    deps.credentials.delete_for(stack, abandon=True)


def _descendants(deps: EngineDeps, stack: StackRecord) -> list[StackRecord]:
    found = []
    for child in owned_children(deps, stack).values():
        found += [child, *_descendants(deps, child)]
    return found
