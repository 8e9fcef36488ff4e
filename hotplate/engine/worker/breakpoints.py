"""Pausing a resource at a hook until a signal clears it (rules: convergence/hooks.py).

A pending hook is the resource data key named after it with the value
"True", as Heat stores it, so clearing it is deleting that key. A paused
node holds no thread: it is parked (parking.py, ``ParkedHook``) with what
it does once the hook is cleared, and the ``unset_hook`` signal wakes it at
once, on whichever engine holds it (``clear_hook``). A cancel (the stack
being deleted) or the stack's deadline still ends the wait, as "Failure
occurred while waiting."; a re-check every ``HOOK_RECHECK`` seconds is only
a safety net for a wake-up lost on the way.

The row's lock is as it was: a pre hook waits before the operation takes
the lock, a post hook after it let the row go (the dependants wait, not the
resource). So an engine that dies while resources are paused leaves no lock
behind; the engine that takes over sends the paused nodes again
(recovery.py), and a node that finds its hook already pending waits there
in turn, with no new event, until the hook is cleared.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from hotplate.convergence.hooks import (
    HOOK_TYPES,
    WAIT_FAILED,
    cleared_reason,
    hook_for,
    paused_reason,
)
from hotplate.convergence.node_plan import stack_deadline
from hotplate.convergence.steps import Aborted, Outcome, Paused, TimedOut
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.runner import ActionTimeout
from hotplate.engine.worker.node_work import NodeWork
from hotplate.engine.worker.parking import WOKEN_RECHECKS_PER_SECOND, Parked
from hotplate.model.errors import CancelOperation, InvalidBreakPointHook
from hotplate.model.ids import ResourceId, StackId, TemplateId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action

LOG = logging.getLogger(__name__)

PENDING = "True"
HOOK_RECHECK = 30.0
"""Seconds between two looks at a paused hook: only a safety net, as clearing it
wakes the paused node at once."""

Then = Callable[[threading.Event], Outcome]
"""What a paused node does once its hook is cleared (given its worker's cancel flag)."""


def hook_wake_key(resource_id: ResourceId) -> str:
    """What clearing a hook of the resource wakes."""
    return f"hook:{resource_id}"


@dataclass(eq=False)
class ParkedHook(Parked):
    """A node paused at ``hook``; ``then`` goes on once the hook is cleared."""

    hook: str
    then: Then

    def cap(self, parked: int) -> float:
        return max(HOOK_RECHECK, parked / WOKEN_RECHECKS_PER_SECOND)  # clearing wakes it


class Breakpoints:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def hook_set(self, stack: StackRecord, template_id: TemplateId, name: str,
                 action: Action, stage: str) -> str | None:
        """The hook this action meets at ``stage`` if the environment sets it, else None."""
        hook = hook_for(stage, action, stack.action)
        if hook is None:
            return None
        env = self._deps.caches.template(template_id).env
        return hook if hook in env.hooks_for(name) else None

    def pause(self, work: NodeWork, row: ResourceRecord, action: Action, stage: str,
              cancelled: threading.Event, then: Then, *, pending_only: bool = False
              ) -> Outcome | None:
        """Pause here while the environment sets the ``stage`` hook on this action.

        None: no hook, the caller goes on. Else the node's outcome: Paused
        (parked until the hook is cleared; ``then`` runs after), or, in an
        engine that parks nothing, ``then``'s outcome after waiting here.
        ``pending_only``: pause only at a hook already pending (a node sent
        again, which must not pause anew).

        Raises:
            CancelOperation, ActionTimeout: only while waiting here (an engine
                that parks nothing); the hook is dropped first, with Heat's
                "Failure occurred while waiting."
        """
        hook = self.hook_set(work.stack, work.template_id, row.name, action, stage)
        if hook is None:
            return None
        since = self._deps.clock.now()
        if not self._pending(row.id, hook):
            if pending_only:
                return None
            reason = paused_reason(action, hook)
            event = resource_event(self._deps, row, row.action, row.status, reason)
            self._deps.store.set_resource_data(row.id, hook, PENDING, event=event)
        parked = self._deps.parked
        if parked is None:
            self._hold(work.stack, row, hook, cancelled)
            return then(cancelled)
        parked.park(ParkedHook(work, row, hook=hook, then=then,
                               wake_key=hook_wake_key(row.id), since=since),
                    asked=HOOK_RECHECK, cancelled=cancelled)
        return Paused()

    def resume(self, parked: ParkedHook, cancelled: threading.Event) -> Outcome:
        """Look at a paused node again: go on if its hook is cleared, else park it again.

        A cancel or the stack's deadline ends the wait as the thread that held
        it ended it: the hook dropped, "Failure occurred while waiting.".
        """
        try:
            self._deps.runner.checkpoint(parked.deadline(), cancelled)
        except CancelOperation as exc:
            self._give_up(parked.row, parked.hook)
            return Aborted(str(exc))
        except ActionTimeout:
            self._give_up(parked.row, parked.hook)
            return TimedOut()
        if self._pending(parked.row.id, parked.hook):
            assert self._deps.parked is not None
            self._deps.parked.park(parked, again=True, asked=HOOK_RECHECK,
                                   cancelled=cancelled)
            return Paused()
        return parked.then(cancelled)

    def _pending(self, resource_id: ResourceId, hook: str) -> bool:
        return self._deps.store.get_resource_data(resource_id).get(hook) == PENDING

    def _give_up(self, row: ResourceRecord, hook: str) -> None:
        event = resource_event(self._deps, row, row.action, row.status, WAIT_FAILED)
        self._deps.store.delete_resource_data(row.id, hook, event=event)

    def _hold(self, stack: StackRecord, row: ResourceRecord, hook: str,
              cancelled: threading.Event) -> None:
        """Wait in this thread until the hook is cleared (an engine that parks nothing)."""
        def cleared(_: object) -> bool:
            return not self._pending(row.id, hook)

        try:
            with self._deps.slots.released():
                self._deps.runner.run(None, cleared, deadline=stack_deadline(stack),
                                      cancelled=cancelled)
        except BaseException:
            self._give_up(row, hook)
            raise


def clear_hook(deps: EngineDeps, stack: StackRecord, row: ResourceRecord,
               hook: object) -> None:
    """The ``unset_hook`` signal: let a paused resource go on, woken at once.

    Raises:
        InvalidBreakPointHook: not a hook type, or no such hook is pending.
    """
    if not isinstance(hook, str) or hook not in HOOK_TYPES:
        raise InvalidBreakPointHook(
            f'Invalid hook type "{hook}" for {describe(deps, row, stack)}')
    reason = cleared_reason(hook)
    if not deps.store.delete_resource_data(
            row.id, hook, event=resource_event(deps, row, row.action, row.status, reason)):
        raise InvalidBreakPointHook(
            f'The "{hook}" hook is not defined on {describe(deps, row, stack)}')
    wake_paused(deps, row.id)


def wake_paused(deps: EngineDeps, resource_id: ResourceId) -> None:
    """Wake the node paused at a hook of the resource, wherever it is parked.

    A paused node holds no lock that would say which engine parked it, so
    every live engine is told (a hook is cleared by hand: a rare message);
    one that parked nothing under the key forgets it soon (parking.py).
    """
    key = hook_wake_key(resource_id)
    if deps.parked is not None:
        deps.parked.wake(key)
    now = deps.clock.now()
    for service in deps.store.list_services():
        last = service.updated_at or service.created_at
        if (service.engine_id == deps.engine_id
                or now - last > timedelta(seconds=2 * service.report_interval)):
            continue
        try:
            deps.worker_client.wake_parked(StackId(key), service.engine_id)
        except Exception:  # that engine is going: its takeover sends the node again
            LOG.debug("could not wake engine %s for %s", service.engine_id, key,
                      exc_info=True)


def describe(deps: EngineDeps, row: ResourceRecord, stack: StackRecord) -> str:
    """A resource as Heat's messages name it: plugin class, name, physical id, stack."""
    try:
        kind = deps.types.get(row.resource_type).__name__
    except Exception:  # a type no longer installed: its name still says what it was
        kind = row.resource_type
    physical = f" [{row.physical_resource_id}]" if row.physical_resource_id else ""
    return f'{kind} "{row.name}"{physical} Stack "{stack.name}" [{stack.id}]'
