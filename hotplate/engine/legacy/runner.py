"""One legacy stack operation's thread: it runs each node of the stack's traversals.

The runner claims its stack in the engine's routes (local_routes.py) before
the operation starts, so every node of every traversal then started for the
stack in this engine (the operation's, a rollback's) is put in its queue, as
is a parked action due again. The thread takes them one at a time and runs
``CheckResource.check`` on each (or a stack action's walk), so a resource
that waits (a cloud object building, a child stack) holds no thread and the
others go on meanwhile, as Heat's scheduler steps its tasks in turn.

It ends when the stack has left IN_PROGRESS for its traversals and none of
its actions is parked here any more (a node paused at a hook aside: it waits
for a signal, not for this thread); then the lock is released. Messages come
in the same queue: ``cancel`` (the operation stopped, FAILED with Heat's
legacy text "Operation cancelled"; rolled back instead when the stack's
rollback is enabled, as Heat's), ``cancel_with_rollback`` (rolled back) and
``stop`` (the listener's ``stop_stack``: the traversal stopped and the
resources' actions aborted).

``end`` (the engine stopping gracefully) is no message in turn: the thread
looks for it before each node, so it stops at the next safe point whatever
is queued, and leaves its stack to the engine (LegacyStacks.shut_down).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from hotplate.convergence import outcome
from hotplate.engine.deps import EngineDeps
from hotplate.engine.local_routes import NodeDue, WalkDue
from hotplate.engine.worker import stack_actions
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.breakpoints import ParkedHook
from hotplate.engine.worker.check_resource import CheckResource
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.model.ids import StackId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)

CANCEL = "cancel"
CANCEL_WITH_ROLLBACK = "cancel_with_rollback"
MESSAGES = (CANCEL, CANCEL_WITH_ROLLBACK)
"""Heat's thread messages (rpc/api.py THREAD_MESSAGES)."""
STOP = "stop"
ROLLBACK_ON_CANCEL = frozenset({Action.CREATE, Action.UPDATE})
"""What Heat's legacy engine rolls back after any cancel, unless disable_rollback."""
END = "end"
"""Wakes a thread told to ``end``; never run as a message."""

IDLE_CHECK = 1.0
"""Seconds the thread waits for work before it looks at the stack again (a change
made elsewhere: a timeout noticed, a delete's cancel)."""


class Runner:
    """The queue and thread of one legacy stack's operation on this engine."""

    def __init__(self, deps: EngineDeps, worker: WorkerService, stack_id: StackId, *,
                 holds: Callable[[], bool], close: Callable[[Runner], bool]) -> None:
        self._deps = deps
        self._worker = worker
        self._check = CheckResource(deps)
        self.stack_id = stack_id
        self._holds = holds
        """Whether this engine's lease still holds (engine/lease.py): a fenced engine
        writes nothing more, and leaves its lock to be stolen."""
        self._close = close
        """Ends the runner (releases the lock) unless something holds it open."""
        self._queue: queue.Queue[Any] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.done = threading.Event()
        self._ending = threading.Event()
        self.pins = 0
        """Operations starting on this runner now (their nodes are about to come)."""
        self.closed = False

    def put(self, item: NodeDue | WalkDue | str) -> None:
        self._queue.put(item)

    def end(self) -> None:
        """Stop before the next node, writing nothing more (the engine stops)."""
        self._ending.set()
        self._queue.put(END)  # wakes the thread if it waits for work

    @property
    def ending(self) -> bool:
        return self._ending.is_set()

    def idle(self) -> bool:
        return self._queue.empty()

    def drain(self) -> list[Any]:
        """What is queued, taken out (the runner ends: it goes elsewhere)."""
        items = []
        while True:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                return items

    # -- the thread --------------------------------------------------------------------
    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, daemon=True,
                                       name=f"hotplate-legacy-{self.stack_id[:8]}")
        self.thread.start()

    def run(self) -> None:
        """Run the operation to its end; the lock is then released (``close``)."""
        try:
            with self._deps.busy.stack(str(self.stack_id)):
                while True:
                    if not self._holds():  # fenced: write nothing more, keep the lock
                        LOG.error("stack %s: engine lease lost; legacy thread stops",
                                  self.stack_id)
                        return
                    try:
                        item = self._queue.get(timeout=IDLE_CHECK)
                    except queue.Empty:
                        item = None
                    if self.ending:  # the item stays undone: the stack is reset
                        LOG.info("stack %s: engine stopping; legacy thread ends",
                                 self.stack_id)
                        return
                    if item is not None:
                        self._one(item)
                    if self._queue.empty() and self._ends():
                        return
        finally:
            self.done.set()

    def _ends(self) -> bool:
        """The operation is over and the runner closed; a database away: not yet (the
        thread looks again after its next wait)."""
        try:
            return self.settled() and self._close(self)
        except Exception:
            LOG.warning("stack %s: legacy thread could not look at its stack; again soon",
                        self.stack_id, exc_info=True)
            return False

    def step(self) -> bool:
        """Run what is queued now, in the caller's thread (an engine driven by a test's
        scheduler); True if anything ran."""
        ran = False
        while not self.ending:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return ran
            with self._deps.busy.stack(str(self.stack_id)):
                self._one(item)
            ran = True
        return ran

    def _one(self, item: NodeDue | WalkDue | str) -> None:
        deps = self._deps
        try:
            with deps.slots.held():
                if isinstance(item, NodeDue):
                    self._check.check(item.resource_id, item.traversal_id, item.is_update,
                                      item.inputs)
                elif isinstance(item, WalkDue):
                    stack_actions.run(deps, item.stack_id, item.action, item.traversal_id)
                else:
                    self._message(item)
        except Exception:  # as a worker logs a failed cast: the stack's end decides
            LOG.exception("stack %s: legacy thread failed on %r", self.stack_id, item)

    def _message(self, message: str) -> None:
        """Heat's thread messages, carried out as the convergence engine's cancels are."""
        deps = self._deps
        stack = deps.store.get_stack(self.stack_id)
        if stack is None or stack.status is not Status.IN_PROGRESS:
            return
        if message == CANCEL_WITH_ROLLBACK:
            trav.rollback(deps, stack)
        elif message == CANCEL:
            self._cancel(stack)
        elif message == STOP:
            self._worker.stop_traversals(stack)
            deps.cancels.cancel(self.stack_id)
            if deps.parked is not None:
                deps.parked.cancel(str(self.stack_id))
        else:
            LOG.error("stack %s: unknown message %r", self.stack_id, message)

    def _cancel(self, stack: StackRecord) -> None:
        """Heat's ForcedCancel without rollback: the operation fails "Operation
        cancelled" (a create: as a resource's failure), then rolls back all the same
        if the stack's rollback is enabled, as Heat's legacy update and create do."""
        if not stack.disable_rollback and stack.action in ROLLBACK_ON_CANCEL:
            trav.rollback(self._deps, stack)
            return
        self._worker.stop_traversals(stack, outcome.legacy_cancelled_reason)

    def settled(self) -> bool:
        """The operation is over: the stack left IN_PROGRESS for this runner's traversals
        and none of their actions waits here."""
        deps = self._deps
        stack = deps.store.get_stack(self.stack_id)
        if (stack is not None and stack.status is Status.IN_PROGRESS
                and deps.routes.owns(self, stack.current_traversal)):
            return False
        return not self._waiting()

    def _waiting(self) -> bool:
        parked = self._deps.parked
        if parked is None:
            return False
        mine = self._deps.routes.traversals_of(self)
        return any(not isinstance(p, ParkedHook) for p in parked.of_traversals(mine))
