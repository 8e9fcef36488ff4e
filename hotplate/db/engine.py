"""Building engines, and the per-engine state every store on it shares.

SQLite has one writer per database file. Rather than letting threads race
for it and fail with "database is locked", writes are serialised inside the
process by one lock per engine, and each write transaction starts with
``BEGIN IMMEDIATE`` so it holds the write lock from its first statement (a
deferred transaction that reads first and writes later can fail to upgrade).
WAL lets readers proceed while a write is in flight. Between processes,
``busy_timeout`` makes a writer wait instead of failing.

PostgreSQL (psycopg 3) and MariaDB (PyMySQL) need nothing of the kind: row
locks do the work. MariaDB runs at READ COMMITTED so a statement that waited
for a row lock sees what the lock holder committed, as on PostgreSQL.

Pools are bounded: a burst beyond ``pool_size + max_overflow`` waits for a
connection instead of opening more. ``PoolLimits`` sizes them from what will
use them (the engine's threads, which the composition root counts) and from
the operator's ``[database]`` max_pool_size / max_overflow.

The server drivers are optional extras; ``require_driver`` turns a URL whose
driver is missing into a ``DatabaseUrlError`` that names the extra to install,
rather than the ImportError SQLAlchemy raises on first connect.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from hotplate.db.kept_writer import KeptWriter
from hotplate.db.session_limits import (
    SessionTimeouts,
    mysql_session_statements,
    postgres_connect_args,
    set_socket_timeouts,
)
from hotplate.db.write_batch import WriteBatches

SQLITE_BUSY_TIMEOUT_MS = 30_000
POOL_RECYCLE_SECONDS = 3600
WRITE_OPTION = "hotplate_write"
"""Connection execution option that marks a write transaction (SQLite: BEGIN IMMEDIATE)."""


HEAT_TIMERS = SessionTimeouts()
"""Session timeouts for Heat's timers: what a process that is not an engine gets."""

EXTRAS = {"psycopg": "postgres", "pymysql": "mysql"}
"""The drivers hotplate supports -> the extra of the package that installs each."""


class DatabaseUrlError(ValueError):
    """A database URL hotplate cannot use: it does not parse, names no dialect
    SQLAlchemy knows, or its driver is not installed. The text is one line
    for the user, without the URL (it may hold a password)."""


def require_driver(url: str | URL) -> URL:
    """``url`` parsed, once its dialect and driver are known to import.

    Raises:
        DatabaseUrlError: naming, for a missing driver, the extra that
            installs it (``pip install 'hotplate[postgres]'``).
    """
    try:
        parsed = make_url(url)
        dialect = parsed.get_dialect()
    except ArgumentError as exc:
        raise DatabaseUrlError(f"unusable database URL: {exc}") from None
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        raise DatabaseUrlError(_missing_driver(parsed, exc)) from None
    return parsed


def _missing_driver(url: URL, exc: ImportError) -> str:
    driver = url.get_driver_name()
    head = f"{url.drivername}:// needs the {driver} driver, which is not installed ({exc})"
    extra = EXTRAS.get(driver)
    if extra is not None:
        return f"{head}; install it with: pip install 'hotplate[{extra}]'"
    return (f"{head}; hotplate's drivers are postgresql+psycopg:// "
            "(pip install 'hotplate[postgres]') and mysql+pymysql:// "
            "(pip install 'hotplate[mysql]')")


@dataclass(frozen=True, slots=True)
class PoolLimits:
    """``[database]`` max_pool_size, max_overflow and pool_timeout, as oslo.db names them.

    Heat raises max_overflow to the RPC executor's thread count so that every
    thread can get a connection (a thread left waiting for the pool holds its
    message meanwhile, and its caller may time out); ``sized`` keeps that
    promise for any thread count.
    """

    max_pool_size: int | None = None
    """Connections kept open; None: as many as will be ``needed``."""
    max_overflow: int = 0
    """Connections opened beyond those in a burst, closed when returned."""
    timeout: float = 30.0
    """Seconds to wait for a connection before failing."""

    def sized(self, needed: int) -> tuple[int, int]:
        """``(pool_size, max_overflow)`` for ``needed`` concurrent users.

        Connections open lazily, so an idle process holds only as many as its
        busiest moment needed (at most ``pool_size``).
        """
        if needed < 1:
            raise ValueError(f"a pool for {needed} users")
        pool_size = self.max_pool_size or needed
        return pool_size, max(self.max_overflow, needed - pool_size)


@dataclass(frozen=True)
class StatsSnapshot:
    """Counters at one moment; subtract two to measure what happened in between."""

    statements: int = 0
    cas_retries: int = 0
    """Transactions rerun after the server broke a deadlock. A compare-and-swap
    itself is never retried by the store, so this stays 0 unless rows deadlock."""
    commits: int = 0
    """Write transactions committed (a group commit's batch counts once)."""

    def __sub__(self, other: StatsSnapshot) -> StatsSnapshot:
        return StatsSnapshot(
            self.statements - other.statements, self.cas_retries - other.cas_retries,
            self.commits - other.commits,
        )


class StatementStats:
    """Counts SQL statements sent to the server (an executemany counts once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._retries = 0
        self._commits = 0

    @property
    def statements(self) -> int:
        return self._count

    @property
    def cas_retries(self) -> int:
        return self._retries

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def add_retry(self) -> None:
        with self._lock:
            self._retries += 1

    def add_commit(self) -> None:
        with self._lock:
            self._commits += 1

    def snapshot(self) -> StatsSnapshot:
        with self._lock:
            return StatsSnapshot(self._count, self._retries, self._commits)

    def reset(self) -> int:
        """Zero the counters; returns the statement count it had."""
        with self._lock:
            count, self._count, self._retries, self._commits = self._count, 0, 0, 0
            return count


@dataclass
class EngineState:
    """What every store on one engine shares."""

    stats: StatementStats = field(default_factory=StatementStats)
    write_lock: threading.Lock | None = None
    """SQLite only: held around every write transaction of this process."""
    serialise_reads: bool = False
    """In-memory SQLite only: one shared connection, so reads take the lock too."""
    group_commit: Any = None
    """The process's queue of grouped writes on this engine (group_commit.py), made by
    the first ``Transactions`` on it."""
    kept_writer: KeptWriter | None = None
    """SQLite files only: the write connection handed from write to write."""
    batches: WriteBatches | None = None
    """SQLite files only: the engine's write lock, and the threads that batch their
    writes (write_batch.py)."""


_STATES: weakref.WeakKeyDictionary[Engine, EngineState] = weakref.WeakKeyDictionary()
_STATES_LOCK = threading.Lock()


def engine_state(engine: Engine) -> EngineState:
    """The shared state of ``engine``, set up on first use for engines made elsewhere."""
    with _STATES_LOCK:
        state = _STATES.get(engine)
        if state is None:
            state = _STATES[engine] = EngineState()
            _count_statements(engine, state.stats)
            if engine.dialect.name == "sqlite":
                state.write_lock = threading.Lock()
        return state


def make_engine(
    url: str | URL,
    *,
    pool_size: int = 10,
    max_overflow: int = 0,
    pool_timeout: float = 30.0,
    pre_ping: bool = False,
    timeouts: SessionTimeouts | None = HEAT_TIMERS,
    session_name: str | None = None,
) -> Engine:
    """An engine for ``url`` with a bounded pool of ``pool_size`` connections kept
    open and up to ``max_overflow`` more opened in a burst.

    SQLite gets WAL, busy_timeout 30 s, foreign keys, synchronous=NORMAL and
    in-process write serialisation (its directory is created if missing);
    ``sqlite://`` (in memory) gets a single shared connection and serialises
    reads as well. ``pre_ping`` tests each connection on checkout: a round
    trip per transaction, worth it only where connections die behind the
    pool's back (pooled connections are recycled hourly regardless).

    ``timeouts``: how long a silent peer may hold a session (and its row
    locks) on a database server: keepalives and TCP_USER_TIMEOUT on both
    ends, the server ending a session idle inside a transaction, a writer
    giving up on a lock (session_limits.py). A process stopped in the middle
    of a transaction (SIGSTOP, a frozen VM, a partition) otherwise keeps its
    row locks for as long as its connection lives, and whoever takes over
    its work waits on them. Heat's timers by default; engines pass theirs
    (``SessionTimeouts.for_lease``); None sets nothing. SQLite needs none.

    ``session_name``: each session's ``application_name`` on PostgreSQL (its
    ``program_name`` connection attribute on MariaDB): an engine's
    (``engine_session_name``) lets the engine that takes its work over end
    the sessions it left (session_limits.py).

    Raises:
        DatabaseUrlError: ``url`` is unusable, or its driver is not installed.
    """
    parsed = require_driver(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        engine = _make_sqlite_engine(parsed, pool_size, max_overflow, pool_timeout)
    else:
        kwargs: dict[str, Any] = {
            "pool_size": pool_size,
            "max_overflow": max_overflow,
            "pool_timeout": pool_timeout,
            "pool_pre_ping": pre_ping,
            "pool_recycle": POOL_RECYCLE_SECONDS,
        }
        mysql = backend in ("mysql", "mariadb")
        if mysql:
            kwargs["isolation_level"] = "READ COMMITTED"
            kwargs["connect_args"] = {"charset": "utf8mb4"}
            if timeouts is not None:
                kwargs["connect_args"]["connect_timeout"] = timeouts.connect
            if session_name is not None:
                kwargs["connect_args"]["program_name"] = session_name
        else:
            kwargs["connect_args"] = {}
            if timeouts is not None:  # set as the session starts: no round trip
                given = parsed.query.get("options")
                kwargs["connect_args"] = postgres_connect_args(
                    timeouts, " ".join(given) if isinstance(given, tuple) else given)
                parsed = parsed.difference_update_query(["options"])
            if session_name is not None:
                kwargs["connect_args"]["application_name"] = session_name
        engine = create_engine(parsed, **kwargs)
        if mysql and timeouts is not None:
            _limit_mysql_sessions(engine, timeouts)
    engine_state(engine)
    return engine


def _limit_mysql_sessions(engine: Engine, timeouts: SessionTimeouts) -> None:
    """On each new MariaDB connection: the socket's keepalives and user timeout, and
    the session's lock wait and idle-transaction limits (a MySQL server, which has no
    idle_transaction_timeout, refuses that one: its sessions go without)."""
    statements = mysql_session_statements(timeouts)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        sock = getattr(dbapi_connection, "_sock", None)
        if sock is not None:
            set_socket_timeouts(sock, timeouts)
        cursor = dbapi_connection.cursor()
        try:
            for statement in statements:
                with contextlib.suppress(engine.dialect.loaded_dbapi.Error):
                    cursor.execute(statement)
        finally:
            cursor.close()


def ensure_sqlite_directory(url: str | URL) -> None:
    """Create the directory of a SQLite database file (``./var/`` on first run)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def _make_sqlite_engine(url: URL, pool_size: int, max_overflow: int,
                        pool_timeout: float) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    ensure_sqlite_directory(url)
    if in_memory:
        engine = create_engine(
            url, poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    else:
        engine = create_engine(
            url,
            pool_size=pool_size,
            # One more than asked: the kept write connection (kept_writer.py) is
            # out of the pool even while no write runs.
            max_overflow=max_overflow + 1,
            pool_timeout=pool_timeout,
            connect_args={"check_same_thread": False},
        )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Take BEGIN away from the driver: _on_begin issues it, so a write
        # can ask for IMMEDIATE and a read gets a real (deferred) transaction.
        dbapi_connection.isolation_level = None
        for pragma in (
            "journal_mode=WAL",
            f"busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
            "foreign_keys=ON",
            "synchronous=NORMAL",
        ):
            dbapi_connection.execute(f"PRAGMA {pragma}").close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get(WRITE_OPTION, False)
        driver_connection = conn.connection.driver_connection
        assert isinstance(driver_connection, sqlite3.Connection)
        # Straight to the driver: BEGIN is not one of the statements counted.
        driver_connection.execute("BEGIN IMMEDIATE" if write else "BEGIN").close()

    state = engine_state(engine)
    state.serialise_reads = in_memory
    if not in_memory:  # in memory, the pool's one shared connection serves already
        state.kept_writer = KeptWriter(engine)
        assert state.write_lock is not None
        state.batches = WriteBatches(state.write_lock, state.kept_writer,
                                     on_commit=state.stats.add_commit)
    return engine


def _count_statements(engine: Engine, stats: StatementStats) -> None:
    @event.listens_for(engine, "before_cursor_execute")
    def _count(*_args: Any) -> None:
        stats.add()
