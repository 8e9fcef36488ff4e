"""Resource actions waiting between two checks, without holding a worker thread.

Every plugin action that its first check does not find done is *parked*: the
row stays IN_PROGRESS and locked by this engine, the plugin's state stays in
memory, and the worker returns. So are the other waits of a node or a stack
action (each a kind of ``Parked``)::

    Parked
    ├── ParkedAction   a plugin's create/update/delete/adopt between checks (here)
    ├── ParkedHook     a node paused at a breakpoint hook (breakpoints.py)
    └── ParkedWalk     a suspend/resume/check walk between two checks of one
                       resource (stack_actions.py)
 So a thousand cloud objects building, or a
group far wider than the worker pool whose members wait on their own child
stacks, hold no thread. The action is re-driven (a ``check_resource`` cast to
this engine, which finds the parked action and checks it again) when it is due:

    what                                   next check
    -------------------------------------  ------------------------------------
    check answered False                   the back-off: 10 ms, doubling, to 1 s
                                           (Heat asks every second); with more
                                           than 250 actions parked, to one
                                           250th of a second per action
    ... and the action has a ``wake_key``  the same back-off, to 5 s: what it
                                           waits on wakes it (a child stack's
                                           end, a signal); the back-off is only
                                           a safety net; with more than 125
                                           parked, to one 25th of a second per
                                           action
    check answered CheckAgain(after=N)     in N seconds, as the plugin asked
    the plugin's ``next_check_after``      no later than that
    the stack's deadline                   no later than that (it then fails
                                           ``Timed out``); a walk has none
    a hook                                 its safety net only (``HOOK_RECHECK``):
                                           the signal that clears it wakes it
    a wake-up, a cancel                    at once

Due times are read on the engine's clock. With a real clock one thread
re-drives what is due; a test with a fake clock runs without it and re-drives
what is due itself (``next_due`` / ``redrive_due``) after moving its clock.

A parked action lives only in this engine's memory. If the engine dies, its
rows stay locked by a dead engine, exactly as for an action that was running
in a thread, and the next traversal (or recovery) takes them over the same way.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Callable, Collection
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hotplate.convergence.node_plan import stack_deadline
from hotplate.convergence.steps import Outcome
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.worker.node_work import NodeWork, Reporter
from hotplate.model.ids import ResourceId, TraversalId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action
from hotplate.ports import Clock
from hotplate.resources.base import CheckResult, Resource

LOG = logging.getLogger(__name__)

FIRST_DELAY = 0.01
MAX_DELAY = 1.0
"""The back-off's cap for an action only the back-off re-checks (Heat: every second)."""
MAX_DELAY_WOKEN = 5.0
"""The back-off's cap for an action something wakes when it is worth checking."""
RECHECKS_PER_SECOND = 250.0
"""About how many parked actions an engine re-checks a second on the back-off: past
that many parked, the cap grows with their number (a thousand waiting: each every
4 s), so that polling does not take the whole worker pool for ever."""
WOKEN_RECHECKS_PER_SECOND = 25.0
"""The same for actions that something wakes, whose back-off is only a safety net: a
group of 500 members waiting on their stacks costs 25 checks a second, not 100."""
LONGEST_WAIT = 86400.0
"""A plugin's ``CheckAgain`` is honoured up to a day (the stack's deadline comes first)."""
REDRIVE_RETRY = 30.0
"""A re-driven action not taken within this long (its message lost) is re-driven again."""
MISSED_WAKES_KEPT = 256
"""Wake-ups of actions being checked are kept a while (see ``since``); past this many,
those older than ``REDRIVE_RETRY`` are forgotten."""

NodeKey = tuple[ResourceId, TraversalId, bool]


def next_wait(delay: float, *, asked: float | None, latest: float | None) -> float:
    """Seconds until the next check: the plugin's ask, else the back-off's ``delay``,
    but no later than ``latest`` (the plugin's ``next_check_after``). An ask for
    no wait at all is the back-off's first step: a check is not a busy loop."""
    wait = delay if asked is None else max(asked, FIRST_DELAY)
    if latest is not None:
        wait = min(wait, latest)
    return min(max(wait, 0.0), LONGEST_WAIT)


@dataclass(eq=False)
class Parked:
    """A wait of one node (or of a stack action at one resource) between two checks;
    whoever ``take``s it from ``ParkedActions`` resumes it."""

    work: NodeWork
    row: ResourceRecord
    _: KW_ONLY
    wake_key: str | None = None
    """What should re-drive this action at once when it ends (a child stack's id)."""
    cancelled: bool = False
    delay: float = FIRST_DELAY
    due: datetime | None = field(default=None)
    since: datetime | None = None
    """When the check that is parking it began: a wake-up from then on may have
    come after the check looked, so the next check comes at once."""

    @property
    def key(self) -> NodeKey:
        return (self.row.id, self.work.traversal_id, self.work.is_update)

    def cap(self, parked: int) -> float:
        """The back-off's cap with ``parked`` actions parked in all."""
        if self.wake_key is not None:
            return max(MAX_DELAY_WOKEN, parked / WOKEN_RECHECKS_PER_SECOND)
        return max(MAX_DELAY, parked / RECHECKS_PER_SECOND)

    def deadline(self) -> datetime | None:
        """When the wait must end (it is then re-driven, to fail): the stack's."""
        return stack_deadline(self.work.stack)


@dataclass(eq=False)
class ParkedAction(Parked):
    """One plugin action between two checks, with what completes it."""

    action: Action
    instance: Resource
    ctx: EngineResourceContext
    check: Callable[[Any], CheckResult]
    data: Any
    finish: Callable[[threading.Event, Reporter], Outcome]
    """Record the action COMPLETE and report onward (the rest of the operation)."""


class ParkedActions:
    """This engine's parked actions and what re-drives them when due.

    Due times sit in a heap (an entry whose action was re-parked, taken or woken
    since is skipped when it comes up), and actions are indexed by what wakes
    them, so a thousand parked actions cost a log each, not a scan each.
    ``threaded`` (the default): a thread re-drives them as the clock reaches
    their time; else the owner calls ``redrive_due`` (a test's fake clock).
    """

    def __init__(self, redrive: Callable[[Parked], None], clock: Clock, *,
                 threaded: bool = True) -> None:
        self._redrive = redrive
        self._clock = clock
        self._threaded = threaded
        self._lock = threading.Condition()
        self._parked: dict[NodeKey, Parked] = {}
        self._by_wake: dict[str, set[NodeKey]] = {}
        self._missed: dict[str, datetime] = {}
        """Wake-ups that found nothing parked under their key, and when."""
        self._heap: list[tuple[datetime, int, NodeKey]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._keep: Callable[[Parked], bool] | None = None
        """Set as the engine stops: only what it says yes to is re-driven any more."""

    def park(self, parked: Parked, *, again: bool = False,
             asked: float | None = None, latest: float | None = None,
             cancelled: threading.Event | None = None) -> None:
        """Keep ``parked`` until it is re-driven; ``again``: it was just checked.

        ``asked``: the plugin's ``CheckAgain(after)``, which replaces the back-off
        for this wait (and leaves it where it was); ``latest``: its
        ``next_check_after``. The stack's deadline bounds the wait in any case,
        and a wake-up that came while it was being checked ends it at once.
        ``cancelled``: the cancel flag of the worker parking it. A cancel sets
        such flags before it looks for parked actions, so one read here, under
        the lock ``cancel`` takes, misses no cancel.
        """
        if again and asked is None:  # the count is read unlocked: a hint
            parked.delay = min(parked.delay * 2, parked.cap(len(self._parked)))
        now = self._clock.now()
        due = now + timedelta(seconds=next_wait(parked.delay, asked=asked, latest=latest))
        deadline = parked.deadline()
        if deadline is not None and due > deadline:
            due = max(deadline, now)
        with self._lock:
            if cancelled is not None and cancelled.is_set():
                parked.cancelled, due = True, now
            if parked.wake_key is not None:
                missed = self._missed.pop(parked.wake_key, None)
                if missed is not None and (parked.since is None or missed >= parked.since):
                    parked.delay, due = FIRST_DELAY, now
                self._by_wake.setdefault(parked.wake_key, set()).add(parked.key)
            self._parked[parked.key] = parked
            self._schedule(parked, due)
            self._ensure_thread()

    def take(self, resource_id: ResourceId, traversal_id: TraversalId, is_update: bool
             ) -> Parked | None:
        """The parked action of this node, removed: whoever takes it resumes it."""
        with self._lock:
            parked = self._parked.pop((resource_id, traversal_id, is_update), None)
            if parked is not None:
                parked.since = self._clock.now()
            if parked is not None and parked.wake_key is not None:
                waiting = self._by_wake.get(parked.wake_key)
                if waiting is not None:
                    waiting.discard(parked.key)
                    if not waiting:
                        del self._by_wake[parked.wake_key]
            return parked

    def wake(self, wake_key: str) -> bool:
        """Re-drive at once whatever waits on ``wake_key`` (a child stack id); its
        back-off starts again, as what it waits for next is a new wait. Found
        nowhere, the wake-up is kept for an action being checked that parks next."""
        with self._lock:
            found = [self._parked[k] for k in self._by_wake.get(wake_key, ())
                     if k in self._parked]
            now = self._clock.now()
            for parked in found:
                parked.delay = FIRST_DELAY
                self._schedule(parked, now)
            if not found:
                self._keep_missed(wake_key, now)
            return bool(found)

    def _keep_missed(self, wake_key: str, now: datetime) -> None:
        """Remember a wake-up nobody was parked for (the lock is held), a while."""
        self._missed[wake_key] = now
        if len(self._missed) > MISSED_WAKES_KEPT:
            old = now - timedelta(seconds=REDRIVE_RETRY)
            self._missed = {k: t for k, t in self._missed.items() if t >= old}

    def cancel(self, stack_id: str) -> int:
        """Cancel the parked actions of ``stack_id``; they fail as their resume starts."""
        with self._lock:
            found = [p for p in self._parked.values() if str(p.work.stack.id) == stack_id]
            now = self._clock.now()
            for parked in found:
                parked.cancelled = True
                self._schedule(parked, now)
            return len(found)

    def __len__(self) -> int:
        with self._lock:
            return len(self._parked)

    def of_traversals(self, traversals: Collection[TraversalId]) -> list[Parked]:
        """The actions of ``traversals`` parked here now."""
        with self._lock:
            return [p for p in self._parked.values() if p.work.traversal_id in traversals]

    def resource_ids(self) -> frozenset[int]:
        """The rows whose actions are parked here now."""
        with self._lock:
            return frozenset(int(key[0]) for key in self._parked)

    def keep_only(self, keep: Callable[[Parked], bool]) -> None:
        """Re-drive only the actions ``keep`` says yes to (a stopping engine's legacy
        threads go on for their grace period; the rest is handed over)."""
        with self._lock:
            self._keep = keep

    def stop(self) -> None:
        """Re-drive nothing more (the engine stops: its rows are handed over)."""
        with self._lock:
            self._stopped = True
            self._lock.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # -- re-driving ------------------------------------------------------------------
    def next_due(self) -> datetime | None:
        """When the next parked action is due (None: nothing parked, or stopped)."""
        with self._lock:
            if self._stopped:
                return None
            self._drop_stale()
            return self._heap[0][0] if self._heap else None

    def redrive_due(self) -> int:
        """Re-drive, in this thread, what is due by the clock; how many (see ``threaded``)."""
        with self._lock:
            if self._stopped:
                return 0
            found = self._due_now()
        self._redrive_all(found)
        return len(found)

    def _schedule(self, parked: Parked, due: datetime) -> None:
        """Set when ``parked`` is next re-driven (the lock is held)."""
        parked.due = due
        heapq.heappush(self._heap, (due, next(self._order), parked.key))
        self._lock.notify()

    def _drop_stale(self) -> None:
        """Pop heap entries of actions taken or rescheduled since (the lock is held)."""
        while self._heap:
            when, _, key = self._heap[0]
            parked = self._parked.get(key)
            if parked is not None and parked.due == when:
                return
            heapq.heappop(self._heap)

    def _due_now(self) -> list[Parked]:
        """The actions due now, each rescheduled in case its message is lost."""
        now = self._clock.now()
        due: dict[NodeKey, Parked] = {}
        self._drop_stale()
        while self._heap and self._heap[0][0] <= now:
            _, _, key = heapq.heappop(self._heap)
            due[key] = self._parked[key]
            self._drop_stale()
        retry = now + timedelta(seconds=REDRIVE_RETRY)
        for parked in due.values():  # re-driven again only if its message is lost
            self._schedule(parked, retry)
        return list(due.values())

    def _redrive_all(self, found: list[Parked]) -> None:
        keep = self._keep
        for parked in found:
            if keep is not None and not keep(parked):
                continue
            try:
                self._redrive(parked)
            except Exception:  # a transport that is stopping: the retry comes later
                LOG.exception("could not re-drive resource %s", parked.row.id)

    def _ensure_thread(self) -> None:
        if self._threaded and self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._loop, name="hotplate-parked",
                                            daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._stopped:
                    return
                found = self._due_now()
                if not found:
                    self._drop_stale()
                    wait = ((self._heap[0][0] - self._clock.now()).total_seconds()
                            if self._heap else None)
                    self._lock.wait(wait)
                    continue
            self._redrive_all(found)
