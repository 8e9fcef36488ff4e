"""The scale-out transport: oslo.messaging (RabbitMQ through kombu), as Heat uses it.

The wire carries what a stock Heat process expects: topic ``engine`` with
Heat's EngineClient version, the context as a dict, the arguments as
keyword arguments. Before sending, the same strict JSON check as in-process
runs (``codec.check_json``), so a value the embedded engine would refuse is
refused here too, at the sender, naming its key path.

Receiving, each served (topic, server) is one oslo RPC server with a bounded
``threading`` executor. Its endpoint is a facade that exposes exactly the
allowlisted methods; a refused name is as absent as a missing one. What an
endpoint raises goes back in one of two forms, by topic:

- on ``engine``, Heat's contract with heat-api, an error Heat has a class
  for crosses as that class of ``heat.common.exception`` with the keyword
  arguments Heat's constructor takes (``heat_faults`` chooses them), so a
  stock heat-api rebuilds the real Heat exception and answers the status
  hotplate's API answers; our callers rebuild the model error from the
  class name and text (``heat_faults.from_heat``);
- everywhere else, and for errors Heat has no class for, a ``WireFailure``
  carrying the codec's error envelope, so the caller re-raises
  ``hotplate.model.errors`` by class, just as with the in-process transport.

A message with no server goes to the topic's shared queue and RabbitMQ
hands it to one consumer in turn. oslo.messaging's RabbitMQ driver
acknowledges a message as it arrives and its server queues work for its
threads without bound, so ``rabbit_qos_prefetch_count`` (set to the thread
count) alone would not stop a busy engine from hoarding the queue: each
server here also takes a message only when one of its threads is free
(``_take_when_free``), so what it has not taken stays on the broker for the
other engines. A cast to a
server nobody serves is dropped by the broker; a call to one times out,
which is Heat's liveness rule for a dead engine.
"""

from __future__ import annotations

import functools
import logging
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn

from oslo_config import cfg

from hotplate.rpc import codec, heat_faults
from hotplate.rpc.dispatch import Counters, Outcome, Served, outcome_keys
from hotplate.rpc.errors import MessagingTimeout, NoSuchMethod, RemoteError
from hotplate.rpc.policy import AccessPolicy
from hotplate.rpc.topics import (
    ENGINE_API_VERSION,
    ENGINE_TOPIC,
    LISTENER_API_VERSION,
    LISTENER_TOPIC,
    WORKER_API_VERSION,
    WORKER_TOPIC,
)

EVENTLET_WARNINGS = (
    r"\s*Eventlet is deprecated",
    r"eventletutils module is deprecated",
    r"The 'oslo_service.eventlet_backdoor' module usage is deprecated",
)
"""What importing oslo.messaging warns about: oslo.service's eventlet backend,
loaded even though the threading executor never touches eventlet."""

with warnings.catch_warnings():
    for _pattern in EVENTLET_WARNINGS:
        warnings.filterwarnings("ignore", message=_pattern)
    import oslo_messaging
    from oslo_messaging.opts import list_opts as messaging_opts

LOG = logging.getLogger(__name__)

SENDERS = 8
"""Threads publishing casts. oslo's rabbit driver waits for the broker to
confirm each publish (a few ms), so one thread casting the leaves of a wide
traversal would be held to a few hundred a second; casts go out from these
threads instead, in any order (a message carries keys, its handler re-reads
the state, so order never mattered)."""

DEFAULT_EXCHANGE = "heat"
"""Heat's control_exchange: the broker's queues read as Heat's."""

_VERSIONS: Mapping[str, str] = {
    ENGINE_TOPIC: ENGINE_API_VERSION,
    WORKER_TOPIC: WORKER_API_VERSION,
    LISTENER_TOPIC: LISTENER_API_VERSION,
}


class WireFailure(Exception):
    """What an endpoint raised, as it crosses the broker: the codec's error envelope.

    oslo.messaging rebuilds a remote exception as ``cls(*args, **kwargs)``
    when its module is allowed; this one rebuilds from the envelope alone.
    """

    def __init__(self, message: str = "", failure: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.failure = dict(failure or {})
        self.kwargs = {"failure": self.failure}


class _Facade:
    """The endpoint oslo dispatches to, behind our allowlist.

    Every public name resolves here, so that a refused one is answered by us
    (a warning and NoSuchMethod, by class, at the caller) rather than logged
    by oslo as an error with a traceback; ``Served.method`` decides.
    """

    def __init__(self, served: Served, version: str, tally: Callable[..., None],
                 fail: Callable[[BaseException], NoReturn]) -> None:
        self.target = oslo_messaging.Target(version=version)
        self._served = served
        self._tally = tally
        self._fail = fail

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("_", "oslo_")):  # oslo probes for its own hooks
            raise AttributeError(name)

        def invoke(ctxt: Mapping[str, Any], **kwargs: Any) -> Any:
            return self._invoke(name, ctxt, kwargs)

        return invoke

    def _invoke(self, name: str, ctxt: Mapping[str, Any], kwargs: dict[str, Any]) -> Any:
        # The rabbit driver adds the caller's timeout to the context; ours never had it.
        context = {k: v for k, v in (ctxt or {}).items() if k != "client_timeout"}
        outcome, value = self._served.invoke(name, context, kwargs)
        self._tally(*outcome_keys(outcome))
        if outcome is not Outcome.DELIVERED:
            self._fail(value)
        return value


def _fail(exc: BaseException) -> NoReturn:
    """Send ``exc`` back to the caller as a WireFailure.

    oslo sends an ExpectedException's cause without logging it again: the
    line ``Served.invoke`` logged (with a traceback for the unexpected) is enough.
    """
    try:
        raise WireFailure(str(exc), codec.failure_of(exc)) from exc
    except WireFailure:
        raise oslo_messaging.ExpectedException()


class _HeatError(Exception):
    """An error as a Heat engine sends it: oslo serialises the class's name and
    module, ``str()``, ``args`` (none: Heat's constructors take keywords) and
    ``kwargs``, which heat-api passes to ``heat.common.exception.<name>``."""

    def __init__(self, fault: heat_faults.HeatFault) -> None:
        super().__init__()
        self.kwargs = dict(fault.kwargs)
        self._message = fault.message

    def __str__(self) -> str:
        return self._message


@functools.cache
def _heat_class(name: str) -> type[_HeatError]:
    """A subclass named as Heat's class, in Heat's module: what oslo puts on the wire."""
    return type(name, (_HeatError,), {"__module__": heat_faults.HEAT_EXCEPTION_MODULE,
                                      "__qualname__": name})


def heat_exception(exc: BaseException) -> Exception | None:
    """What crosses the engine topic for ``exc``: an exception oslo serialises as
    ``heat.common.exception.<name>`` with Heat's keyword arguments; None when Heat
    has no class for it (it goes as a WireFailure)."""
    fault = heat_faults.heat_fault(exc)
    return None if fault is None else _heat_class(fault.name)(fault)


def _fail_as_heat(exc: BaseException) -> NoReturn:
    """Send ``exc`` back as the Heat exception heat-api expects, or as ours if Heat has none."""
    heat = heat_exception(exc)
    if heat is None:
        _fail(exc)
    try:
        raise heat from exc
    except _HeatError:
        raise oslo_messaging.ExpectedException()


_FAILURE_FORMS: Mapping[str, Callable[[BaseException], NoReturn]] = {
    ENGINE_TOPIC: _fail_as_heat,
}
"""How a topic's endpoint errors cross: Heat's form where a Heat process may be the
caller (the engine topic), our envelope on the engine-to-engine topics."""


def _remote_error(exc: Any, method: str) -> Exception:
    """What the caller re-raises for a failure oslo could not rebuild: a refusal, a
    Heat error (as a model error where hotplate has one), or a RemoteError."""
    name, message = str(exc.exc_type), str(exc.value)
    if name == "NoSuchMethod":
        return NoSuchMethod(method, "not allowed")
    return heat_faults.from_heat(name, message) or RemoteError(name, message)


class OsloTransport:
    """ports.Transport over oslo.messaging; see the module docstring."""

    def __init__(self, url: str, *, workers_per_server: int = 16, call_timeout: float = 60.0,
                 exchange: str = DEFAULT_EXCHANGE, heartbeat: int | None = None) -> None:
        """``heartbeat``: the default of ``[oslo_messaging_rabbit]
        heartbeat_timeout_threshold`` (a configuration file's value wins): how long the
        broker waits on a silent connection before it drops it, with its consumers,
        and hands what they had not acknowledged to the others. None: oslo's (60)."""
        if workers_per_server < 1:
            raise ValueError("workers_per_server must be at least 1")
        self._workers = workers_per_server
        self._conf = _sized_conf(workers_per_server, heartbeat)
        try:
            self._transport = oslo_messaging.get_rpc_transport(
                self._conf, url=url, allowed_remote_exmods=[__name__])
        except (oslo_messaging.InvalidTransportURL, oslo_messaging.DriverLoadFailure) as exc:
            raise ValueError(f"transport URL {_safe(url)!r}: {exc}") from exc
        self._exchange = exchange
        self._call_timeout = call_timeout
        self._lock = threading.Lock()
        self._servers: dict[tuple[str, str], Any] = {}
        self._clients: dict[str, Any] = {}
        self._tally: Counter[str] = Counter()
        self._stopped = False
        self._sender = ThreadPoolExecutor(SENDERS, thread_name_prefix="hotplate-cast")

    # -- serving ---------------------------------------------------------------
    def serve(self, topic: str, server: str, endpoint: Any, allowed: frozenset[str],
              *, gate: Any = None) -> None:
        """Serve (topic, server); ``gate`` is ignored (a database server takes many writers)."""
        served = Served(topic, server, endpoint, AccessPolicy(frozenset(allowed)))
        facade = _Facade(served, _VERSIONS.get(topic, "1.0"), self._count,
                         _FAILURE_FORMS.get(topic, _fail))
        target = oslo_messaging.Target(exchange=self._exchange, topic=topic, server=server)
        with self._lock:
            if self._stopped:
                raise RuntimeError("transport is stopped")
            if (topic, server) in self._servers:
                raise ValueError(f"({topic}, {server}) is already served")
            rpc_server = oslo_messaging.get_rpc_server(
                self._transport, target, [facade],
                access_policy=oslo_messaging.DefaultRPCAccessPolicy)
            self._servers[(topic, server)] = rpc_server
        _take_when_free(rpc_server, self._workers)
        rpc_server.start()

    def unserve(self, topic: str, server: str) -> None:
        """Stop consuming for (topic, server); running messages finish first."""
        with self._lock:
            rpc_server = self._servers.pop((topic, server), None)
        if rpc_server is not None:
            _halt(rpc_server)

    def stop(self) -> None:
        """Stop every server and close the broker connections; idempotent."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            servers = list(self._servers.values())
            self._servers.clear()
        _halt(*servers)
        self._sender.shutdown(wait=True)  # what running handlers cast still goes out
        self._transport.cleanup()

    # -- sending ---------------------------------------------------------------
    def cast(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None,
    ) -> None:
        # Refuse what JSON cannot carry, here; and publish a copy taken now, since
        # the publish happens later and the caller may go on to change its values.
        message = codec.decode(codec.encode(ctxt, method, kwargs))
        self._count("cast")
        client = self._client(topic)
        if client is None:
            self._count("dropped")
            LOG.warning("cast %s to %s/%s dropped: the transport is stopped",
                        method, topic, server or "*")
            return
        prepared = client.prepare(server=server)
        try:
            self._sender.submit(self._publish, prepared, message.ctxt, method, message.kwargs,
                                f"{topic}/{server or '*'}")
        except RuntimeError:  # stopped meanwhile
            self._count("dropped")
            LOG.warning("cast %s to %s/%s dropped: the transport is stopped",
                        method, topic, server or "*")

    def _publish(self, prepared: Any, ctxt: dict[str, Any], method: str,
                 kwargs: dict[str, Any], where: str) -> None:
        try:
            prepared.cast(ctxt, method, **kwargs)
        except Exception:
            self._count("dropped")
            LOG.exception("cast %s to %s could not be published", method, where)

    def call(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None, timeout: float | None = None,
    ) -> Any:
        codec.encode(ctxt, method, kwargs)
        self._count("called")
        wait = self._call_timeout if timeout is None else timeout
        client = self._client(topic)
        if client is None:
            self._count("dropped")
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: transport stopped")
        try:
            return client.prepare(server=server, timeout=wait).call(dict(ctxt), method,
                                                                    **kwargs)
        except oslo_messaging.MessagingTimeout:
            raise MessagingTimeout(f"{method} on {topic}/{server or '*'}: "
                                   f"no reply within {wait} s")
        except WireFailure as exc:
            raise codec.error_from(exc.failure)
        except oslo_messaging.RemoteError as exc:
            raise _remote_error(exc, method)

    @property
    def call_timeout(self) -> float:
        """Seconds a call waits when it gives no timeout (oslo's rpc_response_timeout)."""
        return self._call_timeout

    @property
    def counters(self) -> Counters:
        with self._lock:
            return Counters(**self._tally)

    # -- internals ---------------------------------------------------------------
    def _client(self, topic: str) -> Any:
        """The topic's RPC client; None once stopped (the broker connections are gone)."""
        with self._lock:
            if self._stopped:
                return None
            client = self._clients.get(topic)
            if client is None:
                target = oslo_messaging.Target(exchange=self._exchange, topic=topic,
                                               version=_VERSIONS.get(topic, "1.0"))
                client = oslo_messaging.get_rpc_client(self._transport, target)
                self._clients[topic] = client
            return client

    def _count(self, *keys: str) -> None:
        with self._lock:
            self._tally.update(keys)


def _sized_conf(workers: int, heartbeat: int | None = None) -> cfg.ConfigOpts:
    """oslo's process-wide configuration, sized to ``workers``.

    oslo.messaging registers some of its options (tracing, metrics) on the
    global configuration only and reads them from whichever one it is given,
    so a private ConfigOpts fails at the first call; Heat uses the global one
    too. The sizes are process-wide: the last transport built sets them.

    Heat's control_exchange default is set first, as heat does and as the
    notifier does: the options registered here are copies, and oslo refuses
    to register its own options later if their default has changed meanwhile.
    """
    conf = cfg.CONF
    oslo_messaging.set_transport_defaults(control_exchange=DEFAULT_EXCHANGE)
    for group, opts in messaging_opts():
        conf.register_opts(opts, group=group)
    conf.set_override("executor_thread_pool_size", workers)
    conf.set_override("rabbit_qos_prefetch_count", workers, group="oslo_messaging_rabbit")
    if heartbeat is not None:
        conf.set_default("heartbeat_timeout_threshold", heartbeat,
                         group="oslo_messaging_rabbit")
    return conf


def _take_when_free(rpc_server: Any, threads: int) -> None:
    """Make the server's listener wait for a free thread before it takes the next
    message (oslo.messaging hands every message to an unbounded queue otherwise).

    It replaces the server's ``_on_incoming`` (oslo.messaging's own hand-over to
    its thread pool) with the same hand-over behind a semaphore of ``threads``.
    """
    free = threading.BoundedSemaphore(threads)

    def on_incoming(incoming: Any) -> None:
        free.acquire()
        try:
            future = rpc_server._work_executor.submit(rpc_server._process_incoming, incoming)
        except BaseException:
            free.release()
            raise
        future.add_done_callback(lambda _done: free.release())

    rpc_server._on_incoming = on_incoming


def _halt(*rpc_servers: Any) -> None:
    """Stop the servers side by side: each blocks for seconds (its listener's poll
    timeout) before its running messages are waited for."""

    def halt(rpc_server: Any) -> None:
        rpc_server.stop()
        rpc_server.wait()

    if len(rpc_servers) == 1:
        halt(rpc_servers[0])
        return
    threads = [threading.Thread(target=halt, args=(rpc_server,), name="hotplate-halt")
               for rpc_server in rpc_servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _safe(url: str) -> str:
    """The URL without its password, for error messages."""
    head, sep, tail = url.rpartition("@")
    if not sep:
        return url
    scheme, _, userinfo = head.partition("://")
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:***@{tail}"
