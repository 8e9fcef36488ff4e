"""Rolling-update batches: the sizes and changes Heat's arithmetic gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hotplate.resources.rolling_update import batches, member_definitions


def test_update_in_place_in_batches_of_three() -> None:
    assert list(batches(10, 10, 3, 1)) == [(10, 3), (10, 3), (10, 3), (10, 1)]


def test_scale_down_shrinks_first_then_updates() -> None:
    assert list(batches(6, 10, 3, 1)) == [(6, 3), (6, 3)]


def test_min_in_service_above_target_keeps_old_members_until_the_end() -> None:
    assert list(batches(6, 10, 4, 8)) == [(10, 4), (8, 2), (6, 0)]


def test_scale_up_adds_new_members_in_the_batches() -> None:
    assert list(batches(12, 10, 3, 1)) == [(12, 3), (12, 3), (12, 3), (12, 3)]


def test_batch_create_grows_from_nothing() -> None:
    assert list(batches(5, 0, 2, 0)) == [(2, 2), (4, 2), (5, 1)]


@given(target=st.integers(0, 30), current=st.integers(0, 30), size=st.integers(1, 10),
       in_service=st.integers(0, 40))
def test_batches_end_at_the_target_size(target: int, current: int, size: int,
                                        in_service: int) -> None:
    planned = list(batches(target, current, size, in_service))
    assert len(planned) <= target + current + 2
    if planned:
        assert planned[-1][0] == target
    assert all(changed <= size for _, changed in planned)


def test_member_definitions_replace_first_listed_and_keep_the_last() -> None:
    old = [("3", {"v": 1}), ("2", {"v": 1}), ("1", {"v": 1}), ("0", {"v": 1})]
    names = iter(["4", "5"])
    got = list(member_definitions(old, lambda n: {"v": 2}, 3, 2, lambda: next(names)))
    assert got == [("2", {"v": 2}), ("1", {"v": 2}), ("0", {"v": 1})]


def test_member_definitions_add_new_members_for_a_shortfall() -> None:
    names = iter(["1", "2"])
    got = list(member_definitions([("0", {"v": 1})], lambda n: {"v": 2, "n": n}, 3, 2,
                                  lambda: next(names)))
    assert got == [("0", {"v": 1}), ("1", {"v": 2, "n": "1"}), ("2", {"v": 2, "n": "2"})]
