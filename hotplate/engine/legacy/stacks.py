"""LegacyStacks: this engine's legacy stack threads, and what callers ask of them.

The engine topic runs each operation of a legacy stack through ``run_on``
(Heat's ThreadGroupManager.start_with_lock): the lock is taken first, the
operation starts in the caller's thread (so its errors reach the caller, and
a 409 for a busy stack is Heat's), then one thread of this engine runs it to
its end and releases the lock. A release that finds the lock gone (stolen:
this engine was taken for dead) ends the engine, as Heat's ``sys.exit``.

The listener's ``stop_stack`` and ``send`` reach the thread here; a delete or
a cancel of a stack whose thread runs on another engine sends them there.

A graceful stop (``shut_down``) waits for the threads, as Heat's
EngineService.stop does; one still running at the end of the grace period
stops at its next node, and its stack is reset here as a dead engine's would
be (reset.py), its lock released: nobody waits for this engine's lease.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar, cast

from hotplate.engine.deps import EngineDeps
from hotplate.engine.legacy import reset
from hotplate.engine.legacy.locking import take_lock
from hotplate.engine.legacy.runner import CANCEL, CANCEL_WITH_ROLLBACK, MESSAGES, STOP, Runner
from hotplate.engine.local_routes import NodeDue, WalkDue
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.model.errors import EventSendFailed
from hotplate.model.ids import StackId
from hotplate.model.records import StackRecord
from hotplate.model.states import Status
from hotplate.rpc.errors import MessagingTimeout
from hotplate.rpc.topics import LISTENER_TOPIC

LOG = logging.getLogger(__name__)

T = TypeVar("T")

STOP_WAIT = 25.0
"""Seconds ``stop`` waits for the thread to end (within the caller's STOP_STACK_TIMEOUT)."""
END_WAIT = 2.0
"""Seconds a stopping engine gives a thread told to ``end`` to reach its next node; one
still in a plugin's call then has its writes refused (its locks taken by the reset)."""


def exit_engine(reason: str) -> None:
    """The engine ends at once (Heat: ``sys.exit(-1)`` when a stack lock release fails)."""
    LOG.critical("FATAL. %s. Exiting", reason)
    os._exit(1)


def run_on(deps: EngineDeps, stack: StackRecord, start: Callable[[], T], *,
           preempt: bool = False) -> T:
    """``start()`` the operation: as it is for a convergence stack, in a thread of this
    engine holding the lock for a legacy one (``LegacyStacks.run``)."""
    if stack.convergence or deps.legacy is None:
        return start()
    return cast(LegacyStacks, deps.legacy).run(stack, start, preempt=preempt)


def cancelled_on(deps: EngineDeps, stack: StackRecord, *, with_rollback: bool) -> bool:
    """Cancel a legacy stack's update through its thread (``LegacyStacks.cancel``); False
    for a convergence stack, which the caller cancels itself."""
    if stack.convergence or deps.legacy is None:
        return False
    cast(LegacyStacks, deps.legacy).cancel(stack, with_rollback=with_rollback)
    return True


class LegacyStacks:
    """The legacy threads of one engine. ``threaded`` false: nothing runs by itself,
    ``run_pending`` runs what is queued (an engine driven by a test's scheduler)."""

    def __init__(self, deps: EngineDeps, worker: WorkerService, *,
                 threaded: bool = True) -> None:
        self._deps = deps
        self._worker = worker
        self.threaded = threaded
        self.holds: Callable[[], bool] = lambda: True
        """Whether the engine's lease holds (app.py sets it): a fenced engine's threads
        write nothing more and leave their locks to be stolen."""
        self.exit: Callable[[str], None] = exit_engine
        self._lock = threading.Lock()
        self._runners: dict[StackId, Runner] = {}
        self._starting: set[StackId] = set()
        """Stacks whose lock this engine is taking now, their thread not yet made."""

    # -- operations --------------------------------------------------------------------
    def run(self, stack: StackRecord, start: Callable[[], T], *, preempt: bool = False) -> T:
        """Take the lock, ``start()`` here, then run the operation in its thread.

        ``preempt`` (a delete): a live holder's thread is stopped first; this engine's
        own thread goes on with the new operation's traversal instead.

        Raises:
            ActionInProgress: another operation of the stack runs (Heat's 409).
        """
        deps = self._deps
        with self._lock:
            mine = self._runners.get(stack.id)
            if preempt and mine is not None and not mine.closed:
                mine.pins += 1
            else:
                mine = None
        if mine is not None:
            try:
                return start()
            finally:
                with self._lock:
                    mine.pins -= 1
        with self._lock:
            self._starting.add(stack.id)
        try:
            take_lock(deps, stack, running_here=lambda: self._has_runner(stack.id),
                      stop_here=lambda: self.stop(stack.id), preempt=preempt)
            runner = Runner(deps, self._worker, stack.id, holds=lambda: self.holds(),
                            close=self._close)
            runner.pins = 1
            with self._lock:
                self._runners[stack.id] = runner
        finally:
            with self._lock:
                self._starting.discard(stack.id)
        deps.routes.claim(stack.id, runner)
        try:
            return start()
        finally:
            with self._lock:
                runner.pins -= 1
            if self.threaded:
                runner.start()

    def running_here(self, stack_id: StackId) -> bool:
        """Whether this engine works on the stack: its thread runs, or its lock is
        being taken here (a reset must not take it from under the new operation)."""
        with self._lock:
            return stack_id in self._starting or self._has_runner_locked(stack_id)

    def _has_runner(self, stack_id: StackId) -> bool:
        with self._lock:
            return self._has_runner_locked(stack_id)

    def _has_runner_locked(self, stack_id: StackId) -> bool:
        runner = self._runners.get(stack_id)
        return runner is not None and not runner.closed

    def run_pending(self) -> bool:
        """Run what the threads have queued, in the caller's thread (``threaded`` false);
        True if anything ran."""
        ran = False
        if not self.holds():  # fenced: nothing more is written
            return ran
        for runner in list(self._runners.values()):
            ran = runner.step() or ran
            if runner.settled():
                self._close(runner)
        return ran

    def _close(self, runner: Runner) -> bool:
        """End ``runner`` if nothing holds it open; False to keep it running. The lock
        is released last: until then the stack is this engine's."""
        deps = self._deps
        with self._lock:
            if runner.closed:
                return True
            if runner.pins or not runner.idle():
                return False
            # Released first: if the database is away, nothing has changed yet.
            released = deps.store.release_stack_lock(runner.stack_id, deps.engine_id)
            runner.closed = True
            deps.routes.drop(runner.stack_id, runner)
            leftover = runner.drain()
            if self._runners.get(runner.stack_id) is runner:
                del self._runners[runner.stack_id]
        for item in leftover:  # came in as it ended: to the workers, as any node
            self._hand_on(item)
        if not released:
            self.exit(f"Failed stack_lock release of stack {runner.stack_id}: held by "
                      "another engine now")
        return True

    def _hand_on(self, item: object) -> None:
        deps = self._deps
        if isinstance(item, NodeDue):
            deps.cast_check_resource(item.resource_id, item.traversal_id, item.is_update,
                                     inputs=item.inputs)
        elif isinstance(item, WalkDue):
            deps.cast_stack_action(item.stack_id, item.action, item.traversal_id)

    # -- the listener topic ------------------------------------------------------------
    def stop(self, stack_id: StackId) -> bool:
        """Stop this engine's thread for the stack: its traversal stopped, the actions
        running aborted, the lock released. True once it ended (or there was none)."""
        with self._lock:
            runner = self._runners.get(stack_id)
        if runner is None or runner.closed:
            return True
        runner.put(STOP)
        if not self.threaded:  # the caller's thread runs it, re-driving what it cancelled
            parked = self._deps.parked
            while self.run_pending() or (parked is not None and parked.redrive_due()):
                pass
            return runner.closed
        return runner.done.wait(STOP_WAIT)

    def send(self, stack_id: StackId, message: str) -> bool:
        """Deliver ``cancel`` or ``cancel_with_rollback`` to the stack's thread here."""
        if message not in MESSAGES:
            raise ValueError(f"not a thread message: {message!r}")
        with self._lock:
            runner = self._runners.get(stack_id)
        if runner is None or runner.closed:
            return False
        runner.put(message)
        return True

    # -- the engine topic's cancel -------------------------------------------------------
    def cancel(self, stack: StackRecord, *, with_rollback: bool) -> None:
        """Heat's stack_cancel_update of a legacy stack: the message goes to the thread
        of whichever engine holds the lock.

        Raises:
            EventSendFailed: that engine lives but did not take the message.
        """
        deps = self._deps
        holder = deps.store.stack_lock_holder(stack.id)
        message = CANCEL_WITH_ROLLBACK if with_rollback else CANCEL
        if holder is None:
            LOG.debug("stack %s: no lock, nothing to cancel", stack.id)
        elif holder == deps.engine_id:
            self.send(stack.id, message)
        elif deps.is_engine_alive(holder):
            try:
                with deps.slots.released():
                    deps.transport.call({}, LISTENER_TOPIC, "send",
                                        {"stack_identity": {"stack_id": str(stack.id)},
                                         "message": message},
                                        server=holder,
                                        timeout=deps.engine_life_check_timeout)
            except MessagingTimeout:
                raise EventSendFailed(stack.name, holder) from None
        else:
            LOG.warning("cannot cancel stack %s: lock held by unknown engine %s",
                        stack.name, holder)

    # -- a graceful stop -----------------------------------------------------------------
    def shut_down(self, grace: float) -> int:
        """Let this engine's operations end within ``grace`` seconds, then stop the rest:
        each stack still IN_PROGRESS reset ``<ACTION>_FAILED`` "Engine went down during
        stack <ACTION>" (the previous template back after an update) and its lock
        released. A fenced engine writes nothing (its locks are others' to steal).
        Returns how many stacks were reset."""
        deadline = time.monotonic() + grace
        for runner in self._live():
            if self.threaded:
                runner.done.wait(max(0.0, deadline - time.monotonic()))
        if not self.holds():
            return 0
        ended = 0
        for runner in self._live():
            try:
                ended += self._end(runner)
            except Exception:  # its lock stays: reset once this engine's lease is gone
                LOG.exception("stack %s: legacy stop at shutdown failed", runner.stack_id)
        return ended

    def _live(self) -> list[Runner]:
        with self._lock:
            return [r for r in self._runners.values() if not r.closed]

    def _end(self, runner: Runner) -> bool:
        """Stop ``runner`` at its next node, reset its stack and let its lock go; False
        if it ended by itself meanwhile."""
        deps = self._deps
        runner.end()
        if self.threaded and runner.thread is not None and not runner.done.wait(END_WAIT):
            LOG.warning("stack %s: legacy thread still busy; reset under it",
                        runner.stack_id)
        with self._lock:
            if runner.closed:  # it released the lock itself: its operation is over
                return False
            runner.closed = True
        stack = deps.store.get_stack(runner.stack_id)
        done = False
        if stack is not None and stack.status is Status.IN_PROGRESS and not stack.convergence:
            LOG.warning("stack %s: engine %s stopping during %s; resetting it", stack.id,
                        deps.engine_id, stack.action)
            done = reset.reset_stack(deps, stack)
        elif stack is not None:  # over, but an action still waited here (after a cancel)
            reset.fail_rows_in_progress(deps, stack, reset.went_down_reason(stack.action))
        self._forget_parked(runner)
        with self._lock:
            deps.routes.drop(runner.stack_id, runner)
            runner.drain()  # nodes of the traversal just ended: nobody runs them
            if self._runners.get(runner.stack_id) is runner:
                del self._runners[runner.stack_id]
        if not deps.store.release_stack_lock(runner.stack_id, deps.engine_id):
            LOG.warning("stack %s: lock gone before its release at stop", runner.stack_id)
        return done

    def _forget_parked(self, runner: Runner) -> None:
        """Drop what ``runner``'s traversals left parked here: re-driven, it would only
        find its traversal over and its row lock gone."""
        parked = self._deps.parked
        if parked is None:
            return
        for waiting in parked.of_traversals(self._deps.routes.traversals_of(runner)):
            parked.take(*waiting.key)

    # -- recovery ----------------------------------------------------------------------
    def reset_stale(self) -> int:
        """Reset the legacy stacks whose lock holder died (reset.py)."""
        return reset.reset_stale(self._deps, self.running_here)


__all__ = ["STOP", "LegacyStacks", "cancelled_on", "exit_engine", "run_on"]
