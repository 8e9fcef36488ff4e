"""The legacy engine's stack lock on every backend: one engine takes it, a loser learns
the holder, a dead holder's lock is stolen once, and only its holder releases it."""

from __future__ import annotations

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId
from tests.integration.helpers import FakeClock, make_stack, race

A = EngineId("11111111-1111-4111-8111-111111111111")
B = EngineId("22222222-2222-4222-8222-222222222222")
C = EngineId("33333333-3333-4333-8333-333333333333")


def test_one_engine_takes_the_lock_and_the_others_learn_who(store: SqlStore,
                                                           clock: FakeClock) -> None:
    stack = make_stack(store, clock, convergence=False)
    assert store.stack_lock_holder(stack.id) is None
    assert store.acquire_stack_lock(stack.id, A) is None
    assert store.acquire_stack_lock(stack.id, B) == A
    assert store.acquire_stack_lock(stack.id, A) == A  # held already: not taken twice
    assert store.stack_lock_holder(stack.id) == A


def test_engines_racing_for_the_lock_one_wins(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock, convergence=False)
    engines = [EngineId(f"{i:08d}-0000-4000-8000-000000000000") for i in range(8)]
    answers = race(8, lambda i: store.acquire_stack_lock(stack.id, engines[i]))
    winners = [engines[i] for i, answer in enumerate(answers) if answer is None]
    assert len(winners) == 1
    assert all(answer == winners[0] for answer in answers if answer is not None)
    assert store.stack_lock_holder(stack.id) == winners[0]


def test_a_dead_holders_lock_is_stolen_once(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock, convergence=False)
    store.acquire_stack_lock(stack.id, A)
    stolen = race(6, lambda i: store.steal_stack_lock(stack.id, A, B if i % 2 else C))
    assert sum(stolen) == 1
    holder = store.stack_lock_holder(stack.id)
    assert holder in (B, C)
    assert store.steal_stack_lock(stack.id, A, B) is False  # A holds nothing any more
    assert store.release_stack_lock(stack.id, A) is False  # the fenced holder cannot
    assert store.stack_lock_holder(stack.id) == holder


def test_only_the_holder_releases_and_then_anyone_may_take_it(store: SqlStore,
                                                             clock: FakeClock) -> None:
    stack = make_stack(store, clock, convergence=False)
    other = make_stack(store, clock, convergence=False)
    store.acquire_stack_lock(stack.id, A)
    store.acquire_stack_lock(other.id, A)
    assert store.release_stack_lock(stack.id, B) is False
    assert store.release_stack_lock(stack.id, A) is True
    assert store.release_stack_lock(stack.id, A) is False  # released once
    assert store.stack_lock_holder(stack.id) is None
    assert store.stack_lock_holder(other.id) == A  # the other stack's lock untouched
    assert store.acquire_stack_lock(stack.id, B) is None
    assert store.stack_lock_holder(stack.id) == B
