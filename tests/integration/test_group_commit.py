"""Group commit (db/group_commit.py) on every backend: writes that queue while a
transaction is being written commit together in the next one, and each caller
still gets exactly what its own transaction would have given.

A first write that waits on an event holds the only lane open, so the writes sent
meanwhile are known to queue: the batch is made deterministically, not by timing.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import bindparam, select, update

from hotplate.db import schema as s
from hotplate.db.group_commit import GroupCommit
from hotplate.db.store import SqlStore
from hotplate.db.tx import Rollback
from hotplate.model.records import NewSyncPoint
from tests.integration.helpers import FakeClock, make_stack

_SET_REASON = update(s.stack).where(s.stack.c.id == bindparam("b_id"))
_REASON = select(s.stack.c.status_reason).where(s.stack.c.id == bindparam("b_id"))
_WAIT = 10.0


def _reason(store: SqlStore, stack_id: str) -> str | None:
    found = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert found is not None
    return found.status_reason


class _Queued:
    """Writes sent from threads while a first write holds the lane."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.group = GroupCommit(store._tx, lanes=1)
        self.gate = threading.Event()
        self.first_running = threading.Event()
        self.outcomes: dict[int, tuple[str, Any]] = {}
        self.ran: list[int] = []
        self._threads: list[threading.Thread] = []

    def _send(self, order: int, fn: Any) -> None:
        def call() -> None:
            try:
                self.outcomes[order] = ("ok", self.group.write(fn, order))
            except Exception as exc:
                self.outcomes[order] = ("error", exc)

        thread = threading.Thread(target=call, daemon=True)
        self._threads.append(thread)
        thread.start()

    def hold_lane(self, stack_id: str) -> None:
        def first(conn: Any) -> str:
            self.first_running.set()
            assert self.gate.wait(_WAIT)
            self.store._fast.send(conn, _SET_REASON, {"b_id": stack_id,
                                                      "status_reason": "first"},
                                  set_keys=("status_reason",))
            return "first"

        self._send(0, first)
        assert self.first_running.wait(_WAIT)

    def queue(self, order: int, fn: Any) -> None:
        def recorded(conn: Any) -> Any:
            self.ran.append(order)
            return fn(conn)

        waiting = len(self.group._queue)
        self._send(order, recorded)
        deadline = time.monotonic() + _WAIT
        while len(self.group._queue) == waiting:  # wait until it is queued behind
            assert time.monotonic() < deadline, "the write never queued"
            time.sleep(0.001)

    def release(self) -> None:
        self.gate.set()
        for thread in self._threads:
            thread.join(_WAIT)
            assert not thread.is_alive()


def _writer(store: SqlStore, stack_id: str, reason: str, result: Any = None) -> Any:
    def write(conn: Any) -> Any:
        store._fast.send(conn, _SET_REASON, {"b_id": stack_id, "status_reason": reason},
                         set_keys=("status_reason",))
        return result if result is not None else reason

    return write


def test_writes_queued_meanwhile_commit_in_one_transaction(
        store: SqlStore, clock: FakeClock) -> None:
    stacks = [make_stack(store, clock, name=f"g{i}") for i in range(5)]
    queued = _Queued(store)
    queued.hold_lane(stacks[0].id)
    # Sent out of order: the batch writes them in the order of their keys.
    for order in (4, 2, 3, 1):
        queued.queue(order, _writer(store, stacks[order].id, f"batched {order}"))
    before = store.stats.snapshot()
    queued.release()
    spent = store.stats.snapshot() - before

    assert queued.outcomes == {0: ("ok", "first"), **{
        order: ("ok", f"batched {order}") for order in (1, 2, 3, 4)}}
    assert spent.commits == 2  # the first write's transaction, then the four together
    assert queued.ran == [1, 2, 3, 4]
    assert [_reason(store, stack.id) for stack in stacks] == [
        "first", "batched 1", "batched 2", "batched 3", "batched 4"]


def test_a_rollback_in_a_batch_undoes_that_write_alone(
        store: SqlStore, clock: FakeClock) -> None:
    stacks = [make_stack(store, clock, name=f"r{i}") for i in range(4)]
    queued = _Queued(store)
    queued.hold_lane(stacks[0].id)

    def loses(conn: Any) -> None:
        store._fast.send(conn, _SET_REASON, {"b_id": stacks[2].id, "status_reason": "undone"},
                         set_keys=("status_reason",))
        raise Rollback("lost the swap")

    queued.queue(1, _writer(store, stacks[1].id, "kept 1"))
    queued.queue(2, loses)
    queued.queue(3, _writer(store, stacks[3].id, "kept 3"))
    queued.release()

    assert queued.outcomes[2] == ("ok", "lost the swap")
    assert queued.outcomes[1] == ("ok", "kept 1") and queued.outcomes[3] == ("ok", "kept 3")
    assert _reason(store, stacks[2].id) != "undone"
    assert _reason(store, stacks[1].id) == "kept 1" and _reason(store, stacks[3].id) == "kept 3"


def test_a_write_that_fails_gets_its_error_and_the_others_commit(
        store: SqlStore, clock: FakeClock) -> None:
    stacks = [make_stack(store, clock, name=f"f{i}") for i in range(4)]
    store.create_sync_points(stacks[2].id, stacks[2].current_traversal,
                             [NewSyncPoint("1", True, 1)])
    clash = {"entity_id": "1", "traversal_id": stacks[2].current_traversal, "is_update": True,
             "stack_id": stacks[2].id, "atomic_key": 0, "remaining": 1,
             "created_at": clock.now()}
    queued = _Queued(store)
    queued.hold_lane(stacks[0].id)

    def fails(conn: Any) -> None:
        store._fast.send(conn, _SET_REASON, {"b_id": stacks[2].id, "status_reason": "lost"},
                         set_keys=("status_reason",))
        store._fast.execute(conn, s.sync_point.insert(), clash, set_keys=clash)

    queued.queue(1, _writer(store, stacks[1].id, "kept 1"))
    queued.queue(2, fails)
    queued.queue(3, _writer(store, stacks[3].id, "kept 3"))
    queued.release()

    kind, error = queued.outcomes[2]
    assert kind == "error"
    assert "unique" in str(error).lower() or "duplicate" in str(error).lower()
    assert _reason(store, stacks[2].id) != "lost"
    assert queued.outcomes[1] == ("ok", "kept 1") and queued.outcomes[3] == ("ok", "kept 3")
    assert _reason(store, stacks[1].id) == "kept 1" and _reason(store, stacks[3].id) == "kept 3"


def test_a_caller_returns_only_once_its_write_is_committed(
        store: SqlStore, clock: FakeClock) -> None:
    """Read from another connection the moment the call returns, in the caller's
    thread: never acknowledged before its COMMIT."""
    stacks = [make_stack(store, clock, name=f"c{i}") for i in range(3)]
    queued = _Queued(store)
    queued.hold_lane(stacks[0].id)
    seen: dict[int, str | None] = {}

    def send_then_read(order: int) -> None:
        def call() -> None:
            queued.group.write(_writer(store, stacks[order].id, f"durable {order}"), order)
            seen[order] = _reason(store, stacks[order].id)

        thread = threading.Thread(target=call, daemon=True)
        queued._threads.append(thread)
        waiting = len(queued.group._queue)
        thread.start()
        deadline = time.monotonic() + _WAIT
        while len(queued.group._queue) == waiting:
            assert time.monotonic() < deadline
            time.sleep(0.001)

    send_then_read(1)
    send_then_read(2)
    queued.release()
    assert seen == {1: "durable 1", 2: "durable 2"}


def test_a_lone_write_goes_at_once(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    before = store.stats.snapshot()
    assert store._tx.write_grouped(_writer(store, stack.id, "alone"), 1) == "alone"
    spent = store.stats.snapshot() - before
    assert spent.commits == 1
    assert spent.statements == 1
    assert _reason(store, stack.id) == "alone"


def test_a_lone_rollback_undoes_its_write(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)

    def loses(conn: Any) -> str:
        store._fast.send(conn, _SET_REASON, {"b_id": stack.id, "status_reason": "undone"},
                         set_keys=("status_reason",))
        raise Rollback("lost")

    assert store._tx.write_grouped(loses, 1) == "lost"
    assert _reason(store, stack.id) != "undone"


@pytest.mark.parametrize("threads", [8])
def test_many_threads_each_get_their_own_result(
        store: SqlStore, clock: FakeClock, threads: int) -> None:
    """Unscripted: threads writing at once all finish with their own answers, and
    every write is there afterwards."""
    stacks = [make_stack(store, clock, name=f"t{i}") for i in range(threads)]
    answers: dict[int, Any] = {}

    def run(i: int) -> None:
        for round_ in range(20):
            answers[i * 100 + round_] = store._tx.write_grouped(
                _writer(store, stacks[i].id, f"{i}/{round_}"), i)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert answers == {i * 100 + r: f"{i}/{r}" for i in range(threads) for r in range(20)}
    assert [_reason(store, stack.id) for stack in stacks] == [f"{i}/19" for i in range(threads)]
