"""A transport whose calls give up as soon as the broker is known unreachable.

The API process's calls go through it (app.api_transport): a call made while
``BrokerWatch`` says the broker is unreachable fails at once, and one already
waiting fails as soon as the watch finds the broker gone, both with
``BrokerUnavailable``, which the API answers 503 with ``Retry-After``. The
call itself goes on in the background until oslo.messaging gives up on it;
its answer, if one comes, is dropped (the client was told to try again: a
write it repeats is safe with an Idempotency-Key).

Everything else passes through unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from hotplate.ports import Endpoint, Transport
from hotplate.rpc.broker_watch import BrokerWatch
from hotplate.rpc.errors import BrokerUnavailable

CALL_THREADS = 64
"""Calls waiting at once; a request beyond them waits for a free thread (each
request thread already waits for its call: this only moves the wait)."""
CHECK_EVERY = 0.25
"""Seconds between looks at the watch while a call waits."""


class WatchedTransport:
    """``transport`` with its calls bounded by ``watch``; see the module docstring."""

    def __init__(self, transport: Transport, watch: BrokerWatch) -> None:
        self.inner = transport
        self.watch = watch
        self._calls = ThreadPoolExecutor(CALL_THREADS, thread_name_prefix="hotplate-call")
        self._stopped = threading.Event()

    def serve(self, topic: str, server: str, endpoint: Endpoint, allowed: frozenset[str],
              *, gate: Any = None) -> None:
        self.inner.serve(topic, server, endpoint, allowed, gate=gate)

    def unserve(self, topic: str, server: str) -> None:
        self.inner.unserve(topic, server)

    def cast(self, ctxt: Mapping[str, Any], topic: str, method: str,
             kwargs: Mapping[str, Any], *, server: str | None = None) -> None:
        self.inner.cast(ctxt, topic, method, kwargs, server=server)

    def call(self, ctxt: Mapping[str, Any], topic: str, method: str,
             kwargs: Mapping[str, Any], *, server: str | None = None,
             timeout: float | None = None) -> Any:
        self._refuse_if_down(method)
        future = self._calls.submit(self.inner.call, ctxt, topic, method, kwargs,
                                    server=server, timeout=timeout)
        while True:
            try:
                return future.result(CHECK_EVERY)
            except FutureTimeout:
                self._refuse_if_down(method)

    def stop(self) -> None:
        self.watch.stop()
        self._calls.shutdown(wait=False, cancel_futures=True)
        stop = getattr(self.inner, "stop", None)
        if stop is not None:
            stop()

    @property
    def call_timeout(self) -> float | None:
        return getattr(self.inner, "call_timeout", None)

    @property
    def counters(self) -> Any:
        return getattr(self.inner, "counters", None)

    def _refuse_if_down(self, method: str) -> None:
        if not self.watch.up:
            raise BrokerUnavailable(method, self.watch.retry_after)
