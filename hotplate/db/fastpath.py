"""Hot-path statements run straight on the driver's cursor.

SQLAlchemy Core spends ~60 us building an execution context around each
statement; SQLite runs the same UPDATE in ~6 us. The convergence hot path
sends six to eight statements per resource, so that overhead, not the
database, set the engine's speed. Here each hot statement is compiled once
per dialect and per set of parameter keys (with SQLAlchemy: its SQL text,
parameter order and type processors), then executed on the DBAPI cursor of
the connection SQLAlchemy manages, inside the same transaction.

Type conversion stays SQLAlchemy's: the bind and result processors of the
column types (our JSON text and UTC timestamps included) are looked up once
and applied here. Statements are counted like the others.

On PostgreSQL a write transaction runs in psycopg's pipeline mode (tx.py puts
its ``Batch`` on the connection): a statement whose result the transaction
does not need goes out with the next one that needs a result, or with the
COMMIT (``send``, ``defer``, ``execute_many``), so the BEGIN travels with the
first statement and the last statements with the COMMIT, in one round trip.
A row lock the last statements take is then held for the server's time only,
not for a round trip and the wait of a Python thread for the interpreter
between the statement and the COMMIT. Elsewhere each statement runs at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import Connection, Dialect
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from hotplate.db.engine import StatementStats

Processor = Callable[[Any], Any]


_MISSING = object()

BATCH_KEY = "hotplate.batch"
"""Where a pipelined transaction's ``Batch`` sits in the connection's ``info``."""


class Batch:
    """The psycopg pipeline a write transaction runs in (see the module docstring)."""

    __slots__ = ("pipeline",)

    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline


class Deferred:
    """A statement's rows, to be read once its transaction has committed."""

    __slots__ = ("_cursor", "_prepared", "_rows")

    def __init__(self, rows: list[dict[str, Any]] | None, cursor: Any = None,
                 prepared: Prepared | None = None) -> None:
        self._rows = rows
        self._cursor = cursor
        self._prepared = prepared

    def rows(self) -> list[dict[str, Any]]:
        """The statement's rows (processed, by column key); only after the COMMIT
        when the statement went with it."""
        if self._rows is None:
            assert self._cursor is not None and self._prepared is not None
            try:
                self._rows = self._prepared.rows(self._cursor.fetchall())
            finally:
                self._cursor.close()
        return self._rows


def _batch(conn: Connection | PoolProxiedConnection) -> Batch | None:
    if isinstance(conn, Connection):
        return None  # SQLAlchemy's own transactions are never pipelined
    found: Batch | None = conn.info.get(BATCH_KEY)
    return found


class Prepared:
    """One statement compiled for one dialect and one set of parameter keys.

    Everything per-call work needs is worked out here, once: the parameter
    order (or names), each parameter's processor and default, and which
    result columns need converting.
    """

    __slots__ = ("converted", "names", "plan", "positional", "sql")

    def __init__(
        self, statement: ClauseElement, dialect: Dialect, keys: Iterable[str] | None
    ) -> None:
        column_keys = sorted(keys) if keys is not None else None
        # Hot statements are SQL expressions, so their compiler is a SQLCompiler.
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=column_keys))
        self.sql: str = str(compiled)
        self.positional: bool = bool(compiled.positional)
        order = (
            list(compiled.positiontup or ())
            if self.positional
            else [name for name in compiled.binds if f"%({name})s" in self.sql]
        )
        plan: list[tuple[str, Processor | None, Any]] = []
        for name in order:
            bind = compiled.binds[name]
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            default = _MISSING if bind.required else bind.effective_value
            plan.append((name, processor, default))
        self.plan: tuple[tuple[str, Processor | None, Any], ...] = tuple(plan)
        columns = list(getattr(statement, "exported_columns", ()) or ())
        self.names: tuple[str, ...] = tuple(str(c.key) for c in columns)
        converted = []
        for column in columns:
            processor = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if processor is not None:
                converted.append((str(column.key), processor))
        self.converted: tuple[tuple[str, Processor], ...] = tuple(converted)

    def parameters(self, params: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        values: list[Any] = []
        for name, processor, default in self.plan:
            value = params.get(name, default)
            if value is _MISSING:
                raise KeyError(f"statement parameter {name!r} not given")
            values.append(processor(value) if processor is not None else value)
        if self.positional:
            return values
        return dict(zip((name for name, _, _ in self.plan), values, strict=True))

    def rows(self, raw_rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
        names, converted = self.names, self.converted
        out = []
        for raw in raw_rows:
            row = dict(zip(names, raw, strict=False))
            for name, processor in converted:
                row[name] = processor(row[name])
            out.append(row)
        return out


class FastPath:
    """Prepared hot statements for one engine's dialect."""

    def __init__(self, dialect: Dialect, stats: StatementStats) -> None:
        self._dialect = dialect
        self._stats = stats
        self._cache: dict[tuple[int, frozenset[str] | None], Prepared] = {}
        self._lock = threading.Lock()

    def _prepared(self, statement: ClauseElement, keys: frozenset[str] | None) -> Prepared:
        key = (id(statement), keys)
        found = self._cache.get(key)
        if found is None:
            with self._lock:
                found = self._cache.get(key)
                if found is None:
                    found = Prepared(statement, self._dialect, keys)
                    self._cache[key] = found
        return found

    def execute(
        self,
        conn: Connection | PoolProxiedConnection,
        statement: ClauseElement,
        params: Mapping[str, Any],
        *,
        set_keys: Iterable[str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """Run ``statement``; its rows (processed, by column key) and its rowcount.

        ``set_keys`` names the parameters that become SET / VALUES columns of
        an UPDATE or INSERT whose columns come from the parameters.
        ``statement`` must be a module-level constant: it is cached by identity.
        """
        prepared = self._prepared(statement, frozenset(set_keys) if set_keys else None)
        cursor = (conn.connection if isinstance(conn, Connection) else conn).cursor()
        try:
            cursor.execute(prepared.sql, prepared.parameters(params))
            self._stats.add()
            batch = _batch(conn)
            if batch is not None:
                batch.pipeline.sync()  # with whatever waited for it, in one round trip
            # Whether rows came is known from the statement: asking the cursor for its
            # description builds a column object per column, every time.
            rows = prepared.rows(cursor.fetchall()) if prepared.names else []
            return rows, cursor.rowcount
        finally:
            cursor.close()

    def send(
        self,
        conn: Connection | PoolProxiedConnection,
        statement: ClauseElement,
        params: Mapping[str, Any],
        *,
        set_keys: Iterable[str] | None = None,
    ) -> None:
        """Run ``statement`` for its effect alone: in a pipelined transaction it goes
        with the next statement that needs a result, or with the COMMIT; an error it
        meets fails the transaction there."""
        prepared = self._prepared(statement, frozenset(set_keys) if set_keys else None)
        cursor = (conn.connection if isinstance(conn, Connection) else conn).cursor()
        try:
            cursor.execute(prepared.sql, prepared.parameters(params))
            self._stats.add()
        finally:
            cursor.close()

    def defer(
        self,
        conn: Connection | PoolProxiedConnection,
        statement: ClauseElement,
        params: Mapping[str, Any],
    ) -> Deferred:
        """Run ``statement``, whose rows the transaction does not need before its
        COMMIT: in a pipelined transaction it goes with the COMMIT (or with the next
        statement that needs a result), and its rows are read after."""
        prepared = self._prepared(statement, None)
        if _batch(conn) is None:
            return Deferred(self.execute(conn, statement, params)[0])
        cursor = (conn.connection if isinstance(conn, Connection) else conn).cursor()
        try:
            cursor.execute(prepared.sql, prepared.parameters(params))
            self._stats.add()
        except BaseException:
            cursor.close()
            raise
        return Deferred(None, cursor, prepared)

    def execute_many(
        self,
        conn: Connection | PoolProxiedConnection,
        statement: ClauseElement,
        rows: Sequence[Mapping[str, Any]],
        *,
        set_keys: Iterable[str],
    ) -> None:
        """Run an INSERT or a DELETE (no result rows) once per row: one executemany,
        one statement.

        Every row must have the same keys (``set_keys``: an INSERT's columns; none
        for a DELETE, whose parameters are its WHERE's).
        """
        prepared = self._prepared(statement, frozenset(set_keys))
        cursor = (conn.connection if isinstance(conn, Connection) else conn).cursor()
        try:
            batch: Any = [prepared.parameters(row) for row in rows]  # all one shape
            cursor.executemany(prepared.sql, batch)
            self._stats.add()
        finally:
            cursor.close()
