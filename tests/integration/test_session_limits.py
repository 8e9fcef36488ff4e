"""Every session hotplate opens on a database server carries the limits of
db/session_limits.py, and a writer that gives up waiting on a row lock runs its
transaction again instead of failing."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
from sqlalchemy import text, update
from sqlalchemy.exc import DBAPIError

from hotplate.db import schema as s
from hotplate.db.engine import make_engine
from hotplate.db.session_limits import SessionTimeouts
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock, make_stack

LIMITS = SessionTimeouts(idle_in_transaction=3, lock_wait=0.5, keepalive_idle=4,
                         keepalive_interval=2, keepalive_count=5, user_timeout=7, connect=3)

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
