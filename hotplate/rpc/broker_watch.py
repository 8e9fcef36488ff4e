"""Whether this process can reach its message broker, known within seconds.

An API process cut off from RabbitMQ learns nothing from oslo.messaging until
a call's reply is overdue (a minute by default): its connections stay open,
nothing crosses them, and each request waits out the whole timeout. So the
API watches the broker itself: every ``interval`` seconds ``BrokerWatch``
makes one AMQP round trip (``basic.qos``, which the broker answers at once)
on a connection of its own to the same broker, each read and write bounded by
``probe_timeout``. One round trip that does not come back in time, or a
connection that cannot be made, marks the broker unreachable; the next one
that does marks it reachable again. The watch's connection is opened again
after every failure, so it recovers by itself when the network does.

``WatchedTransport`` (watched.py) turns that into fast answers: a call made
while the broker is unreachable, or still waiting when it becomes so, fails
at once with ``BrokerUnavailable`` (the API's 503 with Retry-After).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

LOG = logging.getLogger(__name__)

PROBE_INTERVAL = 1.0
"""Seconds between round trips."""
PROBE_TIMEOUT = 2.0
"""Seconds a round trip (or a connect) may take before the broker counts as unreachable."""


class Probe(Protocol):
    """One round trip to the broker; raises when it did not come back in time."""

    def __call__(self) -> None: ...

    def close(self) -> None: ...


class AmqpProbe:
    """``basic.qos`` on a kombu connection of its own, to the first broker of ``url``
    that answers (oslo's URL: ``rabbit://user:pass@host:port[,...]/vhost``)."""

    def __init__(self, url: str, timeout: float = PROBE_TIMEOUT) -> None:
        from oslo_config import cfg

        from hotplate.rpc.messaging import oslo_messaging

        parsed = oslo_messaging.TransportURL.parse(cfg.CONF, url)
        self._hosts = list(parsed.hosts)
        self._vhost = parsed.virtual_host or "/"
        self._timeout = timeout
        self._connection: Any = None
        self._channel: Any = None

    def __call__(self) -> None:
        if self._channel is None:
            self._connect()
        try:
            self._channel.basic_qos(0, 1, False)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        import kombu  # type: ignore[import-untyped]

        problem: Exception | None = None
        for host in self._hosts or [None]:
            options: dict[str, Any] = {
                "connect_timeout": self._timeout, "virtual_host": self._vhost,
                "transport_options": {"read_timeout": self._timeout,
                                      "write_timeout": self._timeout}}
            if host is not None:
                options.update(hostname=host.hostname or "127.0.0.1", port=host.port or 5672,
                               userid=host.username or "guest",
                               password=host.password or "guest")
            connection = kombu.Connection(transport="pyamqp", **options)
            try:
                connection.connect()
                self._channel = connection.default_channel
                self._connection = connection
                return
            except Exception as exc:
                problem = exc
                with contextlib.suppress(Exception):
                    connection.collect()
        raise ConnectionError(f"no broker answered: {problem}")

    def close(self) -> None:
        """Drop the connection without a goodbye (the broker may be unreachable)."""
        connection, self._connection, self._channel = self._connection, None, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.collect()


class BrokerWatch:
    """The broker's reachability, probed on a daemon thread; see the module docstring."""

    def __init__(self, probe: Probe, *, interval: float = PROBE_INTERVAL,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._probe = probe
        self.interval = interval
        self._monotonic = monotonic
        self._lock = threading.Condition()
        self._up = True
        """Optimistic at first: the transport was just built on a URL that parsed."""
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hotplate-broker-watch",
                                        daemon=True)

    def start(self) -> BrokerWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(10)
        self._probe.close()

    @property
    def up(self) -> bool:
        with self._lock:
            return self._up

    @property
    def retry_after(self) -> int:
        """Seconds a client should wait before trying again: about one probe's worth."""
        return max(1, round(self.interval + PROBE_TIMEOUT))

    def probe_once(self) -> bool:
        """One round trip; the broker's state after it."""
        problem: Exception | None = None
        try:
            self._probe()
        except Exception as exc:
            problem = exc
        reachable = problem is None
        with self._lock:
            if reachable != self._up:
                self._up = reachable
                if reachable:
                    LOG.warning("message broker reachable again")
                else:
                    LOG.error("message broker unreachable: %s", problem)
                self._lock.notify_all()
        return reachable

    def _run(self) -> None:
        while not self._stopped.is_set():
            started = self._monotonic()
            self.probe_once()
            self._stopped.wait(max(0.0, self.interval - (self._monotonic() - started)))
