"""Running a function as one transaction.

Every store method is one call to ``write`` or ``read``. A write that finds
its condition false raises ``Rollback(value)``: the transaction is undone and
``value`` returned, so a lost compare-and-swap leaves nothing behind (no
event, no half-made replacement).

A write the server aborts as a deadlock victim or a serialisation failure is
run again from the start (a few times): the whole transaction is the unit,
so a rerun is safe. This is not a compare-and-swap retry: no condition is
re-checked in a loop, the server merely chose this transaction to break a
lock cycle.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from hotplate.db.engine import WRITE_OPTION, engine_state

T = TypeVar("T")

DEADLOCK_RETRIES = 3
_PG_RETRYABLE = frozenset({"40001", "40P01"})  # serialization_failure, deadlock_detected
_MYSQL_RETRYABLE = frozenset({1213})  # ER_LOCK_DEADLOCK


class Rollback(Exception):
    """Raised inside a transaction function: undo everything, return ``value``."""

    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


def is_retryable(exc: DBAPIError) -> bool:
    """True when the server aborted the transaction to break a deadlock."""
    orig = exc.orig
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in _PG_RETRYABLE:
        return True
    args: tuple[Any, ...] = getattr(orig, "args", ())
    return bool(args) and args[0] in _MYSQL_RETRYABLE


class Transactions:
    """Runs functions in read or write transactions on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.state = engine_state(engine)
        self.dialect = engine.dialect.name

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in a write transaction, committed unless it raises."""
        for attempt in range(DEADLOCK_RETRIES + 1):
            try:
                with self._write_guard(), self.engine.connect() as conn:
                    conn.execution_options(**{WRITE_OPTION: True})
                    try:
                        with conn.begin():
                            return fn(conn)
                    except Rollback as rollback:
                        return rollback.value  # type: ignore[no-any-return]
            except DBAPIError as exc:
                if attempt == DEADLOCK_RETRIES or not is_retryable(exc):
                    raise
                self.state.stats.add_retry()
        raise AssertionError("unreachable")

    def read(self, fn: Callable[[Connection], T], *, single_statement: bool = False) -> T:
        """Run ``fn`` in a read transaction (one consistent snapshot across its reads).

        ``single_statement``: ``fn`` runs one SELECT, which is consistent on
        its own; on PostgreSQL it then runs in autocommit, saving the BEGIN
        and COMMIT round trips (psycopg switches autocommit client-side; on
        MariaDB the switch itself would cost a round trip each way).
        """
        guard = self._write_guard() if self.state.serialise_reads else nullcontext()
        with guard, self.engine.connect() as conn:
            if single_statement and self.dialect == "postgresql":
                conn.execution_options(isolation_level="AUTOCOMMIT")
                return fn(conn)
            with conn.begin():
                return fn(conn)

    @contextmanager
    def _write_guard(self) -> Iterator[None]:
        lock: threading.Lock | None = self.state.write_lock
        if lock is None:
            yield
            return
        with lock:
            yield
