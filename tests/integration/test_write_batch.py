"""SQLite: the work slot's holder commits its hot-path writes together (write_batch.py).

Real SQLite files: what another thread sees, what a failed write undoes, when a
batch is committed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from hotplate.db import migrate
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.db.tx import Rollback, Transactions
from hotplate.db.write_batch import MAX_WRITES
from tests.integration.helpers import FakeClock, make_stack


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'batch.db'}"
    migrate.upgrade(url)
    engine = make_engine(url, pool_size=8)
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> SqlStore:
    return SqlStore(engine, FakeClock())


def _name_setter(stack_id: str, name: str) -> Any:
    def write(raw: Any) -> int:
        cursor = raw.driver_connection.execute(
            "UPDATE stack SET name = ? WHERE id = ?", (name, stack_id))
        return int(cursor.rowcount)
    return write


def _committed_name(engine: Engine, stack_id: str) -> str:
    """The name as another connection (another thread) reads it."""
    with engine.connect() as conn:
        return str(conn.execute(text("SELECT name FROM stack WHERE id = :id"),
                                {"id": stack_id}).scalar_one())


def test_a_batch_is_seen_by_its_thread_at_once_and_by_others_once_committed(
        store: SqlStore, engine: Engine) -> None:
    stack = make_stack(store, FakeClock(), name="before")
    tx = Transactions(engine)
    commits = store.stats.snapshot().commits
    store.begin_write_batch()
    try:
        assert tx.write_grouped(_name_setter(str(stack.id), "first"), 1) == 1
        assert tx.write_raw(_name_setter(str(stack.id), "second")) == 1
        seen = tx.read_raw(lambda raw: raw.driver_connection.execute(
            "SELECT name FROM stack WHERE id = ?", (str(stack.id),)).fetchone()[0])
        assert seen == "second"  # its own thread reads inside the batch
        assert _committed_name(engine, str(stack.id)) == "before"
    finally:
        store.end_write_batch()
    assert _committed_name(engine, str(stack.id)) == "second"
    assert store.stats.snapshot().commits == commits + 1  # two writes, one COMMIT


def test_a_write_that_rolls_back_or_fails_undoes_itself_alone(store: SqlStore,
                                                              engine: Engine) -> None:
    stack = make_stack(store, FakeClock(), name="before")
    tx = Transactions(engine)

    def then_roll_back(raw: Any) -> None:
        _name_setter(str(stack.id), "rolled back")(raw)
        raise Rollback("lost")

    def then_fail(raw: Any) -> None:
        _name_setter(str(stack.id), "failed")(raw)
        raise RuntimeError("boom")

    store.begin_write_batch()
    try:
        tx.write_raw(_name_setter(str(stack.id), "kept"))
        assert tx.write_grouped(then_roll_back, 1) == "lost"
        with pytest.raises(RuntimeError, match="boom"):
            tx.write_raw(then_fail)
    finally:
        store.end_write_batch()
    assert _committed_name(engine, str(stack.id)) == "kept"


def test_another_transaction_of_the_thread_commits_the_batch_first(
        store: SqlStore, engine: Engine) -> None:
    stack = make_stack(store, FakeClock(), name="before")
    tx = Transactions(engine)
    store.begin_write_batch()
    try:
        tx.write_raw(_name_setter(str(stack.id), "batched"))
        # SQLAlchemy's own transaction runs on another connection: without the batch
        # committed first it would not see it (and, writing, would wait for it forever).
        assert store.get_stack(stack.id) is not None
        name = tx.read(lambda conn: conn.execute(
            text("SELECT name FROM stack WHERE id = :id"), {"id": str(stack.id)}).scalar())
        assert name == "batched"
        tx.write(lambda conn: conn.execute(
            text("UPDATE stack SET name = 'written' WHERE id = :id"), {"id": str(stack.id)}))
    finally:
        store.end_write_batch()
    assert _committed_name(engine, str(stack.id)) == "written"


def test_a_full_batch_is_committed_and_a_new_one_begun(store: SqlStore,
                                                       engine: Engine) -> None:
    stack = make_stack(store, FakeClock(), name="before")
    tx = Transactions(engine)
    commits = store.stats.snapshot().commits
    store.begin_write_batch()
    try:
        for i in range(MAX_WRITES + 1):
            tx.write_raw(_name_setter(str(stack.id), f"n{i}"))
        assert _committed_name(engine, str(stack.id)) == f"n{MAX_WRITES - 1}"
    finally:
        store.end_write_batch()
    assert store.stats.snapshot().commits == commits + 2
    assert _committed_name(engine, str(stack.id)) == f"n{MAX_WRITES}"


def test_a_writer_of_another_thread_ends_the_batch_at_its_next_write(
        store: SqlStore, engine: Engine) -> None:
    """The API or the heartbeat waits behind an open batch only until the batching
    thread's next write, not until the batch is full."""
    stack = make_stack(store, FakeClock(), name="before")
    other = make_stack(store, FakeClock(), name="other")
    tx = Transactions(engine)
    done = threading.Event()

    def other_writer() -> None:
        tx.write_raw(_name_setter(str(other.id), "by another thread"))
        done.set()

    store.begin_write_batch()
    try:
        tx.write_raw(_name_setter(str(stack.id), "one"))
        thread = threading.Thread(target=other_writer)
        thread.start()
        deadline = time.monotonic() + 5
        while not _waiting(store) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert not done.is_set()  # it waits behind the open batch
        tx.write_raw(_name_setter(str(stack.id), "two"))  # commits, then lets it in
        assert done.wait(5)
        assert _committed_name(engine, str(stack.id)) == "one"
    finally:
        store.end_write_batch()
        thread.join(5)
    assert _committed_name(engine, str(stack.id)) == "two"
    assert _committed_name(engine, str(other.id)) == "by another thread"


def _waiting(store: SqlStore) -> int:
    batches = store._tx.state.batches
    assert batches is not None
    return batches._waiting


def test_without_a_batch_each_write_commits_alone(store: SqlStore, engine: Engine) -> None:
    stack = make_stack(store, FakeClock(), name="before")
    Transactions(engine).write_raw(_name_setter(str(stack.id), "alone"))
    assert _committed_name(engine, str(stack.id)) == "alone"


def test_a_batching_thread_that_waits_for_a_writer_is_rescued(store: SqlStore,
                                                             engine: Engine) -> None:
    """The batching thread calls into another thread that writes, and waits for its
    answer (an in-process call): the writer commits the batch rather than wait for
    it forever, and the batching thread goes on with a new one."""
    stack = make_stack(store, FakeClock(), name="before")
    other = make_stack(store, FakeClock(), name="other")
    tx = Transactions(engine)
    answered = threading.Event()

    def writer() -> None:
        tx.write(lambda conn: conn.execute(
            text("UPDATE stack SET name = 'answered' WHERE id = :id"), {"id": str(other.id)}))
        answered.set()

    store.begin_write_batch()
    try:
        tx.write_raw(_name_setter(str(stack.id), "batched"))
        thread = threading.Thread(target=writer)
        thread.start()
        assert answered.wait(5)  # it did not wait for this thread's next write
        assert _committed_name(engine, str(stack.id)) == "batched"
        tx.write_raw(_name_setter(str(stack.id), "after"))  # a new batch
    finally:
        store.end_write_batch()
        thread.join(5)
    assert _committed_name(engine, str(stack.id)) == "after"
    assert _committed_name(engine, str(other.id)) == "answered"
