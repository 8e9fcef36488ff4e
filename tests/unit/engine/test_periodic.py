"""The engine timers' schedule (engine/periodic.py), on fake time, and the thread that runs it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from hotplate.engine.periodic import PeriodicTimer, run_every


class FakeTime:
    """A monotonic clock that moves only when the loop waits or a task takes time."""

    def __init__(self, stop_after: int) -> None:
        self.now = 100.0
        self.waits: list[float] = []
        self.runs: list[float] = []
        self._stop_after = stop_after

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 6))
        self.now += seconds
        return len(self.waits) > self._stop_after

    def task(self, takes: Callable[[int], float] = lambda n: 0.0) -> Callable[[], bool]:
        def run() -> bool:
            self.runs.append(round(self.now, 6))
            self.now += takes(len(self.runs))
            return True
        return run


def test_runs_every_interval_from_one_interval_after_the_start() -> None:
    fake = FakeTime(stop_after=3)
    run_every(60, fake.task(), monotonic=fake.monotonic, wait=fake.wait)
    assert fake.runs == [160.0, 220.0, 280.0]
    assert fake.waits == [60.0, 60.0, 60.0, 60.0]


def test_a_slow_run_shortens_the_next_wait_and_an_overrun_skips_it() -> None:
    fake = FakeTime(stop_after=4)
    takes = {1: 0.25, 2: 75.0}  # the second run overruns its period by 15 s
    run_every(60, fake.task(lambda n: takes.get(n, 0.0)), monotonic=fake.monotonic,
              wait=fake.wait)
    assert fake.waits == [60.0, 59.75, 0.0, 60.0, 60.0]
    # After the overrun the rhythm restarts from when it ended: no burst of missed runs.
    assert fake.runs == [160.0, 220.0, 295.0, 355.0]


def test_a_failing_run_is_logged_and_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeTime(stop_after=3)
    calls = []

    def flaky() -> bool:
        calls.append(fake.now)
        if len(calls) == 1:
            raise ConnectionError("database away")
        return True

    run_every(5, flaky, monotonic=fake.monotonic, wait=fake.wait, name="report")
    assert calls == [105.0, 110.0, 115.0]
    [record] = caplog.records
    assert record.getMessage() == "report failed; trying again in 5 s"
    assert record.exc_info is not None


def test_a_task_ends_its_timer_by_answering_false() -> None:
    fake = FakeTime(stop_after=10)
    answers = iter([True, False, True])
    run_every(1, lambda: next(answers), monotonic=fake.monotonic, wait=fake.wait)
    assert fake.waits == [1.0, 1.0]


def test_stop_wakes_the_thread_at_once() -> None:
    ran = threading.Event()
    timer = PeriodicTimer("hotplate-test-timer", 3600, lambda: ran.set() or True)
    timer.start()
    assert timer.running
    assert "hotplate-test-timer" in {t.name for t in threading.enumerate()}
    started = time.monotonic()
    timer.stop()
    assert time.monotonic() - started < 2
    assert not timer.running and not ran.is_set()
