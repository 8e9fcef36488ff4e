"""The driver-connection transactions of the hot path (tx.py, fastpath.py), on every
backend: on PostgreSQL a write runs in pipeline mode, where what ``send`` and
``defer`` run goes to the server with the next statement or the COMMIT, and a
single-statement read runs in autocommit. The guarantees are those of any
other transaction: all or nothing, a lost COMMIT known not to have run is run
again, and a connection goes back to the pool as it came.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import bindparam, create_engine, pool, select, text, update

from hotplate.db import schema as s
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.db.tx import Rollback
from hotplate.model.records import NewSyncPoint, SyncOutcome
from tests.integration.helpers import FakeClock, make_stack

_SET_REASON = update(s.stack).where(s.stack.c.id == bindparam("b_id"))
_REASON = select(s.stack.c.status_reason).where(s.stack.c.id == bindparam("b_id"))


def _reason(store: SqlStore, stack_id: str) -> str | None:
    found = store.get_stack(stack_id)  # type: ignore[arg-type]
    assert found is not None
    return found.status_reason


def test_sent_and_deferred_statements_commit_with_the_transaction(
        store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)

    def write(conn: Any) -> Any:
        store._fast.send(conn, _SET_REASON, {"b_id": stack.id, "status_reason": "sent"},
                         set_keys=("status_reason",))
        # A later statement of the same transaction sees what was sent before it.
        return store._fast.defer(conn, _REASON, {"b_id": stack.id})

    deferred = store._tx.write_raw(write)
    assert deferred.rows() == [{"status_reason": "sent"}]
    assert _reason(store, stack.id) == "sent"


def test_a_failing_sent_statement_fails_the_whole_transaction(
        store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    store.create_sync_points(stack.id, stack.current_traversal, [NewSyncPoint("1", True, 1)])
    clash = s.sync_point.insert()
    row = {"entity_id": "1", "traversal_id": stack.current_traversal, "is_update": True,
           "stack_id": stack.id, "atomic_key": 0, "remaining": 1, "created_at": clock.now()}

    def write(conn: Any) -> None:
        store._fast.send(conn, _SET_REASON, {"b_id": stack.id, "status_reason": "lost"},
                         set_keys=("status_reason",))
        store._fast.send(conn, clash, row, set_keys=row)  # the same primary key

    with pytest.raises(Exception, match=r"(?i)duplicate|unique"):
        store._tx.write_raw(write)
    assert _reason(store, stack.id) != "lost"
    assert store.get_stack(stack.id) is not None  # and the store goes on working


def test_a_rollback_undoes_what_was_sent(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)

    def write(conn: Any) -> str:
        store._fast.send(conn, _SET_REASON, {"b_id": stack.id, "status_reason": "undone"},
                         set_keys=("status_reason",))
        raise Rollback("lost the swap")

    assert store._tx.write_raw(write) == "lost the swap"
    assert _reason(store, stack.id) != "undone"


def test_a_connection_read_in_autocommit_goes_back_to_transactions(
        db_url: str, clock: FakeClock) -> None:
    engine = make_engine(db_url, pool_size=1)  # every call below gets the same connection
    try:
        store = SqlStore(engine, clock)
        stack = make_stack(store, clock)
        assert store._tx.read_raw(
            lambda conn: store._fast.execute(conn, _REASON, {"b_id": stack.id})[0])

        def write(conn: Any) -> None:
            store._fast.execute(conn, _SET_REASON, {"b_id": stack.id, "status_reason": "no"},
                                set_keys=("status_reason",))
            raise Rollback()

        store._tx.write_raw(write)
        assert _reason(store, stack.id) != "no"
        with engine.connect() as conn, conn.begin():
            conn.execute(_SET_REASON, {"b_id": stack.id, "status_reason": "no"})
            conn.rollback()
        assert _reason(store, stack.id) != "no"
    finally:
        engine.dispose()


def test_a_report_goes_with_the_commit_and_is_settled_after(
        store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    t = stack.current_traversal
    store.create_sync_points(stack.id, t, [NewSyncPoint("1", True, 2)])
    now = clock.now()
    first = store._tx.write_raw(lambda conn: [
        store.report_in(conn, report, now) for report in [
            _report(t, "a", 1), _report(t, "a", 1), _report(t, "nope", 0, entity="9")]])
    assert [store.settle(p).outcome for p in first] == [
        SyncOutcome.WAITING, SyncOutcome.DUPLICATE, SyncOutcome.MISSING]
    [last] = store._tx.write_raw(lambda conn: [store.report_in(conn, _report(t, "b", 2), now)])
    ready = store.settle(last)
    assert ready.outcome is SyncOutcome.READY and ready.inputs == {"a": 1, "b": 2}


def _report(traversal: Any, sender: str, data: Any, entity: str = "1") -> Any:
    from hotplate.model.records import SyncReport

    return SyncReport(traversal, entity, True, sender, data)


def test_a_session_ended_before_a_commit_carrying_sent_statements_is_run_again(
        db_url: str, backend: str) -> None:
    """The server ended the session (and the test waits for it to end) after the
    transaction's statements went out: found closed before the COMMIT is sent, the
    transaction is known not to have committed and is run again, once."""
    if backend != "postgresql":
        pytest.skip("pipeline mode is PostgreSQL's")
    engine = make_engine(db_url, pool_size=1)
    admin = create_engine(db_url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    store = SqlStore(engine, FakeClock())
    stack = make_stack(store, FakeClock())
    tries: list[str] = []

    def write(conn: Any) -> None:
        tries.append("try")
        cursor = conn.cursor()
        cursor.execute("SELECT pg_backend_pid()")
        session = cursor.fetchone()[0]
        cursor.close()
        store._fast.send(conn, _SET_REASON, {"b_id": stack.id,
                                             "status_reason": f"try {len(tries)}"},
                         set_keys=("status_reason",))
        if len(tries) == 1:
            with admin.connect() as other:
                other.execute(text(f"SELECT pg_terminate_backend({int(session)}, 10000)"))

    try:
        store._tx.write_raw(write)
        assert len(tries) == 2
        assert _reason(store, stack.id) == "try 2"
    finally:
        engine.dispose()
        admin.dispose()
