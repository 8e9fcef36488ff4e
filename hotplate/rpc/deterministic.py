"""A transport for scenario tests: nothing is delivered until the test says so.

``cast`` only queues the encoded message. The test then drives delivery with
``step`` / ``run_until_idle`` in its own thread, and can reorder (a seeded
choice among deliverable messages), duplicate (a re-delivery, as after a
broker reconnect), hold, release and drop messages. The same seed gives the
same interleaving, so a failure found by a random schedule replays exactly.

Calls run at once in the caller's thread: a caller waits for its answer in
Heat too, and nothing interesting hides in that wait. Everything still goes
through the codec both ways.

A handler's exception during ``step`` is kept in ``errors`` and, unless
``raise_errors=False``, re-raised from ``step``: in a scenario a failing
handler (or a refused method) is a bug to see, not a log line to miss.
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from hotplate.rpc import codec
from hotplate.rpc.dispatch import Counters, Routes, Served, outcome_keys
from hotplate.rpc.errors import MessagingTimeout
from hotplate.rpc.policy import AccessPolicy

LOG = logging.getLogger(__name__)


class Pending(NamedTuple):
    """A queued cast as tests see it; ``server`` is None for "any server of the topic"."""

    topic: str
    server: str | None
    method: str
    kwargs: dict[str, Any]


class Failure(NamedTuple):
    """A delivery whose handler raised (or was refused)."""

    message: Pending
    error: Exception


Predicate = Callable[[Pending], bool]


@dataclass
class _Queued:
    view: Pending
    data: str
    released: bool = False
    redelivery: bool = False


class DeterministicTransport:
    """ports.Transport driven step by step; see the module docstring."""

    def __init__(
        self, seed: int, *, duplicate_rate: float = 0.0, reorder: bool = True,
        raise_errors: bool = True,
    ) -> None:
        if not 0.0 <= duplicate_rate < 1.0:
            raise ValueError("duplicate_rate must be in [0, 1)")
        self._rng = random.Random(seed)
        self._duplicate_rate = duplicate_rate
        self._reorder = reorder
        self._raise_errors = raise_errors
        # Where each topic's rotation starts is part of the seeded schedule.
        self._routes: Routes[Served] = Routes(start=lambda _topic: self._rng.randrange(1 << 16))
        self._queue: list[_Queued] = []
        self._holds: list[Predicate] = []
        self._tally: Counter[str] = Counter()
        self._lock = threading.RLock()  # engine code may cast from its own threads
        self._stopped = False
        self.errors: list[Failure] = []

    # -- ports.Transport ---------------------------------------------------------
    def serve(self, topic: str, server: str, endpoint: Any, allowed: frozenset[str],
              *, gate: Any = None) -> None:
        """``gate`` is accepted for the Transport contract; delivery is one at a time anyway."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("transport is stopped")
            self._routes.add(topic, server, Served(topic, server, endpoint,
                                                   AccessPolicy(frozenset(allowed))))

    def unserve(self, topic: str, server: str) -> None:
        """Like an engine dying: its pending messages are dropped when their turn comes."""
        with self._lock:
            self._routes.remove(topic, server)

    def cast(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None,
    ) -> None:
        data = codec.encode(ctxt, method, kwargs)
        with self._lock:
            self._tally["cast"] += 1
            if not self._routes.has(topic, server):
                self._tally["dropped"] += 1
                LOG.warning("cast %s to %s/%s dropped: nobody serves it",
                            method, topic, server or "*")
                return
            view = Pending(topic, server, method, codec.decode(data).kwargs)
            self._queue.append(_Queued(view, data))

    def call(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None, timeout: float | None = None,
    ) -> Any:
        """Run now, in this thread; ``timeout`` is moot since nothing runs concurrently."""
        data = codec.encode(ctxt, method, kwargs)
        with self._lock:
            self._tally["called"] += 1
            found = self._routes.resolve(topic, server)
            if found is None:
                self._tally["dropped"] += 1
        if found is None:
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: nobody serves it")
        outcome, reply = found[1].answer(data)
        self._count(*outcome_keys(outcome))
        return codec.decode_reply(reply)

    def stop(self) -> None:
        """Unserve everything and drop what is queued; idempotent and final."""
        with self._lock:
            self._stopped = True
            self._tally["dropped"] += len(self._queue)
            self._queue.clear()
            self._routes = Routes()

    # -- driving -------------------------------------------------------------------
    def step(self) -> bool:
        """Deliver one deliverable message; False if there is none (held ones wait)."""
        with self._lock:
            # Without holds every message is deliverable: skip the scan (same choice).
            ready: range | list[int] = range(len(self._queue)) if not self._holds else [
                i for i, item in enumerate(self._queue) if not self._held(item)]
            if not ready:
                return False
            index = ready[self._rng.randrange(len(ready))] if self._reorder else ready[0]
            item = self._queue.pop(index)
            if (self._duplicate_rate and not item.redelivery
                    and self._rng.random() < self._duplicate_rate):
                self._queue.append(_Queued(item.view, item.data, redelivery=True))
                self._tally["duplicated"] += 1
            found = self._routes.resolve(item.view.topic, item.view.server)
            if found is None:
                self._tally["dropped"] += 1
        if found is None:
            LOG.warning("%s to %s/%s dropped: its server is gone",
                        item.view.method, item.view.topic, item.view.server or "*")
            return True
        outcome, error = found[1].consume(item.data)
        self._count(*outcome_keys(outcome))
        if error is not None:
            self.errors.append(Failure(item.view, error))
            if self._raise_errors:
                raise error
        return True

    def run_until_idle(self, max_steps: int = 100_000) -> int:
        """Step until nothing is deliverable; returns the steps taken.

        Raises RuntimeError after ``max_steps`` deliveries with more to go: a
        livelock (messages that keep causing messages) is a bug to report.
        """
        for taken in range(max_steps):
            if not self.step():
                return taken
        with self._lock:
            if any(not self._held(item) for item in self._queue):
                raise RuntimeError(f"not idle after {max_steps} steps; "
                                   f"{len(self._queue)} messages pending")
        return max_steps

    def hold(self, predicate: Predicate) -> None:
        """Keep matching messages (queued now or later) pending until released."""
        with self._lock:
            self._holds.append(predicate)

    def release(self, predicate: Predicate) -> None:
        """Let the queued messages matching ``predicate`` go; if it is a hold, lift it."""
        with self._lock:
            self._holds = [hold for hold in self._holds if hold is not predicate]
            for item in self._queue:
                if predicate(item.view):
                    item.released = True

    def release_all(self) -> None:
        with self._lock:
            self._holds.clear()

    def drop(self, predicate: Predicate) -> int:
        """Discard matching queued messages (a lost message); returns how many."""
        with self._lock:
            kept = [item for item in self._queue if not predicate(item.view)]
            dropped = len(self._queue) - len(kept)
            self._queue = kept
            self._tally["dropped"] += dropped
            return dropped

    def kill(self, servers: set[str], *, lost: float = 0.0) -> int:
        """An engine dies: ``servers`` (its engine id, its host) stop serving every
        topic, the messages sent to them are gone, and each message for any server
        is gone with chance ``lost`` (the dead engine had taken it off the queue).
        Locks it held stay in the database, as a killed process leaves them.
        Returns how many messages went."""
        if not 0.0 <= lost <= 1.0:
            raise ValueError("lost must be in [0, 1]")
        with self._lock:
            for topic, server, _ in self._routes.targets():
                if server in servers:
                    self._routes.remove(topic, server)
            kept: list[_Queued] = []
            for item in self._queue:
                mine = item.view.server in servers
                taken = item.view.server is None and lost and self._rng.random() < lost
                if not (mine or taken):
                    kept.append(item)
            gone = len(self._queue) - len(kept)
            self._queue = kept
            self._tally["dropped"] += gone
            return gone

    def pending(self) -> list[Pending]:
        """Queued messages, oldest first, held ones included."""
        with self._lock:
            return [item.view for item in self._queue]

    @property
    def counters(self) -> Counters:
        with self._lock:
            return Counters(**self._tally)

    def _held(self, item: _Queued) -> bool:
        return not item.released and any(hold(item.view) for hold in self._holds)

    def _count(self, *keys: str) -> None:
        with self._lock:
            self._tally.update(keys)
