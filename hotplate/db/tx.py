"""Running a function as one transaction.

Every store method is one call to ``write`` or ``read``. A write that finds
its condition false raises ``Rollback(value)``: the transaction is undone and
``value`` returned, so a lost compare-and-swap leaves nothing behind (no
event, no half-made replacement).

A write the server aborts as a deadlock victim or a serialisation failure is
run again from the start (a few times): the whole transaction is the unit,
so a rerun is safe. This is not a compare-and-swap retry: no condition is
re-checked in a loop, the server merely chose this transaction to break a
lock cycle. A write that waited longer than the session's lock timeout
(session_limits.py) is run again the same way: its lock's holder was a
silent session, which the server ends sooner than that.

A connection that dies under a transaction (the server restarted, or ended
the session: ``pg_terminate_backend``, an idle-in-transaction timeout) is
also run again, on a new connection, when nothing can have been committed:
a read always, a write when it died before its COMMIT was sent (the server
rolls back what a lost session had not committed), or when PostgreSQL says
it ended the session itself (admin_shutdown, idle-in-transaction timeout:
it does so between commands, never inside a COMMIT, so the COMMIT that
meets that answer never ran). A write whose COMMIT was otherwise lost may
or may not have happened: that, and a connection lost on every try, is
raised as ``StoreUnavailable``, for the caller to re-read rather than guess.

On PostgreSQL the hot path's transactions save round trips: a write on the
driver connection (``write_raw``) runs in psycopg's pipeline mode, where the
statements whose results it does not need go out with the next one or with
the COMMIT (fastpath.py); a single-statement read (``read_raw``) runs in
autocommit, without BEGIN and COMMIT. In pipeline mode the server's "session
ended" message can be lost in the connection's end, so before its COMMIT such
a write reads whatever the server has sent, without waiting: a connection
found closed then is lost before the COMMIT, and the write is run again. A
session ended while the COMMIT is on its way is told apart only when that
message still arrives (libpq gives it to the notice handlers); otherwise the
write may have committed, and StoreUnavailable is raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db.engine import WRITE_OPTION, engine_state
from hotplate.db.fastpath import BATCH_KEY, Batch
from hotplate.db.group_commit import GroupCommit, lanes_for
from hotplate.ports import StoreUnavailable

T = TypeVar("T")

_GROUP_LOCK = threading.Lock()

DEADLOCK_RETRIES = 3
_PG_RETRYABLE = frozenset({"40001", "40P01", "55P03"})
"""serialization_failure, deadlock_detected, lock_not_available (lock_timeout)."""
_MYSQL_RETRYABLE = frozenset({1213, 1205})
"""ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT (innodb_lock_wait_timeout)."""
_PG_ENDED_BETWEEN_COMMANDS = frozenset({"57P01", "25P03"})
"""admin_shutdown (pg_terminate_backend, a smart or fast shutdown) and
idle_in_transaction_session_timeout: the server ended the session while it waited
for a command, so the command that reads this answer was never run."""


_PG_IDLE = 0
"""libpq's PQTRANS_IDLE: no command running, no transaction open."""
_PG_CONNECTION_OK = 0
"""libpq's CONNECTION_OK."""
_READS_BEFORE_COMMIT = 2
"""Reads of what the server sent before a pipelined COMMIT: its last message
(a FATAL one) and then the end of the connection may come apart."""


class Rollback(Exception):
    """Raised inside a transaction function: undo everything, return ``value``."""

    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


def _rollback_value(exc: BaseException) -> tuple[bool, Any]:
    """Whether ``exc`` is a Rollback, and its value."""
    if isinstance(exc, Rollback):
        return True, exc.value
    return False, None


def is_retryable(exc: BaseException) -> bool:
    """True when the server aborted the transaction to break a deadlock, or a
    statement gave up waiting for a row lock.

    Takes SQLAlchemy's wrapped errors and the drivers' own alike.
    """
    orig = getattr(exc, "orig", exc)
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in _PG_RETRYABLE:
        return True
    args: tuple[Any, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in _MYSQL_RETRYABLE


class _Lost(Exception):
    """The connection died under a transaction; ``committing``: during its COMMIT;
    ``ended_by``: the SQLSTATE of the FATAL notice that ended the session, when a
    pipelined transaction saw one (in pipeline mode it is not the error raised)."""

    def __init__(self, error: Exception, committing: bool, ended_by: str | None = None,
                 ) -> None:
        super().__init__(str(error))
        self.error = error
        self.committing = committing
        self.ended_by = ended_by

    @property
    def may_have_committed(self) -> bool:
        orig = getattr(self.error, "orig", self.error)
        said = self.ended_by or getattr(orig, "sqlstate", None)
        return self.committing and said not in _PG_ENDED_BETWEEN_COMMANDS


class Transactions:
    """Runs functions in read or write transactions on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.state = engine_state(engine)
        self.dialect = engine.dialect.name
        with _GROUP_LOCK:
            if self.state.group_commit is None:
                self.state.group_commit = GroupCommit(self, lanes=lanes_for(self.dialect))
        self._group: GroupCommit = self.state.group_commit

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in a write transaction, committed unless it raises."""
        self._flush_batch()
        return self._rerun(lambda: self._write_once(fn), write=True)

    def read(self, fn: Callable[[Connection], T], *, single_statement: bool = False) -> T:
        """Run ``fn`` in a read transaction (one consistent snapshot across its reads).

        ``single_statement``: ``fn`` runs one SELECT, which is consistent on
        its own; on PostgreSQL it then runs in autocommit, saving the BEGIN
        and COMMIT round trips (psycopg switches autocommit client-side; on
        MariaDB the switch itself would cost a round trip each way).
        """
        self._flush_batch()
        return self._rerun(lambda: self._read_once(fn, single_statement), write=False)

    def write_raw(self, fn: Callable[[PoolProxiedConnection], T]) -> T:
        """``write`` on the driver connection itself, for the hot path's fast statements.

        Skips SQLAlchemy's Connection and transaction objects (~40 us per
        transaction on SQLite); ``fn`` must run its statements through
        FastPath. Same guarantees: one transaction, Rollback undoes it,
        deadlock victims and lost connections are run again.
        """
        batches = self.state.batches
        if batches is not None and batches.batching():
            return batches.write(fn, self._begin_immediate, _rollback_value)

        def once() -> T:
            with self._write_guard():
                return self._run_raw(fn, write=True)

        return self._rerun(once, write=True)

    def write_alone(self, fn: Callable[[PoolProxiedConnection], T]) -> T:
        """``write_raw``, committed on its own before it returns (after the thread's
        open batch, if any): for a write whose effect others learn of at once, by a
        notification or a lifecycle plugin, which must never tell of a write a crash
        could still lose."""
        self._flush_batch()

        def once() -> T:
            with self._write_guard():
                return self._run_raw(fn, write=True)

        return self._rerun(once, write=True)

    def write_grouped(self, fn: Callable[[PoolProxiedConnection], T], order: int) -> T:
        """``write_raw``, committed together with the writes other threads send
        meanwhile (group_commit.py): returns once the transaction holding it has
        committed. ``order``: the key of the row ``fn`` locks first (its resource's
        id), so that batches lock rows in one order. ``fn`` must be safe to run
        again (it is, on a deadlock) and must not wait on another write.

        A thread that batches its writes (write_batch.py) needs no group: the write
        joins its batch."""
        batches = self.state.batches
        if batches is not None and batches.batching():
            return batches.write(fn, self._begin_immediate, _rollback_value)
        return self._group.write(fn, order)

    def read_raw(self, fn: Callable[[PoolProxiedConnection], T]) -> T:
        """A single-statement read on the driver connection (see ``write_raw``); in a
        thread's open batch, inside it (the thread sees its own writes)."""
        batches = self.state.batches
        if batches is not None:
            inside, result = batches.read(fn)
            if inside:
                return result  # type: ignore[return-value]

        def once() -> T:
            guard = self._write_guard() if self.state.serialise_reads else nullcontext()
            with guard:
                return self._run_raw(fn, write=False)

        return self._rerun(once, write=False)

    def _rerun(self, once: Callable[[], T], *, write: bool) -> T:
        """``once()``, run again (a few times) for a deadlock victim, or on a new
        connection for one lost before anything could be committed."""
        for attempt in range(DEADLOCK_RETRIES + 1):
            last = attempt == DEADLOCK_RETRIES
            try:
                return once()
            except _Lost as lost:
                if last or (write and lost.may_have_committed):
                    raise StoreUnavailable(f"the database connection was lost: {lost.error}",
                                           ) from lost.error
            except Exception as exc:
                if last or not (write and is_retryable(exc)):
                    raise
            self.state.stats.add_retry()
        raise AssertionError("unreachable")

    def _write_once(self, fn: Callable[[Connection], T]) -> T:
        committing = False
        with self._write_guard(), self.engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            try:
                with conn.begin():
                    result = fn(conn)
                    committing = True
                self.state.stats.add_commit()
                return result
            except Rollback as rollback:
                return rollback.value  # type: ignore[no-any-return]
            except Exception as exc:
                if self._lost(conn, exc):
                    raise _Lost(exc, committing) from exc
                raise

    def _read_once(self, fn: Callable[[Connection], T], single_statement: bool) -> T:
        guard = self._write_guard() if self.state.serialise_reads else nullcontext()
        with guard, self.engine.connect() as conn:
            try:
                if single_statement and self.dialect == "postgresql":
                    conn.execution_options(isolation_level="AUTOCOMMIT")
                    return fn(conn)
                with conn.begin():
                    return fn(conn)
            except Exception as exc:
                if self._lost(conn, exc):
                    raise _Lost(exc, committing=False) from exc
                raise

    def _lost(self, conn: Connection, exc: Exception) -> bool:
        """Whether ``exc`` says the connection died under the transaction.

        SQLAlchemy finds that out on its own statements, and then drops the
        connection and the pool's older ones; a FastPath statement's error is
        the driver's, which SQLAlchemy never saw, so that is done here.
        """
        if isinstance(exc, DBAPIError):
            return bool(exc.connection_invalidated)
        if conn.invalidated:
            return True
        dbapi = self.engine.dialect.loaded_dbapi
        if not isinstance(exc, dbapi.Error) or not self.engine.dialect.is_disconnect(
                exc, conn.connection.dbapi_connection, None):  # type: ignore[arg-type]
            return False
        conn.invalidate(exc)
        self.engine.dispose()
        return True

    def _run_raw(self, fn: Callable[[PoolProxiedConnection], T], *, write: bool) -> T:
        kept = self.state.kept_writer if write else None
        if kept is not None:
            raw, generation = kept.take()
        else:
            raw = self.engine.raw_connection()
        committing = False
        ended: list[str] = []
        try:
            sqlite = self.dialect == "sqlite"
            began = write or not (sqlite or self._pipelines)
            if sqlite and write:
                # The driver runs in autocommit (see engine.py): BEGIN is ours to say.
                raw.driver_connection.execute("BEGIN IMMEDIATE").close()  # type: ignore[union-attr]
            with self._pipelined(raw, ended) if write else self._autocommit(raw):
                try:
                    result = fn(raw)
                except Rollback as rollback:
                    self._end(raw, commit=False, began=began)
                    return rollback.value  # type: ignore[no-any-return]
                except BaseException:
                    self._end(raw, commit=False, began=began)
                    raise
                if write and self._pipelines:
                    self._still_open(raw)
                committing = True
                self._end(raw, commit=True, began=began)
                if write:
                    self.state.stats.add_commit()
            return result
        except Exception as exc:
            lost_by = self._lost_in_chain(exc, raw)
            if lost_by is None:
                raise
            if lost_by and not ended:
                ended.append(lost_by)
            # As SQLAlchemy does on its own paths: this connection is dropped, and with
            # it the pool's others (opened before the loss, they are likely dead too).
            raw.invalidate(exc)
            self.engine.dispose()
            raise _Lost(exc, committing, ended[0] if ended else None) from exc
        finally:
            if kept is not None:
                kept.give_back(raw, generation)
            else:
                raw.close()

    def connection_lost(self, raw: PoolProxiedConnection, exc: BaseException) -> bool:
        """Whether ``exc``, met on ``raw``, says the connection died."""
        return self._lost_in_chain(exc, raw) is not None

    def _lost_in_chain(self, exc: BaseException, raw: PoolProxiedConnection) -> str | None:
        """Whether ``exc`` says the connection was lost: None if not, else the SQLSTATE
        with which the server ended the session ("" when it did not say).

        psycopg leaving pipeline mode on a connection the server ended raises
        "cannot exit pipeline mode while busy", the server's own error (an
        ``admin_shutdown``) only as its context, and SQLAlchemy reads neither as a
        disconnect: the chain is searched, and a driver that calls its connection
        broken is believed.
        """
        found: str | None = None
        seen: BaseException | None = exc
        for _ in range(8):
            if seen is None:
                break
            said = getattr(seen, "sqlstate", None)
            if isinstance(said, str) and said in _PG_ENDED_BETWEEN_COMMANDS:
                return said
            if isinstance(seen, Exception) and self.engine.dialect.is_disconnect(
                    seen, raw.dbapi_connection, None):  # type: ignore[arg-type]
                found = ""
            seen = seen.__cause__ or seen.__context__
        if found is None and self._pipelines and getattr(raw.driver_connection, "broken",
                                                         False):
            found = ""
        return found

    @property
    def _pipelines(self) -> bool:
        """Whether the driver has a pipeline mode (psycopg on PostgreSQL)."""
        return self.dialect == "postgresql" and self.engine.dialect.driver == "psycopg"

    @contextmanager
    def _pipelined(self, raw: PoolProxiedConnection, ended: list[str]) -> Iterator[None]:
        """A write in pipeline mode, its ``Batch`` on the connection (fastpath.py).

        A session the server ends between commands says so in a FATAL message
        that, in pipeline mode, libpq hands to the notice handlers rather than
        raising it: ``ended`` collects its SQLSTATE, so a COMMIT that met it is
        known never to have run, as outside pipeline mode.
        """
        if not self._pipelines:
            yield
            return
        driver: Any = raw.driver_connection

        def on_notice(diagnostic: Any) -> None:
            if diagnostic.severity_nonlocalized == "FATAL" and diagnostic.sqlstate:
                ended.append(diagnostic.sqlstate)

        driver.add_notice_handler(on_notice)
        try:
            with driver.pipeline() as pipeline:
                raw.info[BATCH_KEY] = Batch(pipeline)
                try:
                    yield
                finally:
                    del raw.info[BATCH_KEY]
        finally:
            driver.remove_notice_handler(on_notice)

    def _still_open(self, raw: PoolProxiedConnection) -> None:
        """Raise the driver's error if the server has closed the connection already.

        In pipeline mode the message with which PostgreSQL ends a session may
        be lost in the error its COMMIT then meets, which would leave it unknown
        whether that COMMIT ran. Whatever the server has sent is read first,
        without waiting: a connection found closed before the COMMIT went out
        is lost before it, and the transaction is run again.
        """
        pgconn: Any = raw.driver_connection.pgconn  # type: ignore[union-attr]
        for _ in range(_READS_BEFORE_COMMIT):
            pgconn.consume_input()  # raises the driver's OperationalError at the end
            if pgconn.status != _PG_CONNECTION_OK:
                raise self.engine.dialect.loaded_dbapi.OperationalError(
                    "the server closed the connection before the COMMIT")

    @contextmanager
    def _autocommit(self, raw: PoolProxiedConnection) -> Iterator[None]:
        """A single-statement read in autocommit (no BEGIN, no COMMIT: a statement is
        consistent on its own), where the switch is the driver's alone."""
        if not self._pipelines:
            yield
            return
        driver: Any = raw.driver_connection
        driver.autocommit = True
        try:
            yield
        finally:
            if driver.closed or driver.broken:
                pass  # lost: dropped by the caller's disconnect handling
            elif driver.info.transaction_status == _PG_IDLE:
                driver.autocommit = False
            else:
                # Stopped mid-statement: it must never go back to the pool in autocommit.
                driver.close()

    def _end(self, raw: PoolProxiedConnection, *, commit: bool, began: bool) -> None:
        if not began:
            return  # SQLite read: a lone SELECT in autocommit, nothing to end
        if self.dialect == "sqlite":
            raw.driver_connection.execute(  # type: ignore[union-attr]
                "COMMIT" if commit else "ROLLBACK").close()
        elif commit:
            raw.commit()
        else:
            raw.rollback()

    def _flush_batch(self) -> None:
        """Commit this thread's open batch before a transaction of another connection,
        which would not see it (and, writing, would wait for it forever)."""
        batches = self.state.batches
        if batches is not None:
            batches.flush()

    def _begin_immediate(self, raw: PoolProxiedConnection) -> None:
        raw.driver_connection.execute("BEGIN IMMEDIATE").close()  # type: ignore[union-attr]

    @contextmanager
    def _write_guard(self) -> Iterator[None]:
        batches = self.state.batches
        if batches is not None:  # counts who waits, so that an open batch ends soon
            batches.acquire()
            try:
                yield
            finally:
                batches.release()
            return
        lock: threading.Lock | None = self.state.write_lock
        if lock is None:
            yield
            return
        with lock:
            yield
