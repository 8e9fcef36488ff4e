"""An engine's lease (engine/lease.py): renewed by reports that started in time, and
fenced once, at its deadline, when none did."""

from __future__ import annotations

import threading

import pytest

from hotplate.engine.lease import Lease, fence_margin, lease_seconds


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lease(seconds: float = 3.0) -> tuple[Lease, Ticks, list[str]]:
    ticks, fenced = Ticks(), []
    return Lease(seconds, fenced.append, monotonic=ticks), ticks, fenced


def test_the_fence_goes_up_before_anyone_may_take_over() -> None:
    for interval, life_check in [(60, 2), (10, 2), (2, 1), (1, 1), (1, 5)]:
        lease = lease_seconds(interval, life_check)
        assert lease + fence_margin(interval, life_check) == 2 * interval
        assert lease > interval  # a report a period late still renews in time
    assert lease_seconds(60, 2) == 118


def test_reports_in_time_keep_the_lease() -> None:
    lease, ticks, fenced = _lease()
    for _ in range(5):
        ticks.now += 2.5
        assert lease.renewed(ticks.now)
        assert lease.check()
    assert fenced == []
    assert lease.remaining() == pytest.approx(3.0)


def test_no_report_for_the_lease_fences_once() -> None:
    lease, ticks, fenced = _lease()
    ticks.now += 2.9
    assert lease.check()
    ticks.now += 0.2
    assert not lease.check()
    assert not lease.check()
    assert len(fenced) == 1 and "lease 3 s" in fenced[0]
    assert lease.fenced == fenced[0]


def test_a_report_that_started_too_late_renews_nothing() -> None:
    """A report that hung past the deadline, or an engine woken from a pause: the lease
    was lost meanwhile, whatever the database says now."""
    lease, ticks, fenced = _lease()
    ticks.now += 3.5
    assert not lease.renewed(ticks.now)
    assert not lease.check()
    assert len(fenced) == 1


def test_a_report_that_started_in_time_counts_from_its_start() -> None:
    lease, ticks, _ = _lease()
    started = ticks.now + 1.0
    ticks.now += 2.9  # it took 1.9 s to come back
    assert lease.renewed(started)
    assert lease.remaining() == pytest.approx(started + 3.0 - ticks.now)


def test_a_released_lease_never_fences() -> None:
    lease, ticks, fenced = _lease()
    lease.release()
    ticks.now += 10
    assert lease.check()
    assert fenced == []


def test_the_watchdog_fences_on_real_time() -> None:
    fenced = threading.Event()
    lease = Lease(0.2, lambda reason: fenced.set()).start()
    assert fenced.wait(5)
    lease.release()
