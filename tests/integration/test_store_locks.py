"""The Store contract, part 2: each conditional resource write, won and lost.

A lost write changes nothing: not the row, not atomic_key, and no event.
"""

from __future__ import annotations

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.records import NewSyncPoint, ResourceRecord, SyncOutcome, SyncReport
from hotplate.model.states import Action, Status
from tests.integration.helpers import (
    FakeClock,
    event_for,
    make_resource,
    make_stack,
    new_id,
    new_resource,
)

MINE = EngineId("11111111-1111-4111-8111-111111111111")
THEIRS = EngineId("22222222-2222-4222-8222-222222222222")
IN_PROGRESS = {"action": Action.CREATE, "status": Status.IN_PROGRESS, "status_reason": "go"}


def _setup(store: SqlStore, clock: FakeClock) -> tuple[ResourceId, str]:
    stack = make_stack(store, clock)
    return make_resource(store, stack), stack.id


def _events(store: SqlStore, stack_id: str) -> list[str]:
    return [e.resource_status for e in store.list_events(stack_id)]  # type: ignore[arg-type]


def _unchanged(store: SqlStore, before: ResourceRecord) -> bool:
    return store.get_resource(before.id) == before


def test_acquire_wins_on_an_unlocked_row_with_the_expected_key(
    store: SqlStore, clock: FakeClock
) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    got = store.acquire_resource(rid, MINE, 0, IN_PROGRESS, event_for(stack))
    assert got is not None
    assert (got.engine_id, got.atomic_key, got.action, got.status) == (
        MINE,
        1,
        Action.CREATE,
        Status.IN_PROGRESS,
    )
    assert got == store.get_resource(rid)
    assert got.updated_at is not None
    assert _events(store, stack_id) == ["IN_PROGRESS"]


def test_acquire_loses_on_a_stale_key_or_a_held_lock(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    before = store.get_resource(rid)
    assert before is not None
    assert store.acquire_resource(rid, MINE, 5, IN_PROGRESS, event_for(stack)) is None
    assert _unchanged(store, before)
    assert store.acquire_resource(rid, THEIRS, 0, IN_PROGRESS) is not None
    held = store.get_resource(rid)
    assert held is not None
    assert store.acquire_resource(rid, MINE, 1, IN_PROGRESS, event_for(stack)) is None
    assert _unchanged(store, held)
    assert _events(store, stack_id) == []
    assert store.acquire_resource(ResourceId(424242), MINE, 0, IN_PROGRESS) is None


def test_update_locked_writes_fields_and_releases(store: SqlStore, clock: FakeClock) -> None:
    rid, _ = _setup(store, clock)
    assert store.acquire_resource(rid, MINE, 0, IN_PROGRESS)
    values = {
        "status": Status.COMPLETE,
        "status_reason": "done",
        "physical_resource_id": "phys-1",
        "metadata": {"m": [1, 2]},
        "properties_data": {"size": 3},
        "requires": (ResourceId(9), ResourceId(4)),
        "attr_data": {"ip": "10.0.0.5", "nested": {"a": [1]}},
    }
    kept = store.update_resource_locked(rid, MINE, values)
    assert kept is not None and kept.engine_id == MINE and kept.atomic_key == 2
    released = store.update_resource_locked(rid, MINE, {"status_reason": "x"}, release=True)
    assert released is not None
    assert released.engine_id is None and released.atomic_key == 3
    assert (released.physical_resource_id, released.metadata, released.properties_data) == (
        "phys-1",
        {"m": [1, 2]},
        {"size": 3},
    )
    assert released.requires == (9, 4)
    assert released.attr_data == {"ip": "10.0.0.5", "nested": {"a": [1]}}
    assert released == store.get_resource(rid)


def test_attr_data_is_overwritten_in_place(store: SqlStore, clock: FakeClock) -> None:
    rid, _ = _setup(store, clock)
    assert store.acquire_resource(rid, MINE, 0, IN_PROGRESS, None)
    first = store.update_resource_locked(rid, MINE, {"attr_data": {"v": 1}})
    second = store.update_resource_locked(rid, MINE, {"attr_data": {"v": 2}})
    assert first is not None and first.attr_data == {"v": 1}
    assert second is not None and second.attr_data == {"v": 2}
    loaded = store.get_resource(rid)
    assert loaded is not None and loaded.attr_data == {"v": 2}


def test_update_locked_loses_without_the_lock(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    before = store.get_resource(rid)
    assert before is not None
    lost = store.update_resource_locked(
        rid, MINE, {"status": Status.FAILED, "attr_data": {"a": 1}}, event_for(stack)
    )
    assert lost is None
    assert _unchanged(store, before)
    assert store.acquire_resource(rid, THEIRS, 0, IN_PROGRESS)
    assert store.update_resource_locked(rid, MINE, {}, release=True) is None
    assert _events(store, stack_id) == []


def test_update_if_unlocked(store: SqlStore, clock: FakeClock) -> None:
    rid, _ = _setup(store, clock)
    done = store.update_resource_if_unlocked(rid, 0, {"action": Action.DELETE})
    assert done is not None and done.atomic_key == 1 and done.engine_id is None
    assert store.update_resource_if_unlocked(rid, 0, {"action": Action.CHECK}) is None
    assert store.acquire_resource(rid, MINE, 1, IN_PROGRESS)
    assert store.update_resource_if_unlocked(rid, 2, {"action": Action.CHECK}) is None


def test_steal_breaks_only_the_named_engines_lock(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    assert store.acquire_resource(rid, THEIRS, 0, IN_PROGRESS)
    failed = {"status": Status.FAILED, "status_reason": "Worker went down during resource CREATE"}
    assert not store.steal_resource_lock(rid, MINE, failed, event_for(stack))
    assert store.steal_resource_lock(rid, THEIRS, failed, event_for(stack, resource_status="F"))
    stolen = store.get_resource(rid)
    assert stolen is not None
    assert (stolen.engine_id, stolen.status, stolen.atomic_key) == (None, Status.FAILED, 2)
    assert _events(store, stack_id) == ["F"]


def test_make_replacement_with_the_lock_held(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    assert store.acquire_resource(rid, MINE, 0, IN_PROGRESS)
    new = store.make_replacement(
        rid, new_resource(stack), expected_engine_id=MINE, expected_atomic_key=1
    )
    assert new is not None
    old = store.get_resource(rid)
    assert old is not None
    assert (old.replaced_by, old.engine_id, old.atomic_key) == (new, None, 2)
    replacement = store.get_resource(new)
    assert replacement is not None and replacement.replaces == rid


def test_make_replacement_can_keep_the_lock(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    assert store.acquire_resource(rid, MINE, 0, IN_PROGRESS)
    new = store.make_replacement(rid, new_resource(stack), expected_engine_id=MINE, release=False)
    old = store.get_resource(rid)
    assert new is not None and old is not None
    assert (old.replaced_by, old.engine_id) == (new, MINE)


def test_make_replacement_that_fails_inserts_nothing(store: SqlStore, clock: FakeClock) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    assert store.acquire_resource(rid, THEIRS, 0, IN_PROGRESS)
    before = store.get_resource(rid)
    assert before is not None
    attempt = new_resource(stack, uuid=new_id())
    assert store.make_replacement(rid, attempt, expected_engine_id=MINE) is None
    assert store.make_replacement(rid, attempt, expected_engine_id=None) is None
    assert (
        store.make_replacement(rid, attempt, expected_engine_id=THEIRS, expected_atomic_key=0)
        is None
    )
    assert _unchanged(store, before)
    assert [r.id for r in store.list_resources(stack.id)] == [rid]


def test_settle_writes_outcome_events_data_and_reports_in_one_go(
    store: SqlStore, clock: FakeClock
) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    store.create_sync_points(stack.id, stack.current_traversal,
                             [NewSyncPoint("99", True, 1)])
    report = SyncReport(stack.current_traversal, "99", True, f"{rid}:u", {"id": "x"})
    events = [event_for(stack), event_for(stack, resource_status="COMPLETE")]
    values = {"action": Action.CREATE, "status": Status.COMPLETE, "status_reason": "done",
              "physical_resource_id": "x", "resource_data": {"k": ("v", False)}}
    done, synced = store.settle_resource(rid, 0, values, events, [report])
    assert done is not None and done == store.get_resource(rid)
    assert (done.engine_id, done.atomic_key, done.status, done.physical_resource_id) == (
        None, 1, Status.COMPLETE, "x")
    assert _events(store, stack_id) == ["IN_PROGRESS", "COMPLETE"]
    assert store.get_resource_data(rid) == {"k": "v"}
    assert [r.outcome for r in synced] == [SyncOutcome.READY]
    assert synced[0].inputs == {f"{rid}:u": {"id": "x"}}


def test_settle_loses_to_a_lock_or_a_changed_row_and_writes_nothing(
    store: SqlStore, clock: FakeClock
) -> None:
    rid, stack_id = _setup(store, clock)
    stack = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert stack is not None
    store.create_sync_points(stack.id, stack.current_traversal,
                             [NewSyncPoint("99", True, 1)])
    report = SyncReport(stack.current_traversal, "99", True, "1:u", None)
    values = {"action": Action.CREATE, "status": Status.COMPLETE, "status_reason": "done"}
    assert store.acquire_resource(rid, THEIRS, 0, IN_PROGRESS) is not None
    held = store.get_resource(rid)
    assert held is not None
    for key in (0, 1):
        assert store.settle_resource(rid, key, values, [event_for(stack)], [report]) == (
            None, [])
    assert _unchanged(store, held)
    assert _events(store, stack_id) == []
    state = store.sync_state(stack.current_traversal, "99", True)
    assert state.outcome is SyncOutcome.WAITING
