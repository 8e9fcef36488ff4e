"""Suspend, resume, check and snapshot: whole-stack actions outside convergence.

Heat runs these as one task per stack, resource by resource (suspend in
reverse dependency order, so dependants go first), rather than as a
convergence traversal. Here the request swaps the stack's traversal id (the
same compare-and-swap an update makes, so the two cannot both win) and
sets ``<ACTION>_IN_PROGRESS``; a worker then walks the resources, each
under its resource lock, and ends the stack ``COMPLETE`` or ``FAILED`` with
Heat's texts. A newer request (a delete) swaps the traversal again and the
walk stops at the next resource.

Per resource, Heat's rules: a plugin's ``handle_suspend`` / ``handle_resume``
/ ``handle_check`` runs when it has one; without it suspend and resume only
record the state change, and check records ``CHECK_COMPLETE`` with "CHECK
not supported for <type>". Resources never created are skipped. A snapshot's
walk has the snapshot's id for traversal id and writes each resource's part of
it as it completes (snapshot_records.py).

A resource whose first ``check_<action>_complete`` does not find it done holds
no thread while the walk waits for it: the walk is parked (``ParkedWalk``,
parking.py) with the resource locked, and re-checked on the back-off, or at
once when what it waits on wakes it (the plugin's ``wake_key``: a child
stack's end, a deployment's signal). Its engine dying leaves the lock to be
taken over; the stack, showing no progress, is then walked again by another
engine (recovery.py, ``again``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hotplate.convergence import outcome
from hotplate.engine import lifecycle, notify
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.hosting.row_plugins import row_class, row_instance
from hotplate.engine.worker import snapshot_records
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.node_work import NodeWork, failure_text
from hotplate.engine.worker.parking import Parked
from hotplate.model.errors import ActionInProgress
from hotplate.model.ids import StackId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import CheckResult, Resource

LOG = logging.getLogger(__name__)

STACK_ACTIONS = (Action.SUSPEND, Action.RESUME, Action.CHECK, Action.SNAPSHOT)

_WAITING = "waiting"
"""``_one``'s answer when the walk waits for the resource (parked)."""


def start(deps: EngineDeps, stack: StackRecord, action: Action, *,
          traversal: TraversalId | None = None) -> bool:
    """Mark the stack ``<ACTION>_IN_PROGRESS`` and hand the walk to a worker; False if
    the action ended before it started (refused by a lifecycle plugin, or a suspend
    of a suspended stack). ``traversal``: the walk's id (a snapshot's is its own id).

    Raises:
        ActionInProgress: the stack is busy (Heat's 409).
    """
    if stack.status is Status.IN_PROGRESS:
        raise ActionInProgress(stack.name, str(stack.action))
    if action in (Action.SUSPEND, Action.RESUME) and (
            stack.action, stack.status) == (action, Status.COMPLETE):
        return False  # already suspended (or resumed): Heat does nothing
    refused = lifecycle.before_action(deps, stack, str(action))
    if refused is not None:  # a lifecycle plugin's pre-op: the action fails before it starts
        trav.refuse(deps, stack, action, refused)
        return False
    traversal = traversal or TraversalId(deps.ids.new_uuid())
    reason = outcome.started_reason(action)
    event = trav.stack_event(deps, stack, action, Status.IN_PROGRESS, reason)
    values = {"action": action, "status": Status.IN_PROGRESS, "status_reason": reason,
              "current_traversal": traversal}
    if not deps.store.update_stack_if_traversal(stack.id, stack.current_traversal, values,
                                                event):
        raise ActionInProgress(stack.name, str(stack.action))
    deps.row_memory.forget_stack(stack.id)
    notify.stack_changed(deps, stack, values)
    deps.routes.started(stack.id, traversal)  # a legacy stack's: walked by its thread here
    deps.cast_stack_action(stack.id, action, traversal)
    return True


@dataclass
class Walk:
    """Where a stack action's walk is: what is left to do, and what failed so far."""

    stack: StackRecord
    action: Action
    traversal: TraversalId
    rows: list[ResourceRecord]
    """The resources still to walk, in order."""
    again: bool
    failures: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)
class ParkedWalk(Parked):
    """A walk waiting for its resource ``row`` (locked, ``<ACTION>_IN_PROGRESS``) to
    finish its action: re-driven as a node of the walk's traversal (``check_resource``
    finds it by that key), so it needs no message of its own."""

    walk: Walk
    check: Callable[[Any], CheckResult]
    data: Any

    def deadline(self) -> datetime | None:
        """None: a stack action waits for its resources however long they take."""
        return None


def run(deps: EngineDeps, stack_id: StackId, action: Action,
        traversal: TraversalId, *, again: bool = False) -> None:
    """Walk the resources; the stack ends COMPLETE or FAILED unless superseded.

    ``again``: recovery sends the action once more after the engine running it
    died (engine/worker/recovery.py); resources it had finished are left as they are.
    """
    stack = deps.store.get_stack(stack_id)
    if stack is None or stack.current_traversal != traversal:
        return
    order = _order(deps, stack, reverse=action is Action.SUSPEND)
    with deps.busy.stack(str(stack_id)):
        _walk_on(deps, Walk(stack, action, traversal, order, again))


def resume_walk(deps: EngineDeps, parked: ParkedWalk) -> None:
    """Check the walk's waiting resource again; once it is done, walk on.

    A cancel after a newer request (a delete) ends the wait: the resource is
    let go, FAILED "<ACTION> aborted", and the walk stops there.
    """
    with deps.busy.stack(str(parked.walk.stack.id)):
        _resume_walk(deps, parked)


def _resume_walk(deps: EngineDeps, parked: ParkedWalk) -> None:
    walk, row = parked.walk, parked.row
    if parked.cancelled and _superseded(deps, walk):
        LOG.info("stack %s: %s superseded at %s", walk.stack.id, walk.action, row.name)
        _settle(deps, row, walk.action, Status.FAILED, outcome.aborted(walk.action))
        return
    try:
        try:
            with deps.slots.released():
                done = parked.check(parked.data)
        finally:
            _keep_data(getattr(parked.check, "__self__", None))
        if not done:
            assert deps.parked is not None
            deps.parked.park(parked, again=True)
            return
        status, reason = Status.COMPLETE, outcome.STATE_CHANGED
    except Exception as exc:
        LOG.info("resource %s %s failed", row.name, walk.action, exc_info=True)
        status, reason = Status.FAILED, failure_text(exc, row.name)
    _settled(deps, walk, row, status, reason)
    if status is Status.FAILED:
        walk.failures[row.name] = reason
        if walk.action is not Action.CHECK:
            walk.rows.clear()
    _walk_on(deps, walk)


def _walk_on(deps: EngineDeps, walk: Walk) -> None:
    """Walk the resources left, until one waits (parked) or the walk ends."""
    stack, action = walk.stack, walk.action
    graph = deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
    while walk.rows:
        row = walk.rows.pop(0)
        if _superseded(deps, walk):
            LOG.info("stack %s: %s superseded", stack.id, action)
            return
        if action is Action.CHECK and _after_a_failure(graph, row.name, walk.failures):
            continue  # Heat checks on past a failure, but not what depends on it
        if walk.again and (row.action, row.status) == (action, Status.COMPLETE):
            continue
        failure = _one(deps, walk, row)
        if failure is _WAITING:
            return
        if failure is not None:
            walk.failures[row.name] = failure
            if action is not Action.CHECK:
                break
    _end(deps, walk)


def _superseded(deps: EngineDeps, walk: Walk) -> bool:
    current = deps.store.get_stack(walk.stack.id)
    return current is None or current.current_traversal != walk.traversal


def _end(deps: EngineDeps, walk: Walk) -> None:
    """The stack COMPLETE or FAILED with Heat's texts; a parent waiting on it is woken."""
    stack, action, failures = walk.stack, walk.action, walk.failures
    status = Status.COMPLETE if not failures else Status.FAILED
    if not failures:
        reason = outcome.completed_reason(action)
    elif action is Action.CHECK:
        reason = "Resource CHECK failed: " + "; ".join(
            f"{name}: {text}" for name, text in failures.items())
    else:
        reason = outcome.resource_failed_reason(action, next(iter(failures.values())))
    event = trav.stack_event(deps, stack, action, status, reason)
    values = {"status": status, "status_reason": reason}
    if deps.store.update_stack_if_traversal(stack.id, walk.traversal, values, event):
        if action is Action.SNAPSHOT:
            snapshot_records.finish(deps, stack, walk.traversal, status, reason)
        notify.stack_changed(deps, stack, values)
        lifecycle.after_action(deps, stack, values, failed=status is Status.FAILED)
        deps.wake_waiters(stack)


def _after_a_failure(graph: Any, name: str, failures: dict[str, str]) -> bool:
    """Whether ``name`` depends, directly or not, on a resource whose check failed."""
    return name in graph.nodes and not graph.ancestors(name).isdisjoint(failures)


def _order(deps: EngineDeps, stack: StackRecord, *, reverse: bool) -> list[ResourceRecord]:
    """The stack's created resources, dependencies first (or last, with ``reverse``)."""
    template = deps.caches.for_stack(stack.raw_template_id, stack)
    rows = {r.name: r for r in deps.store.list_resources(stack.id)
            if r.current_template_id == stack.raw_template_id and r.action is not Action.INIT}
    names = [n for n in template.dependencies().toposort() if n in rows]
    if reverse:
        names.reverse()
    return [rows[n] for n in names]


def _one(deps: EngineDeps, walk: Walk, row: ResourceRecord) -> str | None:
    """One resource's action; the failure text, None when done, or ``_WAITING``
    when the walk waits for it (parked)."""
    stack, action = walk.stack, walk.action
    # Read afresh: a signal or a deployment's metadata push may have written the row
    # (bumping its atomic_key) since the walk listed it.
    row = deps.store.get_resource(row.id) or row
    invalid = _invalid_state(row, action)
    if invalid is not None:
        return f"Error: resources.{row.name}: State {invalid} invalid for {action.lower()}"
    cls = row_class(deps, row)
    handler: Callable[..., Any] | None = getattr(cls, f"handle_{action.lower()}", None)
    if action is Action.CHECK and handler is None:
        reason = f"CHECK not supported for {row.resource_type}"
        event = resource_event(deps, row, action, Status.COMPLETE, reason)
        if deps.store.update_resource_if_unlocked(
                row.id, row.atomic_key,
                {"action": action, "status": Status.COMPLETE, "status_reason": reason}, event
        ) is None:
            return f"Error: resources.{row.name}: the resource is busy"
        return None
    started = deps.store.acquire_resource(
        row.id, deps.engine_id, row.atomic_key,
        {"action": action, "status": Status.IN_PROGRESS, "status_reason": outcome.STATE_CHANGED},
        resource_event(deps, row, action, Status.IN_PROGRESS, outcome.STATE_CHANGED))
    if started is None:
        return f"Error: resources.{row.name}: the resource is busy"
    status, reason = Status.COMPLETE, outcome.STATE_CHANGED
    if handler is not None:
        try:
            instance = row_instance(deps, row, stack, cls)
            if _parked(deps, walk, started, instance):
                return _WAITING
        except Exception as exc:
            LOG.info("resource %s %s failed", row.name, action, exc_info=True)
            status, reason = Status.FAILED, failure_text(exc, row.name)
    _settled(deps, walk, row, status, reason)
    return reason if status is Status.FAILED else None


def _parked(deps: EngineDeps, walk: Walk, row: ResourceRecord, instance: Resource) -> bool:
    """Run the plugin's handler and a first check; True if the walk waits (parked) for
    the rest. An engine that parks nothing checks in this thread until done."""
    name = walk.action.lower()
    handle = getattr(instance, f"handle_{name}")
    check: Callable[[Any], CheckResult] | None = getattr(instance, f"check_{name}_complete",
                                                          None)
    if deps.parked is None:
        try:
            with deps.slots.released():  # a plugin runs: the slot is given back meanwhile
                deps.runner.run(handle, check, deadline=None, cancelled=None)
        finally:
            _keep_data(instance)
        return False
    since = deps.clock.now()
    try:
        with deps.slots.released():  # as around any plugin's action (plugin_runs.py)
            data = handle()
            if check is None or check(data):
                return False
    finally:
        _keep_data(instance)
    work = NodeWork(row, walk.stack, walk.traversal, False)
    deps.parked.park(ParkedWalk(work, row, walk=walk, check=check, data=data,
                                wake_key=instance.wake_key(), since=since))
    return True


def _keep_data(instance: Resource | None) -> None:
    """Write what the plugin put in its resource data (a backup's id) now: the walk's
    state changes do not carry it, as a traversal's do."""
    flush = getattr(getattr(instance, "ctx", None), "flush", None)
    if callable(flush):
        flush()


def _settled(deps: EngineDeps, walk: Walk, row: ResourceRecord, status: Status,
             reason: str) -> None:
    """The resource's outcome of the walk; a snapshot keeps the resource's part."""
    _settle(deps, row, walk.action, status, reason)
    if walk.action is Action.SNAPSHOT and status is Status.COMPLETE:
        snapshot_records.record_resource(deps, walk.traversal, row.id)


def _settle(deps: EngineDeps, row: ResourceRecord, action: Action, status: Status,
            reason: str) -> None:
    """The resource's outcome, its lock let go."""
    deps.store.update_resource_locked(
        row.id, deps.engine_id, {"status": status, "status_reason": reason},
        resource_event(deps, row, action, status, reason), release=True)


def _invalid_state(row: ResourceRecord, action: Action) -> str | None:
    state = f"('{row.action}', '{row.status}')"
    if action is Action.SUSPEND and (
            row.action is Action.DELETE
            or (row.action is not Action.SUSPEND and row.status is not Status.COMPLETE)):
        return state
    if action is Action.RESUME and (row.action, row.status) not in (
            (Action.SUSPEND, Status.COMPLETE), (Action.RESUME, Status.FAILED)):
        return state
    return None
