"""Resource actions that wait on something else without holding a worker thread.

A nested stack resource's action waits for its child stack. Polling from a
worker thread would tie up one thread per waiting resource, so a group
wider than the worker pool would starve its own members of threads. Such
an action is *parked* instead: the row stays IN_PROGRESS and locked by this
engine, the plugin's state stays in memory, and the worker returns. The
action is re-driven (a ``check_resource`` cast to this engine, which finds
the parked action and resumes it) when the child stack ends, when a cancel
arrives, and otherwise on a back-off (10 ms, doubling, to 5 s) that also
bounds how late a missed wake-up or the stack's deadline is noticed.

A parked action lives only in this engine's memory. If the engine dies,
its rows stay locked by a dead engine, exactly as for an action that was
running in a thread, and the next traversal takes them over the same way.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hotplate.convergence.steps import Outcome
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.worker.node_work import NodeWork, Reporter
from hotplate.model.ids import ResourceId, TraversalId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action
from hotplate.resources.base import Resource

LOG = logging.getLogger(__name__)

FIRST_DELAY = 0.01
MAX_DELAY = 5.0
REDRIVE_RETRY = 30.0
"""A re-driven action not taken within this long (its message lost) is re-driven again."""

NodeKey = tuple[ResourceId, TraversalId, bool]


@dataclass(eq=False)
class ParkedAction:
    """One plugin action between two checks, with what completes it."""

    work: NodeWork
    row: ResourceRecord
    action: Action
    instance: Resource
    ctx: EngineResourceContext
    check: Callable[[Any], bool]
    data: Any
    finish: Callable[[threading.Event, Reporter], Outcome]
    """Record the action COMPLETE and report onward (the rest of the operation)."""
    wake_key: str | None = None
    """The child stack whose end should re-drive this action at once."""
    cancelled: bool = False
    delay: float = FIRST_DELAY
    due: float = field(default=0.0)

    @property
    def key(self) -> NodeKey:
        return (self.row.id, self.work.traversal_id, self.work.is_update)


class ParkedActions:
    """This engine's parked actions and the one thread that re-drives them.

    Due times sit in a heap (an entry whose action was re-parked, taken or woken
    since is skipped when it comes up), and actions are indexed by what wakes
    them, so a thousand parked members cost a log each, not a scan each.
    """

    def __init__(self, redrive: Callable[[ParkedAction], None]) -> None:
        self._redrive = redrive
        self._lock = threading.Condition()
        self._parked: dict[NodeKey, ParkedAction] = {}
        self._by_wake: dict[str, set[NodeKey]] = {}
        self._heap: list[tuple[float, int, NodeKey]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def park(self, parked: ParkedAction, *, again: bool = False,
             hint: float | None = None) -> None:
        """Keep ``parked`` until it is re-driven; ``again``: it was just checked, back off.

        ``hint``: the plugin knows when checking again is worth it (a pause between
        batches ends then), which wins over a longer back-off.
        """
        if again:
            parked.delay = min(parked.delay * 2, MAX_DELAY)
        wait = parked.delay if hint is None else min(parked.delay, max(hint, 0.0))
        with self._lock:
            self._parked[parked.key] = parked
            if parked.wake_key is not None:
                self._by_wake.setdefault(parked.wake_key, set()).add(parked.key)
            self._schedule(parked, time.monotonic() + wait)
            self._ensure_thread()

    def take(self, resource_id: ResourceId, traversal_id: TraversalId, is_update: bool
             ) -> ParkedAction | None:
        """The parked action of this node, removed: whoever takes it resumes it."""
        with self._lock:
            parked = self._parked.pop((resource_id, traversal_id, is_update), None)
            if parked is not None and parked.wake_key is not None:
                waiting = self._by_wake.get(parked.wake_key)
                if waiting is not None:
                    waiting.discard(parked.key)
                    if not waiting:
                        del self._by_wake[parked.wake_key]
            return parked

    def wake(self, wake_key: str) -> bool:
        """Re-drive at once whatever waits on ``wake_key`` (a child stack id); its
        back-off starts again, as what it waits for next is a new wait."""
        with self._lock:
            found = [self._parked[k] for k in self._by_wake.get(wake_key, ())
                     if k in self._parked]
            for parked in found:
                parked.delay = FIRST_DELAY
                self._schedule(parked, 0.0)
            return bool(found)

    def cancel(self, stack_id: str) -> int:
        """Cancel the parked actions of ``stack_id``; they fail as their resume starts."""
        with self._lock:
            found = [p for p in self._parked.values() if str(p.work.stack.id) == stack_id]
            for parked in found:
                parked.cancelled = True
                self._schedule(parked, 0.0)
            return len(found)

    def __len__(self) -> int:
        with self._lock:
            return len(self._parked)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._lock.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # -- the re-driving thread -------------------------------------------------------
    def _schedule(self, parked: ParkedAction, due: float) -> None:
        """Set when ``parked`` is next re-driven (the lock is held)."""
        parked.due = due
        heapq.heappush(self._heap, (due, next(self._order), parked.key))
        self._lock.notify()

    def _ensure_thread(self) -> None:
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._loop, name="hotplate-parked",
                                            daemon=True)
            self._thread.start()

    def _due_now(self) -> list[ParkedAction] | float | None:
        """The actions due now; else when the next one is (None: nothing parked)."""
        now = time.monotonic()
        due: dict[NodeKey, ParkedAction] = {}
        while self._heap and self._heap[0][0] <= now:
            when, _, key = heapq.heappop(self._heap)
            parked = self._parked.get(key)
            if parked is None or parked.due != when:
                continue  # taken, or rescheduled since: a stale entry
            due[key] = parked
        if due:
            for parked in due.values():  # re-driven again only if its message is lost
                self._schedule(parked, now + REDRIVE_RETRY)
            return list(due.values())
        return self._heap[0][0] - now if self._heap else None

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._stopped:
                    return
                found = self._due_now()
                if not isinstance(found, list):
                    self._lock.wait(found)
                    continue
            for parked in found:
                try:
                    self._redrive(parked)
                except Exception:  # a transport that is stopping: the retry comes later
                    LOG.exception("could not re-drive resource %s", parked.row.id)
