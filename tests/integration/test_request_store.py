"""The request ledger on every backend: one claim wins a request id, the answer is
kept, a released claim may be made again, a dead engine's claim is taken over once,
and old requests are forgotten."""

from __future__ import annotations

from datetime import timedelta

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId
from hotplate.model.requests import RequestState
from tests.integration.helpers import FakeClock, race

A = EngineId("11111111-1111-4111-8111-111111111111")
B = EngineId("22222222-2222-4222-8222-222222222222")


def test_one_claim_wins_and_the_answer_is_kept(store: SqlStore) -> None:
    assert store.claim_request("req-1", "create_stack", "f1", A) is None
    found = store.claim_request("req-1", "create_stack", "f1", B)
    assert found is not None and found.engine_id == A
    assert found.state is RequestState.RUNNING and found.fingerprint == "f1"
    assert store.answer_request("req-1", B, {"result": 1}) is False  # not B's claim
    answer = {"result": {"stack_id": "x", "nested": [1, None, "é"]}}
    assert store.answer_request("req-1", A, answer) is True
    kept = store.get_request("req-1")
    assert kept is not None and kept.state is RequestState.ANSWERED and kept.answer == answer
    assert store.answer_request("req-1", A, {"result": 2}) is False  # answered once


def test_claims_at_once_one_wins(store: SqlStore) -> None:
    won = race(8, lambda i: store.claim_request("req-race", "delete_stack", "f", A))
    assert sum(found is None for found in won) == 1


def test_a_released_claim_may_be_made_again(store: SqlStore) -> None:
    store.claim_request("req-2", "update_stack", "f", A)
    assert store.release_request("req-2", B) is False
    assert store.release_request("req-2", A) is True
    assert store.get_request("req-2") is None
    assert store.claim_request("req-2", "update_stack", "f", B) is None


def test_a_dead_engines_claim_is_taken_over_once(store: SqlStore) -> None:
    store.claim_request("req-3", "create_stack", "f", A)
    taken = race(4, lambda i: store.take_over_request("req-3", A, B))
    assert sum(taken) == 1
    assert store.answer_request("req-3", A, {"result": None}) is False  # A was fenced
    assert store.answer_request("req-3", B, {"result": None}) is True
    assert store.take_over_request("req-3", B, A) is False  # answered: nothing to take


def test_old_requests_are_forgotten(store: SqlStore, clock: FakeClock) -> None:
    store.claim_request("req-old", "stack_check", "f", A)
    clock.sleep(7200)
    store.claim_request("req-new", "stack_check", "f", A)
    assert store.forget_requests(clock.now() - timedelta(hours=1)) == 1
    assert store.get_request("req-old") is None and store.get_request("req-new") is not None
