"""Every session hotplate opens on a database server carries the limits of
db/session_limits.py, a writer that gives up waiting on a row lock runs its
transaction again instead of failing, and the sessions a dead engine left inside
a pipelined write (where no server timeout ends them) are ended by the engine that
takes its work over."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import text, update
from sqlalchemy.exc import DBAPIError

from hotplate.app import start_engine
from hotplate.db import schema as s
from hotplate.db.engine import make_engine
from hotplate.db.session_limits import SessionTimeouts, engine_session_name
from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId
from hotplate.model.states import Status
from hotplate.rpc.deterministic import DeterministicTransport
from tests.integration.helpers import FakeClock, make_resource, make_stack, new_id

LIMITS = SessionTimeouts(idle_in_transaction=3, lock_wait=0.5, keepalive_idle=4,
                         keepalive_interval=2, keepalive_count=5, user_timeout=7, connect=3)

QUICK = SessionTimeouts(idle_in_transaction=0.3, lock_wait=0.3, keepalive_idle=1,
                       keepalive_interval=1, keepalive_count=3, user_timeout=2, connect=3)
"""Limits short enough that a session they could end is ended well within a test."""

SETTINGS = {
    "postgresql": ("SELECT current_setting('idle_in_transaction_session_timeout'), "
                   "current_setting('lock_timeout'), current_setting('tcp_keepalives_idle'), "
                   "current_setting('tcp_keepalives_interval'), "
                   "current_setting('tcp_keepalives_count'), "
                   "current_setting('tcp_user_timeout')",
                   ("3s", "500ms", "4", "2", "5", "7000")),
    "mariadb": ("SELECT @@session.idle_transaction_timeout, "
                "@@session.innodb_lock_wait_timeout", (3, 1)),
}


def test_a_session_carries_its_limits(db_url: str, backend: str) -> None:
    if backend == "sqlite":
        pytest.skip("SQLite has no server session")
    engine = make_engine(db_url, pool_size=1, timeouts=LIMITS)
    try:
        query, expected = SETTINGS[backend]
        with engine.connect() as conn:
            assert tuple(conn.execute(text(query)).one()) == expected
            if backend == "mariadb":  # the client's socket: keepalives and a user timeout
                sock = conn.connection.dbapi_connection._sock  # type: ignore[union-attr]
                import socket
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 4
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 7000
    finally:
        engine.dispose()


def test_a_writer_that_gives_up_on_a_lock_runs_again(db_url: str, backend: str,
                                                     store: SqlStore) -> None:
    """A row held for longer than the writer's lock wait (by a live session, not an idle
    one): the writer's statement gives up, its transaction runs again, and it lands once
    the holder commits."""
    if backend == "sqlite":
        pytest.skip("SQLite writers queue in the process")
    stack = make_stack(store, FakeClock())
    waiting = make_engine(db_url, pool_size=1, timeouts=LIMITS)
    holder = make_engine(db_url, pool_size=1, timeouts=None)
    writer = SqlStore(waiting, FakeClock())
    held = holder.connect()
    try:
        held.begin()
        held.execute(update(s.stack).where(s.stack.c.id == stack.id)
                     .values(status_reason="held"))
        taking = threading.Thread(target=writer._tx.write, args=(lambda conn: conn.execute(
            update(s.stack).where(s.stack.c.id == stack.id).values(status_reason="taken")),))
        taking.start()
        time.sleep(0.8)  # beyond one lock wait (MariaDB's least is 1 s: maybe not yet)
        held.commit()
        taking.join(15)
        assert not taking.is_alive()
        found = store.get_stack(stack.id)
        assert found is not None and found.status_reason == "taken"
        if backend == "postgresql":
            assert writer.stats.cas_retries >= 1
    finally:
        with contextlib.suppress(DBAPIError):
            held.close()
        waiting.dispose()
        holder.dispose()


@contextlib.contextmanager
def _stopped_inside_a_pipelined_write(db_url: str, engine_id: EngineId, sql: str,
                                      row_id: object) -> Iterator[int]:
    """A session of ``engine_id``'s that sent ``sql`` (an UPDATE of the row ``row_id``) in
    pipeline mode, and then nothing, not even the Sync: as an engine cut off between a
    fastpath ``send`` and the statement that syncs. Yields the session's backend pid."""
    holder = make_engine(db_url, pool_size=1, timeouts=QUICK,
                         session_name=engine_session_name(engine_id))
    raw = holder.raw_connection()
    driver = raw.driver_connection
    assert isinstance(driver, psycopg.Connection)
    pipeline = driver.pipeline()
    try:
        pipeline.__enter__()
        driver.execute(sql, (row_id,))
        yield driver.info.backend_pid
    finally:
        # Leaving the pipeline syncs: on a session ended meanwhile, that fails.
        with contextlib.suppress(DBAPIError, psycopg.Error):
            pipeline.__exit__(None, None, None)
        with contextlib.suppress(DBAPIError, psycopg.Error):
            raw.close()
        holder.dispose()


def _session_state(store: SqlStore, pid: int) -> str | None:
    with store.engine.connect() as conn:
        return conn.execute(text("SELECT state FROM pg_stat_activity WHERE pid = :pid"),
                            {"pid": pid}).scalar()


def test_a_dead_engines_session_stopped_inside_a_pipelined_write_is_ended(
        db_url: str, backend: str, store: SqlStore) -> None:
    """PostgreSQL arms its idle-in-transaction timer only once a command is complete: a
    session stopped after a pipelined UPDATE and before its Sync holds the row lock with
    no timer running, and every writer of that row gives up. Ending the dead engine's
    sessions frees the row, and leaves another engine's sessions alone."""
    if backend != "postgresql":
        pytest.skip("only PostgreSQL writes are pipelined; a silent MariaDB session is "
                    "idle between commands, where its idle_transaction_timeout ends it")
    stack = make_stack(store, FakeClock())
    dead, live = EngineId(new_id()), EngineId(f"live-{new_id()}")
    writer_engine = make_engine(db_url, pool_size=1, timeouts=QUICK)
    live_engine = make_engine(db_url, pool_size=1, timeouts=QUICK,
                              session_name=engine_session_name(live))
    writer = SqlStore(writer_engine, FakeClock())
    change = update(s.stack).where(s.stack.c.id == stack.id).values(status_reason="taken")
    try:
        with live_engine.connect() as live_conn, _stopped_inside_a_pipelined_write(
                db_url, dead, "UPDATE stack SET status_reason = 'held' WHERE id = %s",
                stack.id) as pid:
            time.sleep(3 * QUICK.idle_in_transaction)
            assert _session_state(store, pid) == "active"  # no timer ends it
            with pytest.raises(DBAPIError, match="lock timeout"):
                writer._tx.write(lambda conn: conn.execute(change))
            assert store.end_sessions_of(dead) == 1
            assert _session_state(store, pid) is None
            writer._tx.write(lambda conn: conn.execute(change))
            assert live_conn.execute(text("SELECT 1")).scalar() == 1
            assert store.end_sessions_of(dead) == 0
        found = store.get_stack(stack.id)
        assert found is not None and found.status_reason == "taken"
    finally:
        writer_engine.dispose()
        live_engine.dispose()


def test_a_takeover_ends_the_dead_engines_sessions_before_it_steals(
        db_url: str, backend: str, store: SqlStore) -> None:
    """The dead engine's lock row is held by its own session, stopped inside a pipelined
    write: a live engine's takeover still takes the row (every steal would otherwise
    give up on the row lock, round after round)."""
    if backend != "postgresql":
        pytest.skip("only PostgreSQL writes are pipelined")
    stack = make_stack(store, FakeClock(), status=Status.COMPLETE)
    rid = make_resource(store, stack)
    dead = EngineId(new_id())
    assert store.acquire_resource(rid, dead, 0, {}) is not None
    live_store = SqlStore(make_engine(db_url, pool_size=4, timeouts=QUICK), FakeClock())
    engine = start_engine(live_store, DeterministicTransport(0, reorder=False),
                          engine_id=new_id())
    try:
        with _stopped_inside_a_pipelined_write(
                db_url, dead, "UPDATE resource SET status_reason = 'held' WHERE id = %s",
                int(rid)):
            assert engine.recovery is not None
            assert engine.recovery.take_over(dead) == 1
        row = store.get_resource(rid)
        assert row is not None and row.engine_id is None
        assert row.status is Status.FAILED  # a finished stack's row: its action failed
    finally:
        engine.stop()
        live_store.engine.dispose()
