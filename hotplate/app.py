"""The composition root: the one place that builds adapters and wires them."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from hotplate.cloud import Clouds, CloudSettings
from hotplate.db.crypt import SecretBox
from hotplate.db.engine import HEAT_TIMERS, PoolLimits, make_engine
from hotplate.db.key_check import verify_key
from hotplate.db.migrate import upgrade
from hotplate.db.outbox import OutboxStore
from hotplate.db.session_limits import SessionTimeouts, engine_session_name
from hotplate.db.store import SqlStore
from hotplate.engine.cache import EngineCaches
from hotplate.engine.clock import SystemClock, UuidIds
from hotplate.engine.deps import EngineDeps, ResourceTypes, Slots
from hotplate.engine.event_sinks import EventSinks, SinkTypes
from hotplate.engine.global_env import load_global_environment
from hotplate.engine.heartbeat import ServiceIdentity, ServiceReporter
from hotplate.engine.implicit_graph import with_implicit
from hotplate.engine.lease import EXIT_FENCED, Fence, Lease, lease_seconds
from hotplate.engine.legacy.stacks import LegacyStacks
from hotplate.engine.lifecycle import LifecyclePlugins
from hotplate.engine.options import EngineOptions
from hotplate.engine.runner import ActionRunner
from hotplate.engine.service.endpoint import EngineService
from hotplate.engine.service.request_ledger import RepeatSafe
from hotplate.engine.sink_delivery import SinkDelivery
from hotplate.engine.worker.endpoint import ListenerService, WorkerService
from hotplate.engine.worker.parking import ParkedActions
from hotplate.engine.worker.recovery import Recovery, hand_over
from hotplate.model.ids import EngineId
from hotplate.ports import Clock, Ids, Notifier, Store, Transport
from hotplate.resources.registry import Registry
from hotplate.resources.signal_responder import serve_keystone_signals
from hotplate.rpc.inprocess import InProcessTransport
from hotplate.rpc.topics import ENGINE_TOPIC, LISTENER_TOPIC, WORKER_TOPIC


@dataclass
class Engine:
    """One engine: its services, served on the transport under its own engine id."""

    deps: EngineDeps
    service: EngineService
    worker: WorkerService
    reporter: ServiceReporter
    """The engine's service row and the timer that reports it."""
    recovery: Recovery | None = None
    """The timer that takes over dead engines' work and re-sends lost messages."""
    delivery: SinkDelivery | None = None
    """The thread that hands events to their stacks' event sinks (sink_delivery.py)."""
    watch: Any = None
    """What tells the engine its broker is reachable (rpc/broker_watch.py), if anything."""

    @property
    def store(self) -> Store:
        return self.deps.store

    def shutdown(self, timeout: float | None = None) -> int:
        """Stop gracefully (SIGTERM): take no more messages, let running operations
        finish for up to ``timeout`` seconds (``graceful_shutdown_timeout``), end the
        legacy operations still running then (``end_legacy``), hand what is left
        to the live engines, then ``stop``. The liveness probe is answered until
        the end, so nobody takes this engine for dead meanwhile. Returns how many
        actions were handed over."""
        deps = self.deps
        wait = float(deps.options.graceful_shutdown_timeout if timeout is None else timeout)
        deadline = time.monotonic() + wait
        if deps.parked is not None:  # parked actions wait on others: handed over below,
            # but a legacy stack's thread here goes on with its own for the grace period
            deps.parked.keep_only(lambda parked: deps.routes.to(parked.work.traversal_id)
                                  is not None)
        transport = deps.transport

        def stop_taking() -> None:
            transport.unserve(WORKER_TOPIC, deps.engine_id)
            transport.unserve(ENGINE_TOPIC, deps.host)

        halting = threading.Thread(target=stop_taking, name="hotplate-drain", daemon=True)
        halting.start()
        halting.join(wait)
        self.end_legacy(max(0.0, deadline - time.monotonic()))
        if deps.parked is not None:
            deps.parked.stop()
        self.worker.stop_local()  # nodes not started: to the live engines' workers
        handed = hand_over(deps)
        self.stop()
        return handed

    def end_legacy(self, timeout: float | None = None) -> int:
        """Heat's graceful stop of its stack threads: this engine's legacy operations
        may end within ``timeout`` seconds (``graceful_shutdown_timeout``); those
        still running then stop at their next node, their stacks FAILED "Engine went
        down during stack <ACTION>" and their locks released, so another engine (or
        the user) acts on them at once. Returns how many stacks were reset."""
        legacy = self.deps.legacy
        if not isinstance(legacy, LegacyStacks):
            return 0
        wait = self.deps.options.graceful_shutdown_timeout if timeout is None else timeout
        return legacy.shut_down(float(wait))

    def stop(self) -> None:
        if self.reporter.lease is not None:  # a clean stop: nothing to fence any more
            self.reporter.lease.release()
        if self.deps.parked is not None:
            self.deps.parked.stop()
        transport = self.deps.transport
        transport.unserve(WORKER_TOPIC, self.deps.engine_id)
        transport.unserve(LISTENER_TOPIC, self.deps.engine_id)
        transport.unserve(ENGINE_TOPIC, self.deps.host)
        self.worker.stop_local()
        if self.recovery is not None:
            self.recovery.stop()
        self.reporter.stop()
        if self.delivery is not None:  # after the servers: their events go out
            self.delivery.stop()
        if self.deps.notifier is not None:  # after the servers: what they sent goes out
            self.deps.notifier.close()
        if self.watch is not None:
            self.watch.stop()


def open_store(db_url: str, clock: Clock, *, pool_size: int = 8, max_overflow: int = 0,
               pool_timeout: float = 30.0, migrate: bool = True,
               timeouts: SessionTimeouts | None = HEAT_TIMERS,
               secrets: SecretBox | None = None, session_name: str | None = None) -> Any:
    """The store on ``db_url``, migrated first unless ``migrate`` is false.

    ``timeouts``, ``session_name``: the limits and the name of its database
    sessions (``make_engine``).

    ``secrets``: the key (checked against the database's) and what to encrypt;
    None: Heat's default key, unchecked (tests and library use; the commands
    always pass one).

    Raises:
        EncryptionKeyError: ``secrets`` is not the key of the database's secrets.
    """
    if migrate:
        upgrade(db_url, key=secrets)
    engine = make_engine(db_url, pool_size=pool_size, max_overflow=max_overflow,
                         pool_timeout=pool_timeout, timeouts=timeouts,
                         session_name=session_name)
    if secrets is not None and not migrate:
        verify_key(engine, secrets)
    return SqlStore(engine, clock, secrets)


def engine_lease(options: EngineOptions) -> float:
    """Seconds an engine's report keeps its lease (engine/lease.py): ``2P - min(L, P/2)``."""
    return lease_seconds(options.periodic_interval, options.engine_life_check_timeout)


def amqp_heartbeat(options: EngineOptions) -> int:
    """An engine's default ``[oslo_messaging_rabbit] heartbeat_timeout_threshold``: half
    the report interval (30 s on Heat's timers; at least 2). An engine cut off from the
    broker keeps its consumers there until the broker drops its connection: what they
    took meanwhile (up to the prefetch count each) waits that long for another engine,
    well within the takeover time of 3P + L."""
    return max(2, min(60, round(options.periodic_interval / 2)))


def session_timeouts(options: EngineOptions) -> SessionTimeouts:
    """The database session limits of an engine: every wait a silent peer can cause ends
    well inside the engine's lease (db/session_limits.py)."""
    return SessionTimeouts.for_lease(engine_lease(options))


DB_TOPICS = 2
"""Thread pools that use the database, ``threads`` each: the ``engine`` topic's, and
the ``engine_worker`` topic's (or, with local workers, the local workers, to which
that topic's threads hand every node); the listener's liveness probes never do."""
BACKGROUND_CONNECTIONS = 4
"""The engine's own threads that may hold a connection at the same time as every RPC
thread: its service report, the recovery timers, parked actions' re-drives, and a
finished action's bookkeeping."""


def connections_needed(threads: int) -> int:
    """How many connections one engine may use at once with ``threads`` per RPC server."""
    return threads * DB_TOPICS + BACKGROUND_CONNECTIONS


def start_engine(
    store: Store,
    transport: Transport,
    *,
    clock: Clock | None = None,
    ids: Ids | None = None,
    host: str = "hotplate",
    registry: Any = None,
    runner: ActionRunner | None = None,
    engine_id: str | None = None,
    work_slots: int | None = None,
    options: EngineOptions | None = None,
    notifier: Notifier | None = None,
    local_workers: int = 0,
    cloud: CloudSettings | None = None,
    fence: Fence | None = None,
    watch: Any = None,
) -> Engine:
    """Build one engine and serve its endpoints.

    ``work_slots`` bounds how many workers do the engine's own bookkeeping at
    once (plugins always run concurrently); 1 suits SQLite, None (no bound)
    suits a database server. ``options`` are the request limits, feature
    switches and timers (Heat's defaults when None). The engine reports in the
    service table every ``options.periodic_interval`` seconds until ``stop``.
    ``local_workers`` threads run the nodes of the batches this engine takes
    (engine_worker ``check_resources``; 0: no batches, one message per node).
    ``notifier`` receives Heat's notifications (``rpc.notifier.build_notifier``);
    the engine closes it when it stops. None, the embedded default: none are sent.
    ``cloud``: how to reach an OpenStack cloud (``[clients]``, ``[trustee]``...).
    ``fence``: what the engine does if its lease runs out (engine/lease.py: no
    report reached the database for ``engine_lease(options)`` seconds, so others
    may soon take its work over); None, the embedded default: it holds no lease.
    ``watch``: a started BrokerWatch; while it finds the broker unreachable the
    engine does not report (its lease runs out as if the database were away).
    """
    clock = clock or SystemClock()
    ids = ids or UuidIds()
    options = options or EngineOptions()
    deps = EngineDeps(
        engine_id=EngineId(engine_id or ids.new_uuid()),
        store=store,
        transport=transport,
        clock=clock,
        ids=ids,
        types=resource_types(options, registry),
        caches=EngineCaches(store),
        runner=runner or ActionRunner(clock),
        host=host,
        # A worker's writes are committed together only where every message they
        # lead to stays in this process (write_batch.py): over a broker, a dependant
        # told before the COMMIT could be another engine's, and act on it.
        slots=Slots(work_slots,
                    batching=store if isinstance(transport, InProcessTransport) else None),
        options=options,
        notifier=notifier,
        engine_life_check_timeout=float(options.engine_life_check_timeout),
        local_workers=local_workers,
        lifecycle=LifecyclePlugins.from_entry_points(),
        event_sinks=EventSinks(SinkTypes.from_entry_points()),
        clouds=Clouds(cloud),
    )
    deps.parked = ParkedActions(deps.redrive, deps.clock)
    # through deps: a test's harness may swap the parked actions for its own
    deps.clouds.board.wake_with(lambda key: deps.parked is not None and deps.parked.wake(key))
    # Its stack users can log in to Keystone: HEAT_SIGNAL passes validation (or no more,
    # for an engine without a stack domain built after one with it).
    serve_keystone_signals(deps.credentials.domain.configured)
    deps.caches.implicit = lambda loaded, decided, params: with_implicit(
        deps.types, loaded.env, loaded.files, decided, params)
    worker = WorkerService(deps)
    legacy = LegacyStacks(deps, worker)
    deps.legacy = legacy
    service = EngineService(deps, worker)
    transport.serve(LISTENER_TOPIC, deps.engine_id, ListenerService(legacy),
                    ListenerService.ALLOWED)
    lease = None if fence is None else Lease(
        engine_lease(options), fence, name=f"hotplate-lease-{deps.engine_id[:8]}")
    if lease is not None:  # a legacy thread of a fenced engine writes nothing more
        legacy.holds = lease.check
    reporter = ServiceReporter.start(
        store, ServiceIdentity(deps.engine_id, host, socket.gethostname()),
        options.periodic_interval, clock, lease,
        reachable=None if watch is None else lambda: bool(watch.up))
    # Work only once registered: an engine started while cut off from its database
    # (a fenced one's successor, during the partition) would take calls and hold them.
    transport.serve(WORKER_TOPIC, deps.engine_id, worker, WorkerService.ALLOWED,
                    gate=deps.slots if deps.slots.limited else None)
    transport.serve(ENGINE_TOPIC, host, RepeatSafe(service, deps), EngineService.ALLOWED)
    _reset_legacy_stacks(legacy)
    return Engine(deps=deps, service=service, worker=worker, reporter=reporter,
                  recovery=Recovery.start(deps), delivery=_sink_delivery(deps), watch=watch)


def resource_types(options: EngineOptions, registry: Any = None) -> ResourceTypes:
    """The plugins (``registry``, else every installed one) under the global environment
    (``environment_dir``): what serves each resource of a template."""
    return ResourceTypes(registry or Registry.default(),
                         load_global_environment(options.environment_dir))


def template_caches(store: Store, options: EngineOptions) -> EngineCaches:
    """Templates as the engine reads them, implicit dependencies included, for a command
    that reads stacks without running an engine (``heat-manage migrate_convergence_1``)."""
    types = resource_types(options)
    caches = EngineCaches(store)
    caches.implicit = lambda loaded, decided, params: with_implicit(
        types, loaded.env, loaded.files, decided, params)
    return caches


def _reset_legacy_stacks(legacy: LegacyStacks) -> None:
    """Heat's reset_stack_status at an engine's start, in a thread of its own: the
    liveness probes of dead holders take seconds (recovery rounds look again later)."""
    def reset() -> None:
        try:
            legacy.reset_stale()
        except Exception:  # the recovery rounds try again
            logging.getLogger(__name__).exception("legacy stacks: reset at start failed")

    threading.Thread(target=reset, name="hotplate-legacy-reset", daemon=True).start()


def _sink_delivery(deps: EngineDeps) -> SinkDelivery | None:
    """The engine's event sink delivery, started (None for a store without SQL tables)."""
    engine = getattr(deps.store, "engine", None)
    if deps.event_sinks is None or engine is None:
        return None
    return SinkDelivery(deps.event_sinks, deps.store, OutboxStore(engine, deps.clock),
                        deps.clock).start()


def _engine_on(db_url: str, transport: Transport, *, threads: int,
               options: EngineOptions | None, host: str = "hotplate",
               pool: PoolLimits | None = None, migrate: bool = True,
               local_workers: int = 0, notifier: Notifier | None = None,
               cloud: CloudSettings | None = None, fence: Fence | None = None,
               watch: Any = None, secrets: SecretBox | None = None) -> Engine:
    """An engine on ``db_url`` served on ``transport``, as ``embedded`` and
    ``scale_out_engine`` both build it; the transport (and the notifier) are
    stopped if it fails.

    Without ``options``, Heat's defaults apply, overridden by any
    ``HOTPLATE_<OPTION>`` environment variables (``EngineOptions.from_environ``).
    The pool lets every thread that may use the database hold a connection at
    once (``pool`` may keep more open). On SQLite the engine's own work goes one
    worker at a time.
    """
    try:
        clock = SystemClock()
        options = options or EngineOptions.from_environ(os.environ)
        pool = pool or PoolLimits()
        pool_size, max_overflow = pool.sized(connections_needed(threads))
        ids = UuidIds()
        engine_id = ids.new_uuid()  # before the store: its sessions carry it
        store = open_store(db_url, clock, pool_size=pool_size, max_overflow=max_overflow,
                           pool_timeout=pool.timeout, migrate=migrate,
                           timeouts=session_timeouts(options), secrets=secrets,
                           session_name=engine_session_name(engine_id))
        return start_engine(store, transport, clock=clock, ids=ids, engine_id=engine_id,
                            host=host,
                            work_slots=1 if db_url.startswith("sqlite") else None,
                            options=options,
                            local_workers=local_workers, notifier=notifier, cloud=cloud,
                            fence=fence, watch=watch)
    except BaseException:
        transport.stop()
        if notifier is not None:
            notifier.close()
        raise


def embedded(db_url: str, *, workers: int = 16, options: EngineOptions | None = None,
             host: str | None = None, pool: PoolLimits | None = None,
             notifier: Notifier | None = None, cloud: CloudSettings | None = None,
             secrets: SecretBox | None = None) -> tuple[Engine, InProcessTransport]:
    """The all-in-one engine: SQLite (or any URL), the in-process transport.

    ``workers`` is the thread count of each (topic, server), the in-process
    counterpart of oslo.messaging's executor_thread_pool_size. ``host`` is the
    engine topic's server (default: ``hotplate``). ``notifier``: as for
    ``start_engine`` (none by default). ``secrets``: as for ``open_store``.
    """
    transport = InProcessTransport(workers_per_server=workers)
    engine = _engine_on(db_url, transport, threads=workers, options=options,
                        host=host or "hotplate", pool=pool, notifier=notifier, cloud=cloud,
                        secrets=secrets)
    return engine, transport


def scale_out_engine(db_url: str, transport_url: str, *, threads: int = 16,
                     host: str | None = None, options: EngineOptions | None = None,
                     pool: PoolLimits | None = None, migrate: bool = True,
                     notifier: Notifier | None = None, cloud: CloudSettings | None = None,
                     secrets: SecretBox | None = None) -> tuple[Engine, Transport]:
    """One engine of many: a shared database and the broker at ``transport_url``.

    ``threads`` is oslo.messaging's executor_thread_pool_size, per RPC server.
    ``host`` is Heat's [DEFAULT]/host, the engine topic's server (default: this
    machine's name). ``migrate=False`` when the database is known to be up to
    date (``hotplate engine`` migrates once, before it forks its engines).
    ``notifier``: as for ``start_engine``; build it in the engine's own process
    (it runs a thread). ``secrets``: as for ``open_store``.
    Tests only: ``HOTPLATE_FAULT_DROP_CASTS`` makes it lose casts on purpose
    (rpc/fault_switch.py); no deployment sets it.
    """
    from hotplate.rpc.broker_watch import AmqpProbe, BrokerWatch
    from hotplate.rpc.fault_switch import with_faults
    from hotplate.rpc.messaging import OsloTransport

    options = options or EngineOptions.from_environ(os.environ)
    transport = with_faults(OsloTransport(transport_url, workers_per_server=threads,
                                          heartbeat=amqp_heartbeat(options)), os.environ)
    # Probed twice per lease quarter at least: a cut broker stops the reports soon.
    probe_every = min(1.0, engine_lease(options) / 6)
    watch = None
    if transport_url.startswith("rabbit"):
        watch = BrokerWatch(AmqpProbe(transport_url, timeout=2 * probe_every),
                            interval=probe_every).start()
    engine = _engine_on(db_url, transport, threads=threads, options=options,
                        host=host or socket.gethostname(), pool=pool, migrate=migrate,
                        local_workers=threads, notifier=notifier, cloud=cloud,
                        fence=exit_fenced, watch=watch, secrets=secrets)
    return engine, transport


def exit_fenced(reason: str) -> None:
    """A scale-out engine's fence: the process ends at once, without a goodbye.

    Nothing of it runs any more (no thread calls a cloud, no write is tried), its
    broker connections close, so the broker drops its consumers and hands what it
    had not acknowledged to the other engines, and it stops answering the liveness
    probe. Its service row stays, stale: the others take its locks over as from a
    dead engine. Exiting is the one stop that needs neither the database nor the
    broker, which may be what it lost.
    """
    try:
        sys.stderr.write(f"hotplate engine pid {os.getpid()} fenced itself: {reason}; "
                         "exiting\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_FENCED)


def api_transport(transport_url: str, *, workers: int = 16, watch: bool = True) -> Transport:
    """The API process's way to the engines: calls only, it serves nothing.

    ``watch``: its calls give up at once while the broker is unreachable
    (rpc/watched.py; the API answers 503 with Retry-After), found by a round trip
    each second on a connection of its own.
    """
    from hotplate.rpc.broker_watch import AmqpProbe, BrokerWatch
    from hotplate.rpc.messaging import OsloTransport
    from hotplate.rpc.watched import WatchedTransport

    transport = OsloTransport(transport_url, workers_per_server=workers)
    if not watch or not transport_url.startswith("rabbit"):
        return transport
    return WatchedTransport(transport, BrokerWatch(AmqpProbe(transport_url)).start())
