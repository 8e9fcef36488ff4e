"""Engine setup: SQLite pragmas and write serialisation, bounded pools, UTC times."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, insert, text, update
from sqlalchemy import event as sa_event
from sqlalchemy.exc import TimeoutError as PoolTimeout

from hotplate.db import migrate
from hotplate.db.engine import engine_state, make_engine
from hotplate.db.schema import event, stack
from hotplate.db.store import SqlStore
from hotplate.db.tx import Transactions
from hotplate.db.types import UtcDateTime
from tests.integration.helpers import FakeClock, event_for, make_stack, race

THREADS = 16
WRITES_PER_THREAD = 25


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'engine.db'}"
    migrate.upgrade(url)
    engine = make_engine(url, pool_size=THREADS + 2)
    yield engine
    engine.dispose()


def test_sqlite_pragmas(sqlite_engine: Engine) -> None:
    with sqlite_engine.connect() as conn:
        read = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "busy_timeout", "foreign_keys", "synchronous")
        }
    assert read == {
        "journal_mode": "wal",
        "busy_timeout": 30000,
        "foreign_keys": 1,
        "synchronous": 1,
    }


def test_sqlite_threads_never_see_database_is_locked(sqlite_engine: Engine) -> None:
    clock = FakeClock()
    store = SqlStore(sqlite_engine, clock)
    stack = make_stack(store, clock)

    def writer(_: int) -> int:
        for _ in range(WRITES_PER_THREAD):
            store.add_event(event_for(stack))
            store.list_events(stack.id, limit=1)
        return WRITES_PER_THREAD

    assert sum(race(THREADS, writer)) == THREADS * WRITES_PER_THREAD
    assert len(store.list_events(stack.id)) == THREADS * WRITES_PER_THREAD


def test_sqlite_readers_proceed_during_a_write(sqlite_engine: Engine) -> None:
    clock = FakeClock()
    store = SqlStore(sqlite_engine, clock)
    stack = make_stack(store, clock)
    inside, finish = threading.Event(), threading.Event()

    def slow_write(conn: Connection) -> None:
        conn.execute(insert(event), {"uuid": "w", "stack_id": stack.id, "created_at": clock.now()})
        inside.set()
        assert finish.wait(10)

    writer = threading.Thread(target=lambda: store._tx.write(slow_write))
    writer.start()
    try:
        assert inside.wait(10)
        # The write holds SQLite's write lock; a read still answers, from before it.
        assert store.list_events(stack.id) == []
    finally:
        finish.set()
        writer.join()
    assert [e.uuid for e in store.list_events(stack.id)] == ["w"]


def test_in_memory_sqlite_works_across_threads() -> None:
    engine = make_engine("sqlite://")
    migrate.upgrade(engine)
    clock = FakeClock()
    store = SqlStore(engine, clock)
    stack = make_stack(store, clock)
    race(8, lambda _: store.add_event(event_for(stack)))
    assert len(store.list_events(stack.id)) == 8


def test_pools_are_bounded(db_url: str) -> None:
    engine = make_engine(db_url, pool_size=2, pool_timeout=0.2)
    # A SQLite file's pool has one seat more, its kept write connection's.
    seats = 3 if engine.dialect.name == "sqlite" else 2
    try:
        held = [engine.connect() for _ in range(seats)]
        with pytest.raises(PoolTimeout):
            engine.connect()
        held.pop().close()
        engine.connect().close()
        for conn in held:
            conn.close()
    finally:
        engine.dispose()


def test_sqlite_writes_share_one_kept_connection(sqlite_engine: Engine) -> None:
    """The hot path's writes hand one connection on (kept_writer.py): none is checked
    out while no write runs, a write that fails leaves nothing open on it, and a
    disposed engine keeps nothing."""
    clock = FakeClock()
    store = SqlStore(sqlite_engine, clock)
    stack = make_stack(store, clock)
    tx = Transactions(sqlite_engine)
    kept = engine_state(sqlite_engine).kept_writer
    assert kept is not None
    checkouts: list[int] = []

    def note(dbapi_connection: Any, *_args: Any) -> None:
        checkouts.append(id(dbapi_connection))

    def touch(raw: Any) -> None:
        raw.driver_connection.execute(
            "UPDATE stack SET updated_at = updated_at WHERE id = ?", (str(stack.id),))

    sa_event.listen(sqlite_engine, "checkout", note)
    try:
        for _ in range(5):
            tx.write_raw(touch)
    finally:
        sa_event.remove(sqlite_engine, "checkout", note)
    assert len(checkouts) <= 1 and kept.idle == 1  # five writes, at most one checkout
    assert store.pool_status()["checked_out"] == 0

    def half_done(raw: Any) -> None:
        touch(raw)
        raise RuntimeError("failed after a statement")

    with pytest.raises(RuntimeError):
        tx.write_raw(half_done)
    assert kept.idle == 1  # rolled back, so clean: kept
    held, generation = kept.take()
    driver: Any = held.driver_connection
    assert not driver.in_transaction
    kept.give_back(held, generation)

    sqlite_engine.dispose()
    assert kept.idle == 0 and store.pool_status()["checked_out"] == 0


def test_mariadb_runs_read_committed(db_engine: Engine, backend: str) -> None:
    if backend != "mariadb":
        pytest.skip("MariaDB only")
    with db_engine.connect() as conn:
        level = conn.execute(text("SELECT @@tx_isolation")).scalar()
    assert level == "READ-COMMITTED"


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError):
        UtcDateTime().process_bind_param(datetime(2026, 1, 1), None)  # type: ignore[arg-type]


def test_statement_counter_counts_statements(store: SqlStore) -> None:
    store.stats.reset()
    with store.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
        conn.execute(text("SELECT 2"))
    assert store.stats.statements == 2
    assert store.stats.reset() == 2 and store.stats.statements == 0


def test_snapshots_measure_an_interval(store: SqlStore) -> None:
    before = store.stats.snapshot()
    store.list_services()
    spent = store.stats.snapshot() - before
    assert (spent.statements, spent.cas_retries) == (1, 0)
    assert store.pool_status()["checked_out"] == 0


def test_deadlock_victims_are_rerun(store: SqlStore, clock: FakeClock, backend: str) -> None:
    """Two transactions lock two rows in opposite orders: the victim runs again."""
    if backend == "sqlite":
        pytest.skip("SQLite serialises writers: no deadlock to break")
    first, second = make_stack(store, clock), make_stack(store, clock)
    barrier = threading.Barrier(2, timeout=10)
    attempts = [0, 0]

    def touch(conn: Connection, stack_id: str) -> None:
        conn.execute(update(stack).where(stack.c.id == stack_id).values(status_reason="x"))

    def work(i: int) -> None:
        order = (first.id, second.id) if i == 0 else (second.id, first.id)

        def locks_both(conn: Connection) -> None:
            attempts[i] += 1
            touch(conn, order[0])
            if attempts[i] == 1:
                barrier.wait()  # both hold their first row: the next lock closes the cycle
            touch(conn, order[1])

        store._tx.write(locks_both)

    store.stats.reset()
    race(2, work)
    # One runs once; the victim runs again (a busy server may pick it twice over).
    assert min(attempts) == 1 and max(attempts) >= 2
    assert store.stats.cas_retries == sum(attempts) - 2
