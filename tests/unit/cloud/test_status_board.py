"""The batched waits' bookkeeping (``hotplate.cloud.status_board``): pure, no cloud."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hotplate.cloud.batched_waits import StatusBoard
from hotplate.cloud.status_board import (
    DRIVER_SILENT,
    FAILURES_TO_FALL_BACK,
    FIRST_INTERVAL,
    MAX_INTERVAL,
    PATIENT_UNSEEN_TICKS,
    PUSHED_RECHECK,
    PUSHED_RECHECKS_PER_SECOND,
    STALE_PROBES_PER_TICK,
    STALE_RECORD_TICKS,
    UNSEEN_TICKS,
    WATCH_TTL,
    KeyState,
    back_off,
    next_watermark,
)
from hotplate.resources.openstack.status_listing import (
    MARGIN,
    Listing,
    ListPlan,
    Sighting,
    cloud_time,
    wake_key_of,
)

T0 = datetime(2026, 12, 5, 15, 0, 0, tzinfo=UTC)


def _server(ident: str, status: str, at: datetime) -> dict[str, str]:
    return {"id": ident, "status": status, "updated": at.strftime("%Y-%m-%dT%H:%M:%SZ")}


def _tick(state: KeyState, listing: Listing, now: float) -> bool:
    number, _ = state.begin_tick(now)
    return state.end_tick(number, listing, now)


def test_cloud_time_reads_each_services_format() -> None:
    assert cloud_time("2026-12-05T15:00:00Z") == T0
    assert cloud_time("2026-12-05T15:00:00.000000") == T0  # Cinder: naive, UTC
    assert cloud_time("2026-12-05T16:00:00+01:00") == T0
    assert cloud_time(None) is None and cloud_time("soon") is None


def test_watermark_is_the_newest_change_less_a_margin_and_never_goes_back() -> None:
    assert next_watermark(None, None) is None
    assert next_watermark(None, T0) == T0 - MARGIN
    later = T0 + timedelta(minutes=1)
    assert next_watermark(T0 - MARGIN, later) == later - MARGIN
    assert next_watermark(later - MARGIN, T0) == later - MARGIN


def test_watermark_comes_from_the_clouds_records_not_the_engine() -> None:
    state = KeyState()
    state.register("a", 100.0)
    _tick(state, Listing({"a": _server("a", "BUILD", T0)}), 100.0)
    assert state.watermark == T0 - MARGIN
    state.register("b", 101.0)
    _tick(state, Listing({}, newest=T0 + timedelta(seconds=30)), 102.0)
    assert state.watermark == T0 + timedelta(seconds=25)


def test_a_check_hears_only_from_a_tick_started_after_it_registered() -> None:
    state = KeyState()
    state.register("a", 0.0)
    number, _ = state.begin_tick(0.0)  # in flight when b registers
    ticket_b = state.register("b", 0.1)
    listing = Listing({"a": _server("a", "ACTIVE", T0), "b": _server("b", "ACTIVE", T0)})
    state.end_tick(number, listing, 0.2)
    assert state.read("a", 0, 0.2).record is not None
    stale = state.read("b", ticket_b, 0.2)
    assert stale.record is None and not stale.gone  # b's news must postdate its action
    _tick(state, Listing({}), 2.0)
    assert state.read("b", ticket_b, 2.0).record == listing.records["b"]  # unchanged since


def test_one_tick_answers_every_wait_and_the_next_is_announced() -> None:
    state = KeyState()
    tickets = {i: state.register(i, 0.0) for i in ("a", "b", "c")}
    assert state.tick_due(0.0)
    _tick(state, Listing({i: _server(i, "BUILD", T0) for i in "abc"}), 0.0)
    assert not state.tick_due(0.5)
    for ident, ticket in tickets.items():
        seen = state.read(ident, ticket, 0.5)
        assert seen.record is not None and seen.record["status"] == "BUILD"
        assert 0.5 <= seen.after <= FIRST_INTERVAL  # parked until the next tick


def test_back_off_grows_while_nothing_moves_and_resets_on_change() -> None:
    assert back_off(FIRST_INTERVAL, moved=True) == FIRST_INTERVAL
    assert back_off(MAX_INTERVAL, moved=False) == MAX_INTERVAL
    state = KeyState()
    state.register("a", 0.0)
    now = 0.0
    building = Listing({"a": _server("a", "BUILD", T0)})
    assert _tick(state, building, now)
    intervals = []
    for _ in range(6):
        now = state.due
        assert not _tick(state, building, now)
        intervals.append(state.interval)
    assert intervals == sorted(intervals) and intervals[-1] == MAX_INTERVAL
    now = state.due
    assert _tick(state, Listing({"a": _server("a", "ACTIVE", T0 + timedelta(seconds=9))}), now)
    assert state.interval == FIRST_INTERVAL
    state.register("b", now + 0.1)  # a new wait is answered soon too
    assert state.due <= now + 0.1 + FIRST_INTERVAL


def test_gone_from_an_exact_list_or_deleted_reads_as_gone() -> None:
    state = KeyState()
    ticket = state.register("v", 0.0, until_gone=True)
    _, plan = state.begin_tick(0.0)
    assert plan.exact == {"v"}
    state.end_tick(state.started, Listing({}, gone=frozenset({"v"})), 0.0)
    seen = state.read("v", ticket, 0.1)
    assert seen.gone and seen.record is None


@pytest.mark.parametrize(
    ("patient", "ticks"),
    [
        (False, UNSEEN_TICKS),
        # a volume just made, not yet touched by Cinder: its change will be listed
        (True, PATIENT_UNSEEN_TICKS),
    ],
)
def test_an_id_never_listed_is_probed_after_some_ticks(patient: bool, ticks: int) -> None:
    state = KeyState()
    state.register("old", 0.0, patient=patient)
    now = 0.0
    for _ in range(ticks):
        number, plan = state.begin_tick(now)
        assert not plan.probe
        state.end_tick(number, Listing({}), now)
        now = state.due
    _, plan = state.begin_tick(now)
    assert plan.probe == {"old"}


@pytest.mark.parametrize("until_gone", [False, True])
def test_a_wait_holding_a_record_is_probed_once_unlisted_that_long(until_gone: bool) -> None:
    # a change can escape every changes list (committed late on a loaded cloud; a server
    # deleted before Nova scheduled it): the BUILD heard must not stand for it for ever
    state = KeyState()
    state.register("s", 0.0)
    assert _tick(state, Listing({"s": _server("s", "BUILD", T0)}), 0.0)
    state.register("s", 1.0, until_gone=until_gone)
    now = 1.0
    for tick in range(STALE_RECORD_TICKS):
        number, plan = state.begin_tick(now)
        assert not plan.probe
        listed = {"s": _server("s", "BUILD", T0)} if tick == 0 else {}
        state.end_tick(number, Listing(listed), now)  # a listing restarts the count
        now = state.due
    number, plan = state.begin_tick(now)
    assert not plan.probe
    state.end_tick(number, Listing({}), now)
    _, plan = state.begin_tick(state.due)
    assert plan.probe == {"s"}


@pytest.mark.parametrize("heard", [True, False])
def test_with_many_waits_probes_of_stale_or_patient_ones_average_two_a_tick(heard: bool
                                                                            ) -> None:
    state = KeyState()
    waits = 10 * STALE_RECORD_TICKS
    for n in range(waits):
        state.register(f"s{n}", 0.0, patient=not heard)
    listed = {f"s{n}": _server(f"s{n}", "BUILD", T0) for n in range(waits)} if heard else {}
    _tick(state, Listing(listed), 0.0)
    probes, now = [], 1.0
    for _ in range(waits):  # nothing listed again: every wait goes stale in turn
        for watch in state.watches.values():  # their checks still read (they do not expire)
            watch.read_at = now
        number, plan = state.begin_tick(now)
        probes.append(len(plan.probe))
        state.end_tick(number, Listing(), now)
        now = state.due
    stale_after = waits // STALE_PROBES_PER_TICK - (0 if heard else 1)
    assert probes[:stale_after] == [0] * stale_after and probes[stale_after] > 0


def test_a_failed_tick_is_no_news_and_backs_off() -> None:
    state = KeyState()
    ticket = state.register("a", 0.0)
    state.begin_tick(0.0)
    state.fail_tick(0.0)
    seen = state.read("a", ticket, 0.0)
    assert seen.record is None and not seen.gone
    assert not state.in_flight and state.interval > FIRST_INTERVAL


def test_a_wait_nobody_reads_expires() -> None:
    state = KeyState()
    state.register("a", 0.0)
    state.register("b", 0.0)
    state.read("b", 0, WATCH_TTL)
    state.begin_tick(WATCH_TTL + 1)
    assert set(state.watches) == {"b"}


def test_lists_failing_tick_after_tick_hand_the_checks_back_their_own_gets() -> None:
    state = KeyState()
    state.register("a", 0.0)
    for n in range(FAILURES_TO_FALL_BACK):
        assert state.serving
        state.begin_tick(float(n))
        state.fail_tick(float(n))
    assert not state.serving
    _tick(state, Listing({"a": _server("a", "BUILD", T0)}), 99.0)
    assert state.serving


def test_pushed_one_wait_drives_the_ticks_and_the_others_sleep_until_news() -> None:
    state = KeyState()
    for ident in ("a", "b", "c"):
        state.register(ident, 0.0)
    assert state.read("a", 0, 0.0, pushed=True).after < FIRST_INTERVAL + 1  # the driver
    assert state.read("b", 0, 0.0, pushed=True).after == PUSHED_RECHECK
    assert state.read("c", 0, 0.0).after < FIRST_INTERVAL + 1  # not pushed: every tick
    _tick(state, Listing({"a": _server("a", "BUILD", T0), "b": _server("b", "BUILD", T0)}), 1.0)
    assert state.woken() == ["a", "b"]  # their first news; c was not listed: still none
    for ident in ("a", "b", "c"):
        state.read(ident, 0, 1.0, pushed=True)
    assert state.woken() == []
    _tick(state, Listing({"a": _server("a", "BUILD", T0), "b": _server("b", "BUILD", T0)}), 2.0)
    assert state.woken() == []  # listed again, unchanged: nobody is woken
    _tick(state, Listing({"b": _server("b", "ACTIVE", T0 + timedelta(seconds=9))}), 3.0)
    assert state.woken() == ["b"]


def test_pushed_with_many_waits_the_safety_net_is_longer() -> None:
    state = KeyState()
    for n in range(500):
        state.register(f"s{n}", 0.0)
    state.read("s0", 0, 0.0, pushed=True)  # the driver
    assert state.read("s1", 0, 0.0, pushed=True).after == 500 / PUSHED_RECHECKS_PER_SECOND
    for n in range(500, 3000):
        state.register(f"s{n}", 0.0)
    assert state.read("s1", 0, 0.0, pushed=True).after == WATCH_TTL / 2  # read ere it expires


def test_pushed_a_deletion_wakes_its_wait() -> None:
    state = KeyState()
    state.register("a", 0.0, until_gone=True)
    state.read("a", 0, 0.0, pushed=True)
    _tick(state, Listing({}, gone=frozenset({"a"})), 1.0)
    assert state.woken() == ["a"]
    assert state.read("a", 0, 1.0, pushed=True).gone and state.woken() == []


def test_pushed_the_driver_hands_over_when_done_or_silent() -> None:
    state = KeyState()
    for ident in ("a", "b", "c"):
        state.register(ident, 0.0)
        state.read(ident, 0, 0.0, pushed=True)
    assert state.driver == "a"
    assert state.forget("b") is None  # not the driver: nobody to wake
    assert state.forget("a") == "c" and state.driver is None
    assert state.read("c", 0, 1.0, pushed=True).after < PUSHED_RECHECK
    state.register("d", 1.0)
    assert state.read("d", 0, 2.0, pushed=True).after == PUSHED_RECHECK
    assert state.read("d", 0, 3.0 + DRIVER_SILENT, pushed=True).after < PUSHED_RECHECK
    assert state.driver == "d"


def test_pushed_lists_failing_wake_every_wait_to_ask_by_itself() -> None:
    state = KeyState()
    state.register("a", 0.0)
    woken = []
    for n in range(FAILURES_TO_FALL_BACK + 1):
        state.begin_tick(float(n))
        woken.append(state.fail_tick(float(n)))
    assert woken[:-2] == [[]] * (FAILURES_TO_FALL_BACK - 1)
    assert woken[-2:] == [["a"], []]  # once, as the board stops serving


class _Cloud:
    """Just enough of ``hotplate.cloud.Cloud`` for the board's key."""

    def project_identity(self) -> str:
        return "project@RegionOne"


class _Lister:
    """A service that answers every id with ``status``; counts the board's calls."""

    service = "test-things"

    def __init__(self) -> None:
        self.calls: list[ListPlan] = []
        self.status = "BUILD"

    def endpoint(self, cloud: object) -> str:
        return "http://cloud.test/things"

    def list(self, cloud: object, plan: ListPlan) -> Listing:
        self.calls.append(plan)
        time.sleep(0.05)  # the other checks arrive while the call is in flight
        return Listing({i: _server(i, self.status, T0) for i in plan.watched})


def test_one_list_call_a_tick_answers_every_check_of_a_project() -> None:
    clock = [0.0]
    board = StatusBoard(clock=lambda: clock[0])
    lister, cloud = _Lister(), _Cloud()
    tickets = {f"s{n}": board.watch(cloud, lister, f"s{n}") for n in range(20)}
    seen: dict[str, Any] = {}

    def check(ident: str) -> None:
        seen[ident] = board.look(cloud, lister, ident, tickets[ident] or 0)

    threads = [threading.Thread(target=check, args=(i,)) for i in tickets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(lister.calls) == 1 and lister.calls[0].watched == set(tickets)
    assert all(_status(s) == "BUILD" for s in seen.values())
    lister.status = "ACTIVE"
    clock[0] = 0.5  # not due yet: what the last tick said, no call
    assert _status(board.look(cloud, lister, "s0", 0)) == "BUILD"
    clock[0] = 1.1
    assert _status(board.look(cloud, lister, "s0", 0)) == "ACTIVE"
    assert _status(board.look(cloud, lister, "s1", 0)) == "ACTIVE"
    assert len(lister.calls) == 2


def test_pushed_a_tick_wakes_the_checks_it_has_news_for_by_their_wake_keys() -> None:
    clock = [0.0]
    board = StatusBoard(clock=lambda: clock[0])
    woken: list[str] = []
    board.wake_with(woken.append)
    lister, cloud = _Lister(), _Cloud()
    tickets = {i: board.watch(cloud, lister, i) or 0 for i in ("s0", "s1", "s2")}
    first = board.look(cloud, lister, "s0", tickets["s0"])  # runs the first tick
    assert first is not None and first.after < PUSHED_RECHECK  # s0 drives
    assert woken == [wake_key_of("test-things", i) for i in ("s0", "s1", "s2")]
    for ident in ("s1", "s2"):
        seen = board.look(cloud, lister, ident, tickets[ident])
        assert seen is not None and seen.after == PUSHED_RECHECK
    woken.clear()
    clock[0] = 1.1
    lister.status = "ACTIVE"
    board.look(cloud, lister, "s0", tickets["s0"])
    assert sorted(woken) == [wake_key_of("test-things", i) for i in ("s0", "s1", "s2")]
    woken.clear()
    board.forget(cloud, lister, "s0")  # the driver is done: the next wait takes over
    assert woken == [wake_key_of("test-things", "s1")]


class _SlottedCloud:
    """A cloud object that takes no weak reference."""

    __slots__ = ()

    def project_identity(self) -> str:
        return "project@RegionOne"


def test_a_cloud_that_takes_no_weakref_is_keyed_each_time() -> None:
    clock = [0.0]
    board = StatusBoard(clock=lambda: clock[0])
    lister, cloud = _Lister(), _SlottedCloud()
    ticket = board.watch(cloud, lister, "s0")
    assert ticket is not None
    assert _status(board.look(cloud, lister, "s0", ticket)) == "BUILD"
    assert _status(board.look(cloud, lister, "s0", ticket)) == "BUILD"
    assert len(lister.calls) == 1


def _status(seen: Sighting | None) -> Any:
    assert seen is not None and seen.record is not None
    return seen.record["status"]
