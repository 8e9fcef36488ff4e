"""Starting and ending traversals: converge_stack, mark_complete, mark_failed, purge.

Every step is guarded by the traversal id (a compare-and-swap on the stack
row), so two requests racing on one stack cannot both win, and a worker of a
superseded traversal can never settle the stack. Only the winner of a swap
that changes the stack's state sends Heat's notification of it (notify.py).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from hotplate.convergence import outcome
from hotplate.convergence.graph_build import build_traversal_graph, graph_to_json
from hotplate.convergence.propagation import sync_counts
from hotplate.convergence.rows import choose_rows
from hotplate.engine import lifecycle, notify
from hotplate.engine.deps import EngineDeps
from hotplate.engine.worker import snapshot_deletion
from hotplate.engine.worker.retired_templates import drop_unused, retiring, sweep
from hotplate.graph import Graph
from hotplate.model.ids import NO_TRAVERSAL, StackId, TemplateId, TraversalId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import (
    NewEvent,
    NewResource,
    NewSyncPoint,
    ResourceRecord,
    StackRecord,
)
from hotplate.model.states import Action, Status
from hotplate.template import parse_template, version_key

LOG = logging.getLogger(__name__)

STACK_RESOURCE_TYPE = "OS::Heat::Stack"


def stack_event(deps: EngineDeps, stack: StackRecord, action: Action, status: Status,
                reason: str, *, uuid: str | None = None) -> NewEvent:
    event = NewEvent(
        stack_id=stack.id,
        uuid=uuid or deps.ids.new_uuid(),
        resource_name=stack.name,
        resource_action=str(action),
        resource_status=str(status),
        resource_status_reason=reason,
        physical_resource_id=stack.id,
        resource_type=STACK_RESOURCE_TYPE,
    )
    if deps.event_sinks is not None:
        deps.event_sinks.observe(event)
    return event


def converge_stack(
    deps: EngineDeps,
    stack: StackRecord,
    template_id: TemplateId,
    action: Action,
    *,
    prev_template_id: TemplateId | None,
    started_as: str | None = None,
    converge: bool = False,
) -> TraversalId | None:
    """Start a traversal taking ``stack`` to ``template_id``; None if another request won.

    The stack's current traversal is swapped first; from then on, workers of
    the previous traversal find their sync points gone and hand over.
    ``started_as`` is the uuid of the action's first event, written in the
    same transaction as the swap: a request that derives it from its request
    id finds, when asked again, whether its first asking started the action.

    The stack lifecycle plugins' pre-ops run first (lifecycle.py); one that
    refuses fails the action at once, and None is returned. ``converge``: an
    update that compares the template with the live state (kept with the graph).
    """
    refused = lifecycle.before_action(deps, stack, str(action), template_id)
    if refused is not None:
        refuse(deps, stack, action, refused)
        return None
    _watch_sinks(deps, stack, template_id)
    running = None
    if stack.status is not Status.COMPLETE:
        running = (deps.store.get_stack_deps(stack.id) or (None, None))[1]
    retired = retiring(stack, running, template_id, prev_template_id)
    traversal = TraversalId(deps.ids.new_uuid())
    values: dict[str, Any] = {
        "action": action,
        "status": Status.IN_PROGRESS,
        "status_reason": outcome.started_reason(action),
        "current_traversal": traversal,
        "current_deps": None,
        "raw_template_id": template_id,
        "prev_raw_template_id": prev_template_id,
    }
    event = stack_event(deps, stack, action, Status.IN_PROGRESS, values["status_reason"],
                        uuid=started_as)
    if not deps.store.update_stack_if_traversal(stack.id, stack.current_traversal, values, event):
        LOG.warning("stack %s: traversal changed under us; %s not started", stack.id, action)
        return None
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, values)
    deps.routes.started(stack.id, traversal)  # a legacy stack's: to its thread here
    deps.store.delete_sync_points(stack.id, keep_traversal=traversal)
    try:
        retired = drop_unused(deps, retired)
        _build_and_start(deps, stack, traversal, template_id, prev_template_id, converge,
                         retired)
    except Exception as exc:  # never leave a stack IN_PROGRESS with nothing running
        LOG.exception("stack %s: could not start %s", stack.id, action)
        started = deps.store.get_stack(stack.id)
        if started is not None:
            mark_failed(deps, started, traversal, f"{type(exc).__name__}: {exc}")
    return traversal


def _watch_sinks(deps: EngineDeps, stack: StackRecord, template_id: TemplateId) -> None:
    """This engine sends the action's events to the new template's sinks from the first."""
    if deps.event_sinks is None:
        return
    try:
        deps.event_sinks.watch(stack.id, deps.caches.template(template_id).env.event_sinks)
    except Exception:  # the delivery thread reads them itself, once the action started
        LOG.warning("stack %s: event sinks of template %s unknown", stack.id, template_id,
                    exc_info=True)


def refuse(deps: EngineDeps, stack: StackRecord, action: Action, reason: str) -> bool:
    """Fail ``action`` at its start: a lifecycle plugin's pre-op refused it.

    The stack goes ``<ACTION>_IN_PROGRESS`` and at once ``<ACTION>_FAILED`` with
    the plugin's reason (a settled stack only settles again through a start),
    on the template it had: nothing of the action ran. False if another
    request changed the stack first.
    """
    traversal = TraversalId(deps.ids.new_uuid())
    started: dict[str, Any] = {"action": action, "status": Status.IN_PROGRESS,
                               "status_reason": outcome.started_reason(action),
                               "current_traversal": traversal}
    event = stack_event(deps, stack, action, Status.IN_PROGRESS, started["status_reason"])
    if not deps.store.update_stack_if_traversal(stack.id, stack.current_traversal, started,
                                                event):
        return False
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, started)
    running = replace(stack, **started)
    failed: dict[str, Any] = {"status": Status.FAILED, "status_reason": reason,
                              "current_traversal": NO_TRAVERSAL}
    event = stack_event(deps, running, action, Status.FAILED, reason)
    if not deps.store.update_stack_if_traversal(stack.id, traversal, failed, event):
        return False
    notify.stack_changed(deps, running, failed)
    deps.wake_waiters(stack)
    return True


def _build_and_start(
    deps: EngineDeps,
    stack: StackRecord,
    traversal: TraversalId,
    template_id: TemplateId,
    prev_template_id: TemplateId | None,
    converge: bool = False,
    retired: list[TemplateId] | None = None,
) -> None:
    store = deps.store
    stack_id = stack.id
    template = deps.caches.for_stack(template_id, stack)
    name_graph = template.dependencies()
    existing = store.list_resources(stack_id)
    choice = choose_rows(name_graph.nodes, existing, template_id, prev_template_id)
    root = root_stack_id(deps, stack) if choice.missing else None
    new_rows = [
        NewResource(
            stack_id=stack_id,
            name=name,
            resource_type=template.resources[name].type,
            uuid=deps.ids.new_uuid(),
            current_template_id=None,
            root_stack_id=root,
        )
        for name in choice.missing
    ]
    created = store.create_resource_records(new_rows) if new_rows else []
    new_ids = [row.id for row in created]
    row_ids = {name: row.id for name, row in choice.chosen.items()}
    row_ids.update(zip(choice.missing, new_ids, strict=True))
    graph = build_traversal_graph(name_graph, row_ids, existing)
    if not store.update_stack_if_traversal(
        stack_id, traversal,
        {"current_deps": graph_to_json(graph, converge=converge, retired=retired or ())}
    ):
        return
    deps.caches.remember_graph(stack_id, traversal, graph, converge=converge)
    counts = sync_counts(graph)
    roots = graph.roots()
    points = [NewSyncPoint(str(n.resource_id), n.is_update, c) for n, c in counts.items()]
    points.append(NewSyncPoint(str(stack_id), True, len(roots)))
    store.create_sync_points(stack_id, traversal, points)
    leaves = sorted(graph.leaves(), key=lambda n: (n.is_update, n))
    if not leaves:
        current = store.get_stack(stack_id)
        if current is not None:
            mark_complete(deps, current, traversal)
        return
    _remember_rows(deps, stack_id, traversal, graph, [*existing, *created])
    deps.cast_check_resources(traversal, [(leaf.resource_id, leaf.is_update, {})
                                          for leaf in leaves])


def _remember_rows(deps: EngineDeps, stack_id: StackId, traversal: TraversalId,
                   graph: Graph[NodeKey], rows: list[ResourceRecord]) -> None:
    """Keep each row of the new traversal for its first node (row_memory.py), with the
    stack as the traversal's start left it: the nodes then read neither.

    ``rows``: the stack's rows as read before the start, and those it created as they
    were inserted. The stack is read again (one statement): it is then what each node
    would have read. A row's first node is its update node, else its cleanup node (a
    row the new template drops)."""
    stack = deps.store.get_stack(stack_id)
    if stack is None or stack.current_traversal != traversal:
        return
    nodes = graph.nodes
    first = [(row, NodeKey(row.id, True) in nodes) for row in rows
             if NodeKey(row.id, True) in nodes or NodeKey(row.id, False) in nodes]
    deps.row_memory.remember(traversal, first, stack)


def root_stack_id(deps: EngineDeps, stack: StackRecord) -> StackId:
    """The top of the stack's nesting: where its resources are counted."""
    current = stack
    for _ in range(MAX_DEPTH_WALK):
        if current.owner_id is None:
            return current.id
        parent = deps.store.get_stack(current.owner_id, include_deleted=True)
        if parent is None:
            return current.owner_id
        current = parent
    return current.id


MAX_DEPTH_WALK = 16
"""Far beyond the nesting depth allowed; only guards against a loop of owners."""


def mark_complete(deps: EngineDeps, stack: StackRecord, traversal: TraversalId) -> bool:
    """Settle the traversal COMPLETE and tidy up; False if superseded.

    A delete first deletes the stack's snapshots (their cloud backups and
    images too): one that cannot be deleted fails the stack's delete instead.
    """
    if stack.action is Action.DELETE:
        failure = snapshot_deletion.delete_all(deps, stack)
        if failure is not None:
            return mark_failed(deps, stack, traversal, failure)
    reason = outcome.completed_reason(stack.action)
    event = stack_event(deps, stack, stack.action, Status.COMPLETE, reason)
    values: dict[str, Any] = {"status": Status.COMPLETE, "status_reason": reason}
    if stack.action is Action.DELETE:
        # Deleted in the same write that says so: nobody sees DELETE_COMPLETE on a live row.
        values["deleted_at"] = deps.clock.now()
        values["prev_raw_template_id"] = None
    if not deps.store.update_stack_if_traversal(stack.id, traversal, values, event):
        return False
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, values)
    lifecycle.after_action(deps, stack, values, failed=False)
    if stack.action is Action.DELETE and stack.prev_raw_template_id is not None:
        deps.store.delete_raw_template(stack.prev_raw_template_id)
    purge_db(deps, stack, traversal, success=True)
    deps.wake_waiters(stack)
    return True


def mark_failed(
    deps: EngineDeps, stack: StackRecord, traversal: TraversalId, reason: str
) -> bool:
    """Settle the traversal as FAILED, then roll back or tidy up. False if superseded."""
    decision = outcome.on_stack_failure(stack.action, stack.disable_rollback)
    event = stack_event(deps, stack, stack.action, Status.FAILED, reason)
    values: dict[str, Any] = {"status": Status.FAILED, "status_reason": reason}
    if not decision.rollback:
        values["current_traversal"] = NO_TRAVERSAL
    if not deps.store.update_stack_if_traversal(stack.id, traversal, values, event):
        return False
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, values)  # before a rollback's start, as in Heat
    lifecycle.after_action(deps, stack, values, failed=True)
    if decision.rollback:
        failed = deps.store.get_stack(stack.id)
        if failed is not None and failed.current_traversal == traversal:
            rollback(deps, failed)
    else:
        purge_db(deps, stack, NO_TRAVERSAL, success=False, old_traversal=traversal)
    deps.wake_waiters(stack)
    return True


def rollback(deps: EngineDeps, stack: StackRecord) -> TraversalId | None:
    """Converge back to the previous template, or to nothing after a failed create."""
    target = stack.prev_raw_template_id
    if target is None:
        loaded = deps.caches.template(stack.raw_template_id)
        target = empty_template(deps, loaded.template.version, loaded.environment)
    return converge_stack(
        deps, stack, target, Action.ROLLBACK, prev_template_id=stack.raw_template_id
    )


def empty_template(deps: EngineDeps, version: str, environment: Any = None) -> TemplateId:
    """The template a delete or a create's rollback converges to: no resources.

    It keeps the environment (its registry says which plugin deletes each
    row) but not the user's parameter values, which name parameters an empty
    template does not declare.

    The new id goes into this engine's template cache at once: SQLite hands
    out again the id of a template deleted since (a rollback's purge deletes
    the template it rolled back from), and a parse cached under that id would
    otherwise stand in for the empty template, giving a delete update nodes
    it can never finish, or none of the cleanup it has to do.
    """
    env = {k: v for k, v in dict(environment or {}).items() if k != "parameters"}
    raw = {version_key(version): version}
    template_id = deps.store.create_raw_template(raw, {}, env)
    deps.caches.remember_template(template_id, parse_template(raw), {}, env)
    return template_id


def purge_db(
    deps: EngineDeps,
    stack: StackRecord,
    traversal: TraversalId,
    *,
    success: bool,
    old_traversal: TraversalId | None = None,
) -> None:
    """Tidy up after a traversal: deleted rows, its sync points, the templates it replaced."""
    store = deps.store
    store.purge_deleted_resources(stack.id)
    store.delete_sync_points(stack.id, traversal_id=old_traversal or traversal)
    if success:
        sweep(deps, stack.id, traversal)
    current = store.get_stack(stack.id, include_deleted=True)
    if current is None:
        return
    if current.deleted_at is not None:
        deps.credentials.delete_for(current)  # a root's trust and stack domain project
        return
    # Only while the stack is still on this traversal: a client that saw COMPLETE may
    # have started an update since, whose previous template is its rollback target
    # (and the one this traversal replaced was retired by that update's start).
    if (success and current.prev_raw_template_id is not None
            and current.current_traversal == traversal):
        prev = current.prev_raw_template_id
        if store.update_stack_if_traversal(
            stack.id, traversal, {"prev_raw_template_id": None}
        ) and prev != current.raw_template_id:
            store.delete_raw_template(prev)


def stop_traversal(deps: EngineDeps, stack: StackRecord, reason: str | None = None) -> bool:
    """Cancel the running traversal: a fresh traversal id, FAILED ``reason`` (default
    the convergence engine's 'Stack <ACTION> cancelled')."""
    new_traversal = TraversalId(deps.ids.new_uuid())
    reason = reason or outcome.cancelled_reason(stack.action)
    event = stack_event(deps, stack, stack.action, Status.FAILED, reason)
    values = {
        "status": Status.FAILED,
        "status_reason": reason,
        "current_traversal": new_traversal,
    }
    if not deps.store.update_stack_if_traversal(
        stack.id, stack.current_traversal, values, event
    ):
        LOG.warning("stack %s: traversal changed; cancel not applied", stack.id)
        return False
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, values)
    lifecycle.after_action(deps, stack, values, failed=True)
    deps.store.delete_sync_points(stack.id, traversal_id=stack.current_traversal)
    deps.wake_waiters(stack)
    return True
