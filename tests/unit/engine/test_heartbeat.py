"""An engine's service row (engine/heartbeat.py): the order of the start, reports that
survive errors, and a timer that ends with its engine."""

from __future__ import annotations

import gc
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from hotplate.engine.clock import FakeClock
from hotplate.engine.heartbeat import ServiceIdentity, ServiceReporter
from hotplate.model.ids import EngineId

ME = ServiceIdentity(EngineId("0123456789ab-engine"), "host-1", "machine-1")


class RecordingStore:
    """The service methods of a Store, recording what they were asked; a report can fail."""

    def __init__(self, failures: int = 0) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.failures = failures
        self.reported = threading.Event()

    def delete_stale_services(self, host: str, hostname: str, binary: str,
                              reported_before: datetime) -> int:
        self.calls.append(("cleanup", host, hostname, binary, reported_before))
        return 2

    def register_service(self, engine_id: EngineId, host: str, hostname: str, binary: str,
                         topic: str, report_interval: int) -> None:
        self.calls.append(("register", engine_id, host, hostname, binary, topic,
                           report_interval))

    def heartbeat_service(self, engine_id: EngineId) -> bool:
        self.calls.append(("report", engine_id))
        if self.failures:
            self.failures -= 1
            raise ConnectionError("database away")
        self.reported.set()
        return True

    def delete_service(self, engine_id: EngineId) -> None:
        self.calls.append(("delete", engine_id))


def _start(store: RecordingStore, clock: FakeClock, interval: int = 3600) -> ServiceReporter:
    return ServiceReporter.start(store, ME, interval, clock)  # type: ignore[arg-type]


def test_start_cleans_up_registers_and_reports_then_stop_removes_the_row() -> None:
    store, clock = RecordingStore(), FakeClock(datetime(2026, 1, 1, 12, tzinfo=UTC))
    reporter = _start(store, clock, interval=60)
    try:
        assert store.calls == [
            ("cleanup", "host-1", "machine-1", "hotplate-engine",
             datetime(2026, 1, 1, 11, 57, tzinfo=UTC)),  # three reports of 60 s behind
            ("register", ME.engine_id, "host-1", "machine-1", "hotplate-engine", "engine", 60),
            ("report", ME.engine_id),
        ]
        assert reporter.reporting
        assert "hotplate-report-01234567" in {t.name for t in threading.enumerate()}
    finally:
        reporter.stop()
    assert store.calls[-1] == ("delete", ME.engine_id)
    assert not reporter.reporting


def test_a_failed_report_is_logged_and_the_timer_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    store = RecordingStore(failures=1)
    reporter = _start(store, FakeClock(), interval=1)
    try:
        assert reporter.reporting  # the first report failed, the engine still started
        assert "report failed" in caplog.text and "database away" in caplog.text
        assert store.reported.wait(5), "the next period did not report"
    finally:
        reporter.stop()


def test_an_engine_dropped_without_stop_ends_its_timer() -> None:
    store = RecordingStore()
    reporter = _start(store, FakeClock(), interval=3600)
    name = "hotplate-report-01234567"
    del reporter
    gc.collect()
    deadline = time.monotonic() + 2  # at once, not at the next period
    while name in {t.name for t in threading.enumerate()}:
        assert time.monotonic() < deadline, "the timer outlived its reporter"
        time.sleep(0.05)
    assert ("delete", ME.engine_id) not in store.calls


def test_the_cleanup_window_follows_the_interval() -> None:
    store, clock = RecordingStore(), FakeClock(datetime(2026, 1, 1, 12, tzinfo=UTC))
    reporter = ServiceReporter(store, ME, 1)  # type: ignore[arg-type]
    assert reporter.cleanup(clock) == 2
    assert store.calls[0][-1] == datetime(2026, 1, 1, 12, tzinfo=UTC) - timedelta(seconds=3)


def test_a_report_renews_the_lease_from_its_start_and_a_missing_row_does_not() -> None:
    from hotplate.engine.lease import Lease

    ticks = [100.0]
    fenced: list[str] = []
    lease = Lease(3.0, fenced.append, monotonic=lambda: ticks[0])
    store = RecordingStore()
    reporter = ServiceReporter(store, ME, 2, lease)  # type: ignore[arg-type]
    assert reporter.period == 1.0  # twice per interval while leased
    ticks[0] = 102.0
    reporter.report()
    assert lease.remaining() == 3.0
    store.heartbeat_service = lambda engine_id: False  # type: ignore[method-assign]
    ticks[0] = 104.0
    reporter.report()  # the row is gone: nothing renewed
    assert lease.remaining() == 1.0
    ticks[0] = 105.5
    assert not lease.check() and len(fenced) == 1


def test_an_engine_woken_past_its_lease_fences_before_it_reports() -> None:
    """A paused process wakes with its report timer and its watchdog both due; whichever
    runs first, the row must not move again: the report fences instead of writing."""
    from hotplate.engine.lease import Lease

    ticks = [100.0]
    fenced: list[str] = []
    lease = Lease(3.0, fenced.append, monotonic=lambda: ticks[0])
    store = RecordingStore()
    reporter = ServiceReporter(store, ME, 2, lease)  # type: ignore[arg-type]
    ticks[0] = 110.0  # woken long after the deadline
    assert reporter.report() is False  # the timer ends
    assert ("report", ME.engine_id) not in store.calls
    assert len(fenced) == 1 and lease.fenced is not None
