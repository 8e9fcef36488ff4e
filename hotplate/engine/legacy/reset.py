"""Legacy stacks left IN_PROGRESS by a dead engine: reset FAILED (Heat's reset_stack_status).

Heat looks once, when an engine starts. Here every engine also looks in each
recovery round (engine/worker/recovery.py), so a stack whose lock holder died
is found while the others live on, as the convergence engine's work is::

    stack IN_PROGRESS, convergence false, and its lock   then
    ---------------------------------------------------  --------------------------
    held by a live engine (this one's running thread)     left alone
    held by a dead engine                                 stolen, then reset
    held by nobody (the holder released it and died)      taken, then reset
    this engine's, no thread behind it                    reset

Reset: every resource still IN_PROGRESS ``<ACTION>_FAILED`` (its row lock
taken from the dead engine by the same compare-and-swap as a worker's takeover,
so a holder that was only paused can write nothing more under it); the stack
``<ACTION>_FAILED`` "Engine went down during stack <ACTION>", its traversal
ended; after an UPDATE, the previous template the stack's template again (Heat's
``restore_previous``). The lock is then released.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hotplate.engine import notify
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.worker import traversal as trav
from hotplate.model.ids import NO_TRAVERSAL, EngineId, StackId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)


def went_down_reason(action: Action) -> str:
    return f"Engine went down during stack {action}"


def reset_stale(deps: EngineDeps, running_here: Callable[[StackId], bool]) -> int:
    """Reset every legacy stack whose lock holder died; how many were reset."""
    reset = 0
    for stack in deps.store.stacks_in_progress():
        if stack.convergence:
            continue
        try:
            reset += reset_if_abandoned(deps, stack, running_here)
        except Exception:  # one stack's trouble must not stop the others' reset
            LOG.exception("stack %s: legacy reset failed", stack.id)
    return reset


def reset_if_abandoned(deps: EngineDeps, stack: StackRecord,
                       running_here: Callable[[StackId], bool]) -> bool:
    """Take the lock of a stack nobody alive works on, and reset it; True if reset."""
    store, me = deps.store, deps.engine_id
    holder = store.stack_lock_holder(stack.id)
    if holder == me:
        if running_here(stack.id):
            return False
    elif holder is not None:
        if deps.is_engine_alive(holder):
            return False
        if not store.steal_stack_lock(stack.id, holder, me):
            return False
    elif store.acquire_stack_lock(stack.id, me) is not None:
        return False
    try:
        fresh = store.get_stack(stack.id)
        if fresh is None or fresh.status is not Status.IN_PROGRESS or fresh.convergence:
            return False
        LOG.warning("stack %s: engine %s went down during %s; resetting it", stack.id,
                    holder, fresh.action)
        return reset_stack(deps, fresh)
    finally:
        if not store.release_stack_lock(stack.id, me):
            LOG.warning("stack %s: lock already released after its reset", stack.id)


def reset_stack(deps: EngineDeps, stack: StackRecord) -> bool:
    """The stack and its resources IN_PROGRESS set FAILED; False if the stack changed."""
    reason = went_down_reason(stack.action)
    fail_rows_in_progress(deps, stack, reason)
    values: dict[str, Any] = {"status": Status.FAILED, "status_reason": reason,
                              "current_traversal": NO_TRAVERSAL}
    if stack.action is Action.UPDATE and stack.prev_raw_template_id is not None:
        values["raw_template_id"] = stack.prev_raw_template_id
        values["prev_raw_template_id"] = None
    event = trav.stack_event(deps, stack, stack.action, Status.FAILED, reason)
    if not deps.store.update_stack_if_traversal(stack.id, stack.current_traversal, values,
                                                event):
        return False
    notify.stack_changed(deps, stack, values)
    deps.store.delete_sync_points(stack.id, traversal_id=stack.current_traversal)
    deps.wake_waiters(stack)
    return True


def fail_rows_in_progress(deps: EngineDeps, stack: StackRecord, reason: str) -> int:
    """Every resource of ``stack`` still IN_PROGRESS set FAILED ``reason``; how many."""
    rows = [row for row in deps.store.list_resources(stack.id)
            if row.status is Status.IN_PROGRESS]
    for row in rows:
        _fail_row(deps, row, reason)
    return len(rows)


def _fail_row(deps: EngineDeps, row: ResourceRecord, reason: str) -> None:
    """One resource FAILED, its row lock taken from whoever held it (dead, or us)."""
    values = {"status": Status.FAILED, "status_reason": reason}
    event = resource_event(deps, row, row.action, Status.FAILED, reason)
    holder = row.engine_id
    if holder is None:
        deps.store.update_resource_if_unlocked(row.id, row.atomic_key, values, event)
    elif holder == deps.engine_id or not deps.is_engine_alive(EngineId(holder)):
        deps.store.steal_resource_lock(row.id, holder, values, event)
