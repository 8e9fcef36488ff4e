"""Parked actions: when each is re-driven, on a fake clock (no thread)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from hotplate.engine.clock import FakeClock
from hotplate.engine.worker.parking import (
    FIRST_DELAY,
    LONGEST_WAIT,
    MAX_DELAY,
    MAX_DELAY_WOKEN,
    REDRIVE_RETRY,
    ParkedAction,
    ParkedActions,
    next_wait,
)

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def action(resource_id: int = 1, *, wake_key: str | None = None, stack_id: str = "s1",
           timeout_mins: int | None = None, started: datetime = START) -> ParkedAction:
    stack = SimpleNamespace(id=stack_id, timeout_mins=timeout_mins, updated_at=None,
                            created_at=started)
    work = SimpleNamespace(stack=stack, traversal_id="t1", is_update=True)
    row = SimpleNamespace(id=resource_id)
    return ParkedAction(work, row, "CREATE", None, None, lambda _: False,  # type: ignore[arg-type]
                        None, lambda *_: None, wake_key=wake_key)  # type: ignore[arg-type,return-value]


class Parking:
    """ParkedActions driven by hand, recording what it re-drives."""

    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.redriven: list[int] = []
        self.parked = ParkedActions(lambda p: self.redriven.append(p.row.id), self.clock,
                                    threaded=False)

    def due_in(self) -> float | None:
        due = self.parked.next_due()
        return None if due is None else (due - self.clock.now()).total_seconds()

    def until_due(self) -> list[int]:
        """Move the clock to the next action due and re-drive it."""
        ahead = self.due_in()
        assert ahead is not None
        self.clock.advance(ahead)
        self.redriven.clear()
        self.parked.redrive_due()
        return list(self.redriven)

    def check_again(self, parked: ParkedAction, **how: Any) -> float | None:
        """Take it (as its re-drive does) and park it after one more check."""
        taken = self.parked.take(parked.row.id, parked.work.traversal_id,
                                 parked.work.is_update)
        assert taken is parked
        self.parked.park(parked, again=True, **how)
        return self.due_in()


@pytest.fixture
def p() -> Parking:
    return Parking()


def test_the_back_off_starts_quick_and_grows_to_a_second(p: Parking) -> None:
    first = action()
    p.parked.park(first)
    waits = [p.due_in()]
    for _ in range(9):
        waits.append(p.check_again(first))
    assert waits == pytest.approx([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.0, 1.0, 1.0])
    assert max(waits) == MAX_DELAY


def test_with_many_parked_the_back_off_spreads_their_checks(p: Parking) -> None:
    for i in range(2, 502):  # 500 others: at 250 checks a second, each every 2 s
        p.parked.park(action(i), asked=3600.0)
    first = action(1)
    p.parked.park(first)
    waits = [p.check_again(first) for _ in range(9)]
    assert waits[-3:] == pytest.approx([1.28, 2.0, 2.0])


def test_an_action_something_wakes_backs_off_to_five_seconds(p: Parking) -> None:
    woken = action(wake_key="child")
    p.parked.park(woken)
    waits = [p.check_again(woken) for _ in range(12)]
    assert waits[-1] == MAX_DELAY_WOKEN and waits[6] == pytest.approx(1.28)


def test_with_many_parked_an_action_something_wakes_is_rechecked_seldom(p: Parking) -> None:
    for i in range(2, 502):  # 500 others: at 25 safety-net checks a second, each every 20 s
        p.parked.park(action(i), asked=3600.0)
    woken = action(1, wake_key="child")
    p.parked.park(woken)
    waits = [p.check_again(woken) for _ in range(14)]
    assert waits[-2:] == pytest.approx([20.0, 20.0]) and waits[8] == pytest.approx(5.12)


def test_a_plugin_saying_when_to_ask_again_is_asked_then(p: Parking) -> None:
    waiting = action()
    p.parked.park(waiting, asked=30.0)
    assert p.due_in() == 30.0
    assert p.until_due() == [1]
    # Its back-off was left where it was: a plain "not yet" goes on from there.
    assert p.check_again(waiting) == pytest.approx(0.02)
    assert p.check_again(waiting, asked=0.0) == FIRST_DELAY  # no busy loop
    # Never, it says: the stack's deadline (an hour unless the stack says) comes first.
    assert p.check_again(waiting, asked=float("inf")) == 3600 - 30


def test_next_check_after_is_the_latest_the_next_check_comes(p: Parking) -> None:
    waiting = action()
    p.parked.park(waiting, asked=30.0, latest=2.5)
    assert p.due_in() == 2.5
    assert p.check_again(waiting, latest=0.0) == 0.0


def test_the_stack_deadline_comes_before_any_wait(p: Parking) -> None:
    late = action(timeout_mins=60, started=START - timedelta(minutes=59, seconds=50))
    p.parked.park(late, asked=600.0)
    assert p.due_in() == 10.0
    p.clock.advance(20)
    p.check_again(late, asked=600.0)
    assert p.due_in() == 0.0  # past it: at once, to fail "Timed out"


def test_only_what_is_due_is_re_driven_and_again_if_its_message_is_lost(p: Parking) -> None:
    p.parked.park(action(1), asked=1.0)
    p.parked.park(action(2), asked=2.0)
    p.parked.park(action(3), asked=2.0)
    assert p.until_due() == [1]
    assert p.until_due() == [2, 3]
    assert p.due_in() == REDRIVE_RETRY - 1.0  # nobody took 1: its message was lost
    assert p.until_due() == [1]


def test_a_taken_action_is_not_re_driven(p: Parking) -> None:
    p.parked.park(action(1), asked=1.0)
    assert p.parked.take(1, "t1", True) is not None  # type: ignore[arg-type]
    assert p.parked.take(1, "t1", True) is None  # type: ignore[arg-type]
    assert p.parked.next_due() is None and len(p.parked) == 0


def test_a_wake_up_re_drives_at_once_and_restarts_the_back_off(p: Parking) -> None:
    woken = action(wake_key="child")
    p.parked.park(woken)
    for _ in range(8):
        p.check_again(woken)
    assert p.parked.wake("child")
    assert p.due_in() == 0.0
    assert p.check_again(woken) == pytest.approx(0.02)
    assert not p.parked.wake("someone else")


def test_a_wake_up_during_the_check_is_not_lost(p: Parking) -> None:
    woken = action(wake_key="child")
    p.parked.park(woken, asked=60.0)
    p.parked.take(1, "t1", True)  # type: ignore[arg-type]
    p.clock.advance(0.5)
    assert not p.parked.wake("child")  # the child ended while it was being checked
    p.parked.park(woken, again=True, asked=60.0)
    assert p.due_in() == 0.0
    p.check_again(woken, asked=60.0)  # used once: the next wait is as asked
    assert p.due_in() == 60.0


def test_a_wake_up_before_the_check_began_is_no_reason_to_check_again(p: Parking) -> None:
    woken = action(wake_key="child")
    assert not p.parked.wake("child")  # the end of an earlier wait on that child
    p.clock.advance(1)
    woken.since = p.clock.now()
    p.parked.park(woken, asked=60.0)
    assert p.due_in() == 60.0


def test_a_cancel_re_drives_at_once_marked_cancelled(p: Parking) -> None:
    mine, other = action(1, stack_id="s1"), action(2, stack_id="s2")
    p.parked.park(mine, asked=60.0)
    p.parked.park(other, asked=60.0)
    assert p.parked.cancel("s1") == 1
    assert p.until_due() == [1]
    assert mine.cancelled and not other.cancelled


def test_a_cancel_during_the_check_is_kept_as_it_parks(p: Parking) -> None:
    cancelled = threading.Event()
    cancelled.set()
    parked = action()
    p.parked.park(parked, asked=60.0, cancelled=cancelled)
    assert parked.cancelled and p.due_in() == 0.0


def test_a_stopped_engine_re_drives_nothing(p: Parking) -> None:
    p.parked.park(action(), asked=0.0)
    p.parked.stop()
    assert p.parked.next_due() is None
    assert p.parked.redrive_due() == 0 and p.redriven == []


def test_next_wait() -> None:
    assert next_wait(0.5, asked=None, latest=None) == 0.5
    assert next_wait(0.5, asked=7, latest=None) == 7
    assert next_wait(0.5, asked=7, latest=3) == 3
    assert next_wait(0.5, asked=None, latest=-1) == 0.0
    assert next_wait(0.5, asked=float("inf"), latest=None) == LONGEST_WAIT


def test_with_a_thread_actions_are_re_driven_on_time() -> None:
    from hotplate.engine.clock import SystemClock

    done = threading.Event()
    parked = ParkedActions(lambda _: done.set(), SystemClock())
    try:
        parked.park(action(), asked=0.05)
        assert done.wait(5)
    finally:
        parked.stop()
