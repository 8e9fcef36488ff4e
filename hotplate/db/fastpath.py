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
            rows = prepared.rows(cursor.fetchall()) if cursor.description else []
            return rows, cursor.rowcount
        finally:
            cursor.close()

    def execute_many(
        self,
        conn: Connection | PoolProxiedConnection,
        statement: ClauseElement,
        rows: Sequence[Mapping[str, Any]],
        *,
        set_keys: Iterable[str],
    ) -> None:
        """Run an INSERT (no result rows) once per row: one executemany, one statement.

        Every row must have the same keys (``set_keys``).
        """
        prepared = self._prepared(statement, frozenset(set_keys))
        cursor = (conn.connection if isinstance(conn, Connection) else conn).cursor()
        try:
            batch: Any = [prepared.parameters(row) for row in rows]  # all one shape
            cursor.executemany(prepared.sql, batch)
            self._stats.add()
        finally:
            cursor.close()
