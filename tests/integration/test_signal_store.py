"""The signal store on every backend: a signal kept before it is answered, a repeated
id refused, the metadata written with the applied mark in one compare-and-swap, and
an unapplied signal claimed again by exactly one engine."""

from __future__ import annotations

from datetime import timedelta

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.signals import MetadataWrite
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, make_resource, make_stack, race

ENGINE = EngineId("11111111-1111-4111-8111-111111111111")


def test_a_repeated_id_is_refused(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    first = store.record_signal(stack.id, rid, "a", {"id": "a", "data": [1, {"x": None}]})
    assert first is not None and first.applied_at is None
    assert store.record_signal(stack.id, rid, "a", {"id": "a", "other": True}) is None
    other = make_resource(store, stack, "other")
    assert store.record_signal(stack.id, other, "a", None) is not None  # per resource
    found = store.get_signal(rid, "a")
    assert found is not None and found.details == {"id": "a", "data": [1, {"x": None}]}
    assert [s.signal_id for s in store.list_signals(rid)] == ["a"]


def test_signals_with_one_id_at_once_store_one(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    stored = race(8, lambda i: store.record_signal(stack.id, rid, "same", {"n": i}))
    assert sum(found is not None for found in stored) == 1
    assert len(store.list_signals(rid)) == 1


def test_metadata_and_the_applied_mark_are_one_write(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    signal = store.record_signal(stack.id, rid, "a", {})
    assert signal is not None
    row = store.get_resource(rid)
    assert row is not None
    stale = row.atomic_key - 1
    assert store.write_signal_metadata(signal.id, rid, stale, {"a": 1}) is MetadataWrite.CONFLICT
    assert store.get_resource(rid).metadata == {}  # type: ignore[union-attr]
    assert store.write_signal_metadata(signal.id, rid, row.atomic_key, {"a": 1}) \
        is MetadataWrite.APPLIED
    after = store.get_resource(rid)
    assert after is not None and after.metadata == {"a": 1}
    assert after.atomic_key == row.atomic_key + 1
    applied = store.get_signal(rid, "a")
    assert applied is not None and applied.applied_at is not None
    # Applied again (a re-drive after its engine died): nothing written.
    assert store.write_signal_metadata(signal.id, rid, after.atomic_key, {"a": 2}) \
        is MetadataWrite.ALREADY_APPLIED
    assert store.get_resource(rid).metadata == {"a": 1}  # type: ignore[union-attr]
    assert store.mark_signal_applied(signal.id) is False
    assert store.write_signal_metadata(signal.id, ResourceId(999_999), 0, {}) \
        is MetadataWrite.GONE


def test_a_locked_row_takes_no_signal_write(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    row = store.get_resource(rid)
    assert row is not None
    locked = store.acquire_resource(rid, ENGINE, row.atomic_key,
                                    {"action": Action.CREATE, "status": Status.IN_PROGRESS})
    assert locked is not None
    signal = store.record_signal(stack.id, rid, "a", {})
    assert signal is not None
    assert store.write_signal_metadata(signal.id, rid, locked.atomic_key, {"a": 1}) \
        is MetadataWrite.CONFLICT
    assert store.get_signal(rid, "a").applied_at is None  # type: ignore[union-attr]


def test_an_unapplied_signal_is_claimed_once_per_timeout(store: SqlStore,
                                                         clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    signal = store.record_signal(stack.id, rid, "lost", {"id": "lost"})
    done = store.record_signal(stack.id, rid, "done", {})
    assert signal is not None and done is not None
    store.mark_signal_applied(done.id)
    assert store.signals_to_redrive(clock.now() - timedelta(seconds=60)) == []  # just now
    clock.sleep(61)
    due = store.signals_to_redrive(clock.now() - timedelta(seconds=60))
    assert [s.signal_id for s in due] == ["lost"]
    claims = race(6, lambda _: store.claim_signal(due[0]))
    assert sum(claim is not None for claim in claims) == 1
    assert store.signals_to_redrive(clock.now() - timedelta(seconds=60)) == []
    clock.sleep(61)
    assert [s.signal_id for s in store.signals_to_redrive(
        clock.now() - timedelta(seconds=60))] == ["lost"]


def test_signals_of_deleted_resources_are_forgotten(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    kept, gone = make_resource(store, stack), make_resource(store, stack, "gone")
    store.record_signal(stack.id, kept, "a", {})
    store.record_signal(stack.id, gone, "a", {})
    store.delete_resource(gone)
    assert store.delete_orphan_signals() == 1
    assert store.list_signals(gone) == []
    assert len(store.list_signals(kept)) == 1


def test_signals_at_once_each_merge_once(store: SqlStore, clock: FakeClock) -> None:
    """Writers on many engines (no lock between them but the row's atomic_key): each
    signal's entry lands exactly once, whoever loses a round reads again."""
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)

    def send(i: int) -> int:
        signal = store.record_signal(stack.id, rid, f"s{i}", {"n": i})
        assert signal is not None
        rounds = 0
        while True:
            rounds += 1
            row = store.get_resource(rid)
            assert row is not None
            merged = {**row.metadata, f"s{i}": i}
            result = store.write_signal_metadata(signal.id, rid, row.atomic_key, merged)
            if result is MetadataWrite.APPLIED:
                return rounds
            assert result is MetadataWrite.CONFLICT

    race(12, send)
    row = store.get_resource(rid)
    assert row is not None and row.metadata == {f"s{i}": i for i in range(12)}
    assert all(s.applied_at is not None for s in store.list_signals(rid))
