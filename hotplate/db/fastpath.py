"""Hot-path statements run straight on the driver's cursor.

SQLAlchemy Core spends ~60 us building an execution context around each
statement; SQLite runs the same UPDATE in ~6 us. The convergence hot path
sends about eight statements per resource, so that overhead, not the
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


class Prepared:
    """One statement compiled for one dialect and one set of parameter keys."""

    __slots__ = ("defaults", "names", "order", "processors", "results", "sql", "used")

    def __init__(
        self, statement: ClauseElement, dialect: Dialect, keys: Iterable[str] | None
    ) -> None:
        column_keys = sorted(keys) if keys is not None else None
        # Hot statements are SQL expressions, so their compiler is a SQLCompiler.
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=column_keys))
        self.sql: str = str(compiled)
        self.order: tuple[str, ...] | None = (
            tuple(compiled.positiontup or ()) if compiled.positional else None
        )
        self.processors: dict[str, Processor] = {}
        self.defaults: dict[str, Any] = {}
        used = set(self.order) if self.order is not None else {
            name for name in compiled.binds if f"%({name})s" in self.sql
        }
        self.used: frozenset[str] = frozenset(used)
        for name, bind in compiled.binds.items():
            if name not in used:
                continue
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.processors[name] = processor
            if not bind.required:
                self.defaults[name] = bind.effective_value
        columns = list(getattr(statement, "exported_columns", ()) or ())
        self.names: tuple[str, ...] = tuple(str(c.key) for c in columns)
        self.results: tuple[Processor | None, ...] = tuple(
            c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns
        )

    def parameters(self, params: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        merged = {**self.defaults, **params}
        if self.order is None:
            merged = {k: v for k, v in merged.items() if k in self.used}
        processors = self.processors
        for name, processor in processors.items():
            if name in merged:
                merged[name] = processor(merged[name])
        if self.order is None:
            return merged
        return tuple(merged[name] for name in self.order)

    def rows(self, raw_rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
        names, results = self.names, self.results
        out = []
        for raw in raw_rows:
            out.append({
                name: (proc(value) if proc is not None else value)
                for name, proc, value in zip(names, results, raw, strict=False)
            })
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
