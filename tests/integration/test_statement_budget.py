"""The hot path's statement budget, counted on the wire on every backend.

SQLite and PostgreSQL return written rows with UPDATE ... RETURNING; MariaDB
has no UPDATE RETURNING and reads the row back (one SELECT more). PostgreSQL
reports to a sync point in one statement (decrement and input together).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.records import NewSyncPoint, SyncOutcome, SyncReport
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, event_for, make_stack, new_id, new_resource

ENGINE = EngineId(new_id())


def counted(store: SqlStore, call: Callable[[], Any]) -> tuple[int, Any]:
    store.stats.reset()
    result = call()
    return store.stats.statements, result


def test_resource_hot_path(store: SqlStore, clock: FakeClock, backend: str) -> None:
    extra = 1 if backend == "mariadb" else 0  # the SELECT after an UPDATE
    stack = make_stack(store, clock, tags=("a", "b"))

    n, ids = counted(
        store, lambda: store.create_resources([new_resource(stack, f"r{i}") for i in range(50)])
    )
    assert (n, len(ids)) == (1, 50)
    rid: ResourceId = ids[0]

    n, (resource, loaded_stack) = counted(store, lambda: store.load_node(rid))
    assert n == 1 and resource is not None and loaded_stack is not None

    values = {"action": Action.CREATE, "status": Status.IN_PROGRESS}

    def acquire() -> Any:
        return store.acquire_resource(rid, ENGINE, 0, values, event_for(stack))

    n, got = counted(store, acquire)
    assert got is not None and n == 2 + extra
    n, got = counted(store, acquire)  # lost: the UPDATE alone, no event
    assert got is None and n == 1

    def write(values: dict[str, Any], release: bool = False) -> Any:
        return store.update_resource_locked(rid, ENGINE, values, event_for(stack), release=release)

    n, got = counted(store, lambda: write({}))
    assert got is not None and n == 2 + extra

    # Attributes: the first store creates the row and links it; later ones overwrite it.
    n, got = counted(store, lambda: write({"status": Status.COMPLETE, "attr_data": {"ip": "1"}}))
    assert got is not None and n == 4 + extra
    n, got = counted(store, lambda: write({"attr_data": {"ip": "2"}}, release=True))
    assert got is not None and n == 3 + extra

    n, won = counted(store, lambda: store.steal_resource_lock(rid, ENGINE, {}, event_for(stack)))
    assert not won and n == 1


def test_sync_hot_path(store: SqlStore, clock: FakeClock, backend: str) -> None:
    # MariaDB reads ``remaining`` back; PostgreSQL inserts and decrements in one statement.
    extra = {"mariadb": 1, "postgresql": -1}.get(backend, 0)
    stack = make_stack(store, clock)
    t = stack.current_traversal
    points = [NewSyncPoint(str(i), True, 2) for i in range(50)]
    n, _ = counted(store, lambda: store.create_sync_points(stack.id, t, points))
    assert n == 1

    n, result = counted(store, lambda: store.sync(t, "0", True, "a", {"x": 1}))
    assert result.outcome is SyncOutcome.WAITING and n == 2 + extra
    n, result = counted(store, lambda: store.sync(t, "0", True, "a", {"x": 1}))
    # A repeated sender gives its decrement back: one statement more, only on re-delivery
    # (PostgreSQL's statement decrements only when it inserted: nothing to give back).
    assert result.outcome is SyncOutcome.DUPLICATE and n == (1 if backend == "postgresql"
                                                             else 3 + extra)
    n, result = counted(store, lambda: store.sync(t, "0", True, "b", {"x": 2}))
    assert result.outcome is SyncOutcome.READY and n == 3 + extra
    n, result = counted(store, lambda: store.sync(t, "nope", True, "b", None))
    assert result.outcome is SyncOutcome.MISSING and n == 1


def test_stack_swap_and_replacement(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    n, won = counted(
        store,
        lambda: store.update_stack_if_traversal(
            stack.id, stack.current_traversal, {"current_traversal": new_id()}, event_for(stack)
        ),
    )
    assert won and n == 2
    [old] = store.create_resources([new_resource(stack)])
    n, new = counted(
        store, lambda: store.make_replacement(old, new_resource(stack), expected_engine_id=None)
    )
    assert new is not None and n == 2


def test_a_local_action_settles_in_one_transaction(store: SqlStore, clock: FakeClock,
                                                   backend: str) -> None:
    extra = 1 if backend == "mariadb" else 0
    joined = 1 if backend == "postgresql" else 0  # decrement and input in one statement
    stack = make_stack(store, clock)
    [rid] = store.create_resources([new_resource(stack)])
    store.create_sync_points(stack.id, stack.current_traversal, [NewSyncPoint("9", True, 2)])
    report = SyncReport(stack.current_traversal, "9", True, f"{rid}:u", {"id": "x"})
    events = [event_for(stack), event_for(stack, resource_status="COMPLETE")]
    values = {"action": Action.CREATE, "status": Status.COMPLETE, "status_reason": "done",
              "resource_data": {"k": ("v", False)}}
    # The UPDATE, both events in one executemany, the data upsert, decrement + input
    # (MariaDB reads back after the UPDATE and after the decrement).
    n, (done, synced) = counted(
        store, lambda: store.settle_resource(rid, 0, values, events, [report]))
    assert done is not None and [r.outcome for r in synced] == [SyncOutcome.WAITING]
    assert n == 5 + 2 * extra - joined
    assert [e.resource_status for e in store.list_events(stack.id)] == [
        "IN_PROGRESS", "COMPLETE"]
