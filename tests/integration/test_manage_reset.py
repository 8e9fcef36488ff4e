"""reset_stack_status (heat-manage's): a stack stuck IN_PROGRESS and the stacks nested under
it become FAILED, their resources unlocked, hooks forgotten, and the traversal ended so
that a worker still running writes nothing more. Each test runs on every backend."""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select

from hotplate.db import schema as s
from hotplate.db.stack_reset import RESET_REASON, StackNotFound, reset_stack_status
from hotplate.db.store import SqlStore
from hotplate.model.ids import NO_TRAVERSAL, EngineId, ResourceId, StackId
from hotplate.model.records import NewSyncPoint, StackRecord
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, make_resource, make_stack

WORKER = EngineId("11111111-1111-4111-8111-111111111111")
GOING = {"action": Action.CREATE, "status": Status.IN_PROGRESS, "status_reason": "go"}


def stuck_stack(store: SqlStore, clock: FakeClock, **fields: object) -> tuple[
        StackRecord, ResourceId, ResourceId]:
    """A stack IN_PROGRESS: one resource locked mid-create waiting at a hook, one done."""
    stack = make_stack(store, clock, **fields)
    busy, done = make_resource(store, stack, "busy"), make_resource(store, stack, "done")
    assert store.acquire_resource(busy, WORKER, 0, GOING) is not None
    store.set_resource_data(busy, "pre-create", "True")
    store.set_resource_data(busy, "kept", "data")
    store.update_resource_if_unlocked(done, 0, {"action": Action.CREATE,
                                                "status": Status.COMPLETE})
    store.create_sync_points(stack.id, stack.current_traversal,
                             [NewSyncPoint(str(busy), True, 1), NewSyncPoint("x", True, 2)])
    with store.engine.begin() as conn:
        conn.execute(insert(s.stack_lock).values(stack_id=stack.id, engine_id=WORKER,
                                                 created_at=clock.now()))
    return stack, busy, done


def test_a_stuck_stack_and_its_nested_stack_are_reset(store: SqlStore, clock: FakeClock,
                                                      ) -> None:
    stack, busy, done = stuck_stack(store, clock)
    child, child_busy, _ = stuck_stack(store, clock, owner_id=stack.id, nested_depth=1)
    other, other_busy, _ = stuck_stack(store, clock)
    done_before = store.get_resource(done)

    assert reset_stack_status(store.engine, stack.id, clock.now()) == [stack.id, child.id]

    for record, row_id in ((stack, busy), (child, child_busy)):
        reset = store.get_stack(record.id)
        assert reset is not None
        assert (reset.status, reset.status_reason, reset.current_traversal) == (
            Status.FAILED, RESET_REASON, NO_TRAVERSAL)
        assert reset.action is Action.CREATE
        row = store.get_resource(row_id)
        assert row is not None
        assert (row.action, row.status, row.status_reason, row.engine_id) == (
            Action.CREATE, Status.FAILED, RESET_REASON, None)
        assert store.get_resource_data(row_id) == {"kept": "data"}
        with store.engine.connect() as conn:
            for table in (s.sync_point, s.stack_lock):
                assert conn.execute(select(func.count()).select_from(table).where(
                    table.c.stack_id == record.id)).scalar_one() == 0
    assert store.get_resource(done) == done_before
    untouched = store.get_stack(other.id)
    assert untouched is not None and untouched.status is Status.IN_PROGRESS
    assert store.get_resource_data(other_busy) == {"pre-create": "True", "kept": "data"}


def test_a_worker_still_running_writes_nothing_after_the_reset(
        store: SqlStore, clock: FakeClock) -> None:
    stack, busy, _ = stuck_stack(store, clock)
    reset_stack_status(store.engine, stack.id, clock.now())

    finished = {"action": Action.CREATE, "status": Status.COMPLETE, "status_reason": "done"}
    assert store.update_resource_locked(busy, WORKER, finished) is None
    assert not store.update_stack_if_traversal(stack.id, stack.current_traversal, {
        "status": Status.COMPLETE, "status_reason": "Stack CREATE completed successfully"})
    row, stored = store.get_resource(busy), store.get_stack(stack.id)
    assert row is not None and row.status is Status.FAILED
    assert stored is not None and stored.status is Status.FAILED


def test_a_settled_stack_keeps_its_status_and_traversal(store: SqlStore, clock: FakeClock,
                                                        ) -> None:
    stack = make_stack(store, clock, status=Status.COMPLETE)
    assert reset_stack_status(store.engine, stack.id, clock.now()) == [stack.id]
    kept = store.get_stack(stack.id)
    assert kept is not None
    assert (kept.status, kept.current_traversal) == (Status.COMPLETE, stack.current_traversal)


def test_an_unknown_stack_is_heats_not_found(store: SqlStore, clock: FakeClock) -> None:
    with pytest.raises(StackNotFound, match=r"^Stack with id nope not found$"):
        reset_stack_status(store.engine, StackId("nope"), clock.now())
