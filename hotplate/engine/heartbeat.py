"""This engine's row in the service table, kept as Heat keeps it.

Heat's engine, at start, removes the rows of its host that missed three
reports (service_manage_cleanup: engines of this host that died without
leaving), registers, and then reports every ``periodic_interval`` seconds
(service_manage_report), its first report at once; a clean stop removes its
row. The service list then reads an engine ``up`` while its last report is
at most two report intervals old: a killed engine's row stops moving and
reads ``down`` soon after, with no probe of the engine itself.

An engine that holds a lease (lease.py) reports twice per interval, and each
report that reached its row renews the lease: the lease then survives one
slow or lost report however short the interval. Such an engine reports only
while it can also reach the broker (``reachable``): one that cannot take
messages is, to the others, as dead as one that cannot reach the database,
so its row goes stale, its lease runs out and it fences itself, and its work
is taken over in the same time as a killed engine's.

The timer holds its reporter weakly: an engine dropped without ``stop``
(a test letting its engine go) ends its timer when it is collected, instead
of the timer keeping the engine's store alive for ever.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from hotplate.engine.lease import Lease
from hotplate.engine.periodic import PeriodicTimer
from hotplate.model.ids import EngineId
from hotplate.ports import Clock, ServiceStorage
from hotplate.rpc.topics import ENGINE_TOPIC

LOG = logging.getLogger(__name__)

BINARY = "hotplate-engine"
"""The service rows' ``binary`` (Heat's is ``heat-engine``)."""
MISSED_REPORTS = 3
"""Reports a row of this host may miss before a starting engine takes it for dead."""


@dataclass(frozen=True, slots=True)
class ServiceIdentity:
    """What a service row says of its engine."""

    engine_id: EngineId
    host: str
    """Heat's ``[DEFAULT]/host``: the engine topic's server."""
    hostname: str
    """The machine's name."""
    binary: str = BINARY
    topic: str = ENGINE_TOPIC


class ServiceReporter:
    """Registers an engine, reports it every interval, and removes it at a clean stop."""

    def __init__(self, store: ServiceStorage, identity: ServiceIdentity, interval: int,
                 lease: Lease | None = None,
                 reachable: Callable[[], bool] | None = None) -> None:
        self._store = store
        self.identity = identity
        self.interval = interval
        self.lease = lease
        """Renewed by every report that reached the row; None: the engine holds none."""
        self.reachable = reachable
        """Whether the engine's other links hold (the broker); None: not asked."""
        self._timer: PeriodicTimer | None = None

    @classmethod
    def start(cls, store: ServiceStorage, identity: ServiceIdentity, interval: int,
              clock: Clock, lease: Lease | None = None,
              reachable: Callable[[], bool] | None = None) -> ServiceReporter:
        """Clean up this host's dead rows, register, report once and start the timer.

        The cleanup and the registration raise (the engine cannot start
        without its row); the reports after them only log their failures.
        """
        reporter = cls(store, identity, interval, lease, reachable)
        reporter.cleanup(clock)
        store.register_service(identity.engine_id, identity.host, identity.hostname,
                               identity.binary, identity.topic, interval)
        reporter.report()
        if lease is not None:
            lease.start()
        reporter._start_timer()
        return reporter

    def cleanup(self, clock: Clock) -> int:
        """Soft delete this host's rows more than three reports behind (Heat's
        service_manage_cleanup); returns how many went."""
        identity = self.identity
        cutoff = clock.now() - timedelta(seconds=MISSED_REPORTS * self.interval)
        removed = self._store.delete_stale_services(identity.host, identity.hostname,
                                                    identity.binary, cutoff)
        if removed:
            LOG.info("removed %d service rows of host %s that stopped reporting",
                     removed, identity.host)
        return removed

    def report(self) -> bool:
        """One heartbeat: the row's ``updated_at`` moves to now, and the lease (if any)
        is renewed from the moment the report started. Never raises; False (the
        timer ends) once the lease is lost: a fenced engine writes no report."""
        lease = self.lease
        started = lease.now() if lease is not None else 0.0
        if lease is not None and not lease.check():
            # Woken past the deadline (a paused process): the report thread may run
            # before the watchdog does, and a fenced engine's row must not move again.
            return False
        if self.reachable is not None and not self.reachable():
            LOG.warning("service %s: the broker is unreachable; not reporting",
                        self.identity.engine_id)
            return True
        try:
            found = self._store.heartbeat_service(self.identity.engine_id)
        except Exception:
            LOG.exception("service %s: report failed; trying again in %s s",
                          self.identity.engine_id, self.period)
            return True
        if found is False:
            LOG.error("service %s: its row is gone (taken for dead)", self.identity.engine_id)
        elif lease is not None:
            lease.renewed(started)
        return True

    @property
    def period(self) -> float:
        """Seconds between reports: the interval, half of it while holding a lease."""
        return self.interval / 2 if self.lease is not None else float(self.interval)

    def stop(self) -> None:
        """Release the lease, end the timer (a report under way finishes first) and
        remove the row."""
        if self.lease is not None:
            self.lease.release()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._store.delete_service(self.identity.engine_id)

    @property
    def reporting(self) -> bool:
        return self._timer is not None and self._timer.running

    def _start_timer(self) -> None:
        ref = weakref.ref(self)

        def tick() -> bool:
            reporter = ref()
            return reporter is not None and reporter.report()

        timer = PeriodicTimer(f"hotplate-report-{self.identity.engine_id[:8]}",
                              self.period, tick)
        weakref.finalize(self, timer.cancel)
        self._timer = timer
        timer.start()
