"""A scaling group's arithmetic and cooldown bookkeeping (pure): Heat's cases."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from hotplate.resources import scaling
from hotplate.resources.nested import ChildMember
from hotplate.resources.scaling import (
    CHANGE_IN_CAPACITY,
    EXACT_CAPACITY,
    PERCENT_CHANGE_IN_CAPACITY,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, 250000, tzinfo=UTC)


def _at(seconds: float) -> str:
    return scaling.timestamp(NOW + timedelta(seconds=seconds))


# Heat's heat/tests/autoscaling/test_new_capacity.py scenarios:
# (current, adjustment, type, min_adjustment_step, minimum, maximum, expected)
CAPACITY_CASES = [
    (2, 3, CHANGE_IN_CAPACITY, None, 0, 10, 5),
    (6, -2, CHANGE_IN_CAPACITY, None, 0, 5, 4),
    (2, 8, CHANGE_IN_CAPACITY, None, 0, 5, 5),
    (2, -10, CHANGE_IN_CAPACITY, None, 1, 5, 1),
    (2, 4, EXACT_CAPACITY, None, 0, 5, 4),
    (2, 11, EXACT_CAPACITY, None, 0, 5, 5),
    (4, 1, EXACT_CAPACITY, None, 3, 5, 3),
    (4, 50, PERCENT_CHANGE_IN_CAPACITY, None, 1, 10, 6),
    (4, -25, PERCENT_CHANGE_IN_CAPACITY, None, 1, 10, 3),
    (4, 100, PERCENT_CHANGE_IN_CAPACITY, None, 1, 6, 6),
    (6, -50, PERCENT_CHANGE_IN_CAPACITY, None, 4, 10, 4),
    (2, -33, PERCENT_CHANGE_IN_CAPACITY, None, 0, 10, 1),   # -0.66 rounds away: -1
    (1, 33, PERCENT_CHANGE_IN_CAPACITY, None, 0, 10, 2),    # +0.33 rounds away: +1
    (2, -66, PERCENT_CHANGE_IN_CAPACITY, None, 0, 10, 1),   # -1.32 rounds in: -1
    (1, 225, PERCENT_CHANGE_IN_CAPACITY, None, 0, 10, 3),   # +2.25 rounds in: +2
    (1, 100, PERCENT_CHANGE_IN_CAPACITY, 3, 0, 10, 4),
    (1, 33, PERCENT_CHANGE_IN_CAPACITY, 2, 0, 10, 3),
    (1, 325, PERCENT_CHANGE_IN_CAPACITY, 2, 0, 10, 4),
    (3, -25, PERCENT_CHANGE_IN_CAPACITY, 2, 0, 10, 1),
    (3, 1, "ChangeInCapacity", None, 0, 10, 4),
    (3, 1, "ExactCapacity", None, 0, 10, 1),
]


@pytest.mark.parametrize(("current", "adjustment", "kind", "step", "low", "high", "expected"),
                         CAPACITY_CASES)
def test_new_capacity_as_heat_computes_it(current: int, adjustment: int, kind: str,
                                          step: int | None, low: int, high: int,
                                          expected: int) -> None:
    assert scaling.new_capacity(current, adjustment, kind, step, low, high) == expected


def test_a_zero_percentage_changes_nothing() -> None:
    assert scaling.new_capacity(3, 0, PERCENT_CHANGE_IN_CAPACITY, None, 0, 10) == 3


@pytest.mark.parametrize(("metadata", "cooldown", "blocked"), [
    ({}, 60, False),
    ({"scaling_in_progress": True}, 0, True),
    ({"scaling_in_progress": False, "cooldown_end": {_at(60): "r"}}, 60, True),
    ({"cooldown_end": {_at(60): "r"}}, 0, True),           # the stored end counts, not ours
    ({"cooldown_end": {_at(-1): "r"}}, 600, False),
    ({"cooldown_end": {"not a time": "r"}}, 60, False),
    ({"cooldown": {_at(-30): "r"}}, 60, True),              # Heat's older key
    ({"cooldown": {_at(-100): "r"}}, 60, False),
    ({"cooldown": {_at(0): "r"}}, 0, False),
    ({_at(-30): "r", "scaling_in_progress": False}, 60, True),  # older still: a bare key
    ({_at(-100): "r", "scaling_in_progress": False}, 60, False),
    ({_at(-30): "r"}, None, False),
])
def test_when_a_scaling_action_may_start(metadata: dict[str, object], cooldown: int | None,
                                         blocked: bool) -> None:
    assert (scaling.blocked_reason(metadata, cooldown, NOW) is not None) is blocked


def test_the_reasons_are_heats() -> None:
    assert (scaling.blocked_reason({"scaling_in_progress": True}, 5, NOW)
            == "due to scaling activity")
    assert (scaling.blocked_reason({"cooldown_end": {_at(5): "r"}}, 5, NOW)
            == "due to cooldown, cooldown 5")
    assert (scaling.blocked_reason({"cooldown_end": {_at(5): "r"}}, None, NOW)
            == "due to cooldown, cooldown 0")


def test_started_and_finished_scaling_metadata() -> None:
    started = scaling.scaling_started({"other": 1})
    assert started == {"other": 1, "scaling_in_progress": True}
    done = scaling.scaling_finished(started, 60, "change_in_capacity : 1", NOW)
    assert done == {"other": 1, "scaling_in_progress": False,
                    "cooldown_end": {"2026-01-01T12:01:00.250000": "change_in_capacity : 1"}}


def test_a_later_stored_end_is_kept_with_the_new_reason() -> None:
    previous = {"cooldown_end": {_at(100): "change_in_capacity : 1"}}
    done = scaling.scaling_finished(previous, 60, "cool as", NOW)
    assert done == {"cooldown_end": {_at(100): "cool as"}, "scaling_in_progress": False}
    sooner = scaling.scaling_finished({"cooldown_end": {_at(10): "x"}}, 60, "y", NOW)
    assert sooner["cooldown_end"] == {_at(60): "y"}


def test_a_failed_resize_starts_no_cooldown() -> None:
    previous = {"cooldown_end": {_at(-5): "x"}, "scaling_in_progress": True}
    done = scaling.scaling_finished(previous, 60, "y", NOW, size_changed=False)
    assert done == {"cooldown_end": {_at(-5): "x"}, "scaling_in_progress": False}


def test_a_negative_or_missing_cooldown_ends_now() -> None:
    assert scaling.scaling_finished({}, -5, "r", NOW)["cooldown_end"] == {_at(0): "r"}
    assert scaling.scaling_finished({}, None, "r", NOW)["cooldown_end"] == {_at(0): "r"}


def test_timestamps_are_naive_utc_iso() -> None:
    assert scaling.timestamp(datetime(2026, 1, 1, 13, 0, tzinfo=UTC)) == "2026-01-01T13:00:00"
    assert scaling.timestamp(datetime(2026, 1, 1, 13, 0, 0, 5)) == "2026-01-01T13:00:00.000005"


def test_reset_clears_only_an_unfinished_scaling() -> None:
    assert scaling.reset({"scaling_in_progress": True, "a": 1}) == {
        "scaling_in_progress": False, "a": 1}
    assert scaling.reset({"a": 1}) is None


@pytest.mark.parametrize(("source", "expected"), [
    ("9f1c2b6e-5a4d-4e3b-8c7a-1d2e3f405162", "4o22jwpryk3o"),   # as Heat's get_id gives
    ("00000000-0000-4000-8000-000000000000", "aaaaaaaaaaaa"),
    ("ffffffff-ffff-4fff-bfff-ffffffffffff", "777777777777"),
])
def test_short_ids_as_heats(source: str, expected: str) -> None:
    assert scaling.short_id(uuid.UUID(source)) == expected


def test_short_ids_need_a_random_uuid() -> None:
    with pytest.raises(ValueError, match="Invalid UUID version"):
        scaling.short_id(uuid.UUID("00000000-0000-1000-8000-000000000000"))


def test_members_failed_first_then_oldest_by_the_second_then_by_name() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)

    def member(name: str, seconds: float, status: str = "COMPLETE") -> ChildMember:
        return ChildMember(name, "T", "CREATE", status, name, t0 + timedelta(seconds=seconds))

    members = [member("d", 2), member("c", 0.1), member("b", 0.9), member("z", 5, "FAILED"),
               member("a", 1)]
    assert [m.name for m in sorted(members, key=scaling.member_order)] == [
        "z", "b", "c", "a", "d"]


@pytest.mark.parametrize(("target", "capacity", "size", "in_service", "expected"), [
    (3, 3, 1, 0, [(3, 1), (3, 1), (3, 1)]),
    (4, 4, 2, 0, [(4, 2), (4, 2)]),
    (2, 2, 1, 2, [(3, 1), (3, 1), (2, 0)]),   # Heat's InstanceGroup, not ResourceGroup, count
    (0, 0, 1, 0, []),
])
def test_rolling_batches_as_heats_instance_group(target: int, capacity: int, size: int,
                                                 in_service: int,
                                                 expected: list[tuple[int, int]]) -> None:
    assert list(scaling.rolling_batches(target, capacity, size, in_service)) == expected
