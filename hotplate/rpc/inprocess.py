"""The embedded engine's transport: a bounded thread pool per served (topic, server).

Messages cross it as JSON text exactly as they would cross RabbitMQ: the
sender encodes (and learns at once about a value JSON cannot carry), the
pool thread decodes, so an endpoint never shares an object with its caller.
A call's result comes back as the copy its check read from that text
(codec.result_as_read): what the reply would give, read once, not twice.
A cast to a server nobody serves is dropped with a warning, as a message to
a dead engine would be; a call to one raises MessagingTimeout at once, since
no answer can ever come.

Each pool is sized at construction and never grows, so load shows up as
queued messages rather than as threads. ``join`` waits for quiescence (no
message queued or running anywhere), which is what tests and benchmarks mean
by "the traversal has settled".
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from hotplate.rpc import codec
from hotplate.rpc.dispatch import Counters, Outcome, Routes, Served, outcome_keys
from hotplate.rpc.errors import MessagingTimeout
from hotplate.rpc.gated_pool import Gate, GatedPool
from hotplate.rpc.policy import AccessPolicy

LOG = logging.getLogger(__name__)

T = TypeVar("T")

_CURRENT = threading.local()
"""Which pool the current thread belongs to, so a pool never waits for itself."""


Pool = ThreadPoolExecutor | GatedPool


@dataclass(frozen=True)
class _Server:
    served: Served
    pool: Pool


class InProcessTransport:
    """ports.Transport within one process; see the module docstring."""

    def __init__(self, workers_per_server: int = 16, *, call_timeout: float = 60.0) -> None:
        """``call_timeout`` applies when a call gives none (oslo's rpc_response_timeout)."""
        if workers_per_server < 1:
            raise ValueError("workers_per_server must be at least 1")
        self._workers = workers_per_server
        self._call_timeout = call_timeout
        self._lock = threading.Lock()
        self._quiet = threading.Condition(self._lock)
        self._routes: Routes[_Server] = Routes()
        self._tally: Counter[str] = Counter()
        self._outstanding = 0
        self._numbers: dict[str, Iterator[int]] = {}
        self._stopped = False

    # -- serving ---------------------------------------------------------------
    def serve(self, topic: str, server: str, endpoint: Any, allowed: frozenset[str],
              *, gate: Gate | None = None) -> None:
        """Serve (topic, server); with ``gate``, its threads work only while holding it."""
        served = Served(topic, server, endpoint, AccessPolicy(frozenset(allowed)))
        with self._lock:
            if self._stopped:
                raise RuntimeError("transport is stopped")
            numbers = self._numbers.setdefault(topic, itertools.count())
            initargs = (f"hotplate-{topic}", numbers)
            pool: Pool = (
                ThreadPoolExecutor(self._workers, initializer=_enter_pool, initargs=initargs)
                if gate is None
                else GatedPool(self._workers, gate, initializer=_enter_pool, initargs=initargs)
            )
            try:
                self._routes.add(topic, server, _Server(served, pool))
            except ValueError:
                pool.shutdown()
                raise

    def unserve(self, topic: str, server: str) -> None:
        """Stop taking messages for (topic, server): running ones finish, queued ones drop."""
        with self._lock:
            gone = self._routes.remove(topic, server)
        if gone is not None:
            _shut(gone.pool)

    def stop(self) -> None:
        """Unserve everything; idempotent and final: casts drop, calls time out."""
        with self._lock:
            self._stopped = True
            servers = [target for _, _, target in self._routes.targets()]
            self._routes = Routes()
        for gone in servers:
            _shut(gone.pool)

    # -- sending ---------------------------------------------------------------
    def cast(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None,
    ) -> None:
        data = codec.encode(ctxt, method, kwargs)
        self._count("cast")
        if self._submit(topic, server, partial(self._deliver_cast, data)) is None:
            self._count("dropped")
            LOG.warning("cast %s to %s/%s dropped: nobody serves it",
                        method, topic, server or "*")

    @property
    def call_timeout(self) -> float:
        """Seconds a call waits when it gives no timeout (oslo's rpc_response_timeout)."""
        return self._call_timeout

    def call(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None, timeout: float | None = None,
    ) -> Any:
        data = codec.encode(ctxt, method, kwargs)
        self._count("called")
        future = self._submit(topic, server, partial(self._deliver_call, data))
        if future is None:
            self._count("dropped")
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: nobody serves it")
        wait = self._call_timeout if timeout is None else timeout
        try:
            reply = future.result(timeout=wait)
        except TimeoutError:
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: "
                                   f"no reply within {wait} s")
        except CancelledError:
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: server stopped")
        delivered, value = reply
        return value if delivered else codec.decode_reply(value)

    # -- quiescence and counters -----------------------------------------------
    def idle(self) -> bool:
        """True when no message is queued or running."""
        with self._lock:
            return self._outstanding == 0

    def join(self, timeout: float | None = None) -> bool:
        """Wait until idle (False if ``timeout`` passed first). Never from a pool thread."""
        with self._quiet:
            return self._quiet.wait_for(lambda: self._outstanding == 0, timeout)

    @property
    def counters(self) -> Counters:
        with self._lock:
            return Counters(**self._tally)

    # -- internals ---------------------------------------------------------------
    def _submit(
        self, topic: str, server: str | None, work: Callable[[Served], T]
    ) -> Future[T] | None:
        with self._lock:
            found = self._routes.resolve(topic, server)
            if found is None:
                return None
            target = found[1]
            # Removal from the routes happens under this lock before a pool shuts
            # down, so a pool found here still accepts work.
            future = target.pool.submit(_run_in, target.pool, work, target.served)
            self._outstanding += 1
        future.add_done_callback(self._settled)
        return future

    def _deliver_cast(self, data: str, served: Served) -> None:
        outcome, _ = served.consume(data)
        self._count(*outcome_keys(outcome))

    def _deliver_call(self, data: str, served: Served) -> tuple[bool, Any]:
        """(True, the result as the caller reads it) or (False, the failure's reply)."""
        outcome, reply = served.answer(data, as_read=True)
        self._count(*outcome_keys(outcome))
        return outcome is Outcome.DELIVERED, reply

    def _settled(self, future: Future[Any]) -> None:
        with self._lock:
            if future.cancelled():
                self._tally["dropped"] += 1
            self._outstanding -= 1
            if self._outstanding == 0:
                self._quiet.notify_all()

    def _count(self, *keys: str) -> None:
        with self._lock:
            self._tally.update(keys)


def _enter_pool(prefix: str, numbers: Iterator[int]) -> None:
    threading.current_thread().name = f"{prefix}-{next(numbers)}"


def _run_in(pool: Pool, work: Callable[[Served], T], served: Served) -> T:
    _CURRENT.pool = pool
    return work(served)


def _shut(pool: Pool) -> None:
    # A handler may stop its own server (an engine shutting itself down); its
    # pool must not wait for the very thread doing the waiting.
    own = getattr(_CURRENT, "pool", None) is pool
    pool.shutdown(wait=not own, cancel_futures=True)
