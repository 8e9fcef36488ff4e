"""The Store contract, part 4: races. N threads, released together, one winner.

Each race runs a few rounds, on real connections of every backend.
"""

from __future__ import annotations

from collections import Counter

import pytest

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId, TraversalId
from hotplate.model.records import NewSyncPoint, SyncOutcome
from hotplate.model.states import Action, Status
from tests.integration.helpers import (
    FakeClock,
    event_for,
    make_resource,
    make_stack,
    new_id,
    new_resource,
    race,
)

N = 16
ROUNDS = 3
IN_PROGRESS = {"action": Action.UPDATE, "status": Status.IN_PROGRESS}


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_one_engine_gets_the_resource_lock(store: SqlStore, clock: FakeClock, round_: int) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    engines = [EngineId(new_id()) for _ in range(N)]
    got = race(
        N, lambda i: store.acquire_resource(rid, engines[i], 0, IN_PROGRESS, event_for(stack))
    )
    winners = [row for row in got if row is not None]
    assert len(winners) == 1
    held = store.get_resource(rid)
    assert held is not None and held.engine_id == winners[0].engine_id and held.atomic_key == 1
    assert len(store.list_events(stack.id)) == 1


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_a_wide_fan_in_fires_exactly_once_with_every_input(
    store: SqlStore, clock: FakeClock, round_: int
) -> None:
    stack = make_stack(store, clock)
    t = stack.current_traversal
    store.create_sync_points(stack.id, t, [NewSyncPoint("99", True, N)])
    results = race(N, lambda i: store.sync(t, "99", True, f"{i}:u", {"from": i}))
    outcomes = Counter(r.outcome for r in results)
    assert outcomes == {SyncOutcome.READY: 1, SyncOutcome.WAITING: N - 1}
    [ready] = [r for r in results if r.outcome is SyncOutcome.READY]
    assert ready.inputs == {f"{i}:u": {"from": i} for i in range(N)}


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_duplicated_senders_do_not_decrement_twice(
    store: SqlStore, clock: FakeClock, round_: int
) -> None:
    stack = make_stack(store, clock)
    t = stack.current_traversal
    senders = N // 2
    # One more predecessor than senders: if any duplicate decremented, this would fire.
    store.create_sync_points(stack.id, t, [NewSyncPoint("5", False, senders + 1)])
    results = race(N, lambda i: store.sync(t, "5", False, f"s{i % senders}", i % senders))
    outcomes = Counter(r.outcome for r in results)
    assert outcomes == {SyncOutcome.WAITING: senders, SyncOutcome.DUPLICATE: senders}
    last = store.sync(t, "5", False, "last", None)
    assert last.outcome is SyncOutcome.READY
    assert last.inputs == {**{f"s{i}": i for i in range(senders)}, "last": None}


def test_reports_racing_a_new_traversal_never_fire_after_it(
    store: SqlStore, clock: FakeClock
) -> None:
    stack = make_stack(store, clock)
    old, new = stack.current_traversal, TraversalId(new_id())
    store.create_sync_points(stack.id, old, [NewSyncPoint("1", True, N)])
    store.create_sync_points(stack.id, new, [NewSyncPoint("1", True, 1)])

    def attempt(i: int) -> SyncOutcome:
        if i == 0:
            store.delete_sync_points(stack.id, keep_traversal=new)
            return SyncOutcome.MISSING
        return store.sync(old, "1", True, f"{i}", i).outcome

    outcomes = Counter(race(N, attempt))
    assert SyncOutcome.READY not in outcomes  # one sender (the deleter) never reported
    assert set(outcomes) <= {SyncOutcome.WAITING, SyncOutcome.MISSING}
    assert store.sync(old, "1", True, "late", 0).outcome is SyncOutcome.MISSING
    assert store.sync(new, "1", True, "x", 0).outcome is SyncOutcome.READY


@pytest.mark.parametrize("with_key", [True, False], ids=["atomic_key", "engine_id"])
def test_one_replacement_per_old_row(store: SqlStore, clock: FakeClock, with_key: bool) -> None:
    stack = make_stack(store, clock)
    old = make_resource(store, stack)
    engine = EngineId(new_id())
    assert store.acquire_resource(old, engine, 0, IN_PROGRESS)
    key = 1 if with_key else None
    made = race(
        N,
        lambda i: store.make_replacement(
            old, new_resource(stack), expected_engine_id=engine, expected_atomic_key=key
        ),
    )
    winners = [rid for rid in made if rid is not None]
    assert len(winners) == 1
    rows = store.list_resources(stack.id)
    assert sorted(r.id for r in rows) == sorted([old, winners[0]])
    old_row = store.get_resource(old)
    assert old_row is not None and old_row.replaced_by == winners[0]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_one_traversal_swap_wins(store: SqlStore, clock: FakeClock, round_: int) -> None:
    stack = make_stack(store, clock)
    proposals = [TraversalId(new_id()) for _ in range(N)]
    won = race(
        N,
        lambda i: store.update_stack_if_traversal(
            stack.id,
            stack.current_traversal,
            {"current_traversal": proposals[i], "action": Action.UPDATE},
            event_for(stack, stack.name, resource_action="UPDATE"),
        ),
    )
    assert won.count(True) == 1
    loaded = store.get_stack(stack.id)
    assert loaded is not None and loaded.current_traversal == proposals[won.index(True)]
    assert len(store.list_events(stack.id)) == 1


def test_many_resources_locked_and_released_concurrently(
    store: SqlStore, clock: FakeClock
) -> None:
    """Independent rows do not contend: every engine gets its own resource."""
    stack = make_stack(store, clock)
    rids = store.create_resources([new_resource(stack, f"r{i}") for i in range(N)])
    engines = [EngineId(new_id()) for _ in range(N)]

    def work(i: int) -> bool:
        got = store.acquire_resource(rids[i], engines[i], 0, IN_PROGRESS, event_for(stack))
        done = store.update_resource_locked(
            rids[i],
            engines[i],
            {"status": Status.COMPLETE, "attr_data": {"i": i}},
            event_for(stack),
            release=True,
        )
        return got is not None and done is not None

    assert all(race(N, work))
    assert store.engines_holding_locks(stack.id) == set()
    assert len(store.list_events(stack.id)) == 2 * N
