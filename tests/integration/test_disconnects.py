"""A connection the server ends under the store is replaced and the transaction run
again, on every path (SQLAlchemy's and the driver's own): an operator's
``pg_terminate_backend`` or ``KILL CONNECTION``, a server restart or an idle
transaction's timeout must delay an engine, never fail a resource.

Each test ends only the connection of its own store, found by asking it
for its session id, so nothing else on the server is touched.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, bindparam, create_engine, pool, text, update
from sqlalchemy.exc import DBAPIError

from hotplate.db import queries as q
from hotplate.db import schema as s
from hotplate.db.engine import make_engine
from hotplate.db.session_limits import SessionTimeouts
from hotplate.db.store import SqlStore
from hotplate.model.ids import ResourceId, TraversalId
from tests.integration.helpers import FakeClock, make_resource, make_stack

SESSION_ID = {"postgresql": "SELECT pg_backend_pid()", "mysql": "SELECT CONNECTION_ID()"}
END_SESSION = {"postgresql": "SELECT pg_terminate_backend({id})", "mysql": "KILL CONNECTION {id}"}


@pytest.fixture
def lone(db_url: str, store: SqlStore) -> Iterator[tuple[SqlStore, Callable[[], None]]]:
    """A store on a one-connection pool, and a way to end that connection server-side."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has no server to end a connection")
    engine = make_engine(db_url, pool_size=1)
    admin = create_engine(db_url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")

    def end_its_connection() -> None:
        session = _session_id(engine)
        with admin.connect() as conn:
            conn.execute(text(END_SESSION[engine.dialect.name].format(id=int(session))))

    try:
        yield SqlStore(engine, FakeClock()), end_its_connection
    finally:
        engine.dispose()
        admin.dispose()


def _session_id(engine: Engine) -> Any:
    with engine.connect() as conn:  # the pool's one connection, the store's
        return conn.execute(text(SESSION_ID[engine.dialect.name])).scalar_one()


def test_reads_and_writes_survive_their_connection_ending(
        lone: tuple[SqlStore, Callable[[], None]]) -> None:
    store, end_its_connection = lone
    clock = FakeClock()
    stack = make_stack(store, clock)
    resource = make_resource(store, stack)
    store.stats.reset()

    end_its_connection()
    assert store.get_stack(stack.id) is not None  # a read through SQLAlchemy
    end_its_connection()
    assert store.get_stack(make_stack(store, clock).id) is not None  # a write, likewise
    end_its_connection()
    row, _ = store.load_node(ResourceId(resource))  # a read on the driver's connection
    assert row is not None and row.name == "server"
    end_its_connection()
    store.sync(TraversalId("t"), str(resource), True, "sender", {})  # a driver write

    def fast_read(conn: Connection) -> Any:  # the driver's cursor inside SQLAlchemy's
        return store._fast.execute(conn, q.GET_RESOURCE, {"b_id": resource})[0]

    end_its_connection()
    assert store._tx.write(fast_read)
    end_its_connection()
    assert store._tx.read(fast_read)
    assert store.stats.cas_retries == 6


def test_a_transaction_left_idle_is_ended_and_its_row_locks_freed(
        db_url: str, store: SqlStore) -> None:
    """A session stopped inside a transaction (its process paused) holds a row lock;
    with ``SessionTimeouts.idle_in_transaction`` the server ends it, and a writer waiting on the
    row goes on instead of waiting as long as the paused process does."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite sessions live in the process: a stopped one stops its locks too")
    stack = make_stack(store, FakeClock())
    paused = make_engine(db_url, pool_size=1,
                         timeouts=SessionTimeouts(idle_in_transaction=1))
    held = paused.connect()
    try:
        held.begin()
        held.execute(update(s.stack).where(s.stack.c.id == stack.id)
                     .values(status_reason="held"))  # ...and the process stops here
        taking = threading.Thread(target=store._tx.write, args=(lambda conn: conn.execute(
            update(s.stack).where(s.stack.c.id == stack.id).values(status_reason="taken")),))
        started = time.monotonic()
        taking.start()
        taking.join(15)
        assert not taking.is_alive(), "the writer still waits on the stopped session's lock"
        assert time.monotonic() - started >= 0.5  # it did wait, for the timeout
        found = store.get_stack(stack.id)
        assert found is not None and found.status_reason == "taken"
        with pytest.raises(DBAPIError):  # the stopped session, woken: it was ended
            held.execute(text("SELECT 1"))
    finally:
        with contextlib.suppress(DBAPIError):
            held.close()
        paused.dispose()


def test_a_session_ended_before_its_commit_is_run_again_once(db_url: str, backend: str) -> None:
    """PostgreSQL ends a session between commands, so a COMMIT answered with "terminating
    connection" never ran: the write is run again, and happens once. (Any other loss at
    COMMIT may have committed: that one is raised.) On the driver connection a write
    runs in pipeline mode, where that answer can be lost in the connection's end: the
    session is found ended before the COMMIT goes out, so the test waits for it to end
    (a session ended while the COMMIT is on its way is raised there)."""
    if backend != "postgresql":
        pytest.skip("MariaDB gives no sign that the session ended before the COMMIT")
    engine = make_engine(db_url, pool_size=1)
    admin = create_engine(db_url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    store = SqlStore(engine, FakeClock())
    stack = make_stack(store, FakeClock())
    tries: list[str] = []

    def touch(conn: Any) -> None:
        tries.append("try")
        reason = f"try {len(tries)}"
        if isinstance(conn, Connection):
            conn.execute(update(s.stack).where(s.stack.c.id == stack.id)
                         .values(status_reason=reason))
            session = conn.execute(text(SESSION_ID["postgresql"])).scalar_one()
        else:
            store._fast.execute(conn, _SET_REASON, {"b_id": stack.id, "status_reason": reason},
                                set_keys=("status_reason",))
            cursor = conn.cursor()
            cursor.execute(SESSION_ID["postgresql"])
            session = cursor.fetchone()[0]
            cursor.close()
        if len(tries) == 1:  # its statements ran; the COMMIT is what meets the end
            with admin.connect() as other:
                other.execute(text(f"SELECT pg_terminate_backend({int(session)}, 10000)"))

    try:
        for write in (store._tx.write, store._tx.write_raw):
            tries.clear()
            write(touch)
            assert len(tries) == 2
            found = store.get_stack(stack.id)
            assert found is not None and found.status_reason == "try 2"
    finally:
        engine.dispose()
        admin.dispose()


_SET_REASON = update(s.stack).where(s.stack.c.id == bindparam("b_id"))
