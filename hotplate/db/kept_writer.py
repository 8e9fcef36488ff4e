"""SQLite's write connection, kept out of the pool between write transactions.

A process writes to a SQLite file one transaction at a time (engine.py's
write lock), so one connection serves every hot-path write. Checking it out
of SQLAlchemy's pool and back in costs more than the transaction's
statements (the pool's bookkeeping, a weakref finaliser, and the ROLLBACK
the pool says on each return): about a fifth of a settle's time. The
connection is therefore taken once and handed from write to write.

It is given back only clean: no transaction open and not invalidated.
Anything else (an error that ended the write half-way) returns it to the
pool, which resets or discards it as it always does. When the engine is
disposed, the kept connection is closed (or, if a write holds it, closed
when that write gives it back), so a disposed engine keeps nothing open.
"""

from __future__ import annotations

import threading

from sqlalchemy import Engine, event
from sqlalchemy.pool import PoolProxiedConnection


class KeptWriter:
    """The one idle write connection of a SQLite engine, or none."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._idle: PoolProxiedConnection | None = None
        self._generation = 0
        event.listen(engine, "engine_disposed", self._on_dispose)

    @property
    def idle(self) -> int:
        """1 while the connection is kept between writes (out of the pool, not in use)."""
        return 0 if self._idle is None else 1

    def take(self) -> tuple[PoolProxiedConnection, int]:
        """The kept connection (else one from the pool), with the generation to give
        it back under."""
        with self._lock:
            raw, self._idle = self._idle, None
            generation = self._generation
        if raw is None:
            raw = self._engine.raw_connection()
        return raw, generation

    def give_back(self, raw: PoolProxiedConnection, generation: int) -> None:
        """Keep ``raw`` for the next write if it is clean and its engine was not disposed
        since it was taken; else return it to the pool."""
        driver = raw.driver_connection
        clean = raw.is_valid and driver is not None and not getattr(
            driver, "in_transaction", True)
        with self._lock:
            if clean and generation == self._generation and self._idle is None:
                self._idle = raw
                return
        raw.close()

    def _on_dispose(self, _engine: Engine) -> None:
        with self._lock:
            raw, self._idle = self._idle, None
            self._generation += 1
        if raw is not None:
            raw.close()
