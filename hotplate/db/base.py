"""What the store's parts share: transactions, the clock, backend features."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from hotplate.db.crypt import SecretBox
from hotplate.db.engine import StatementStats
from hotplate.db.fastpath import FastPath
from hotplate.db.tx import Transactions
from hotplate.ports import Clock


class StoreBase:
    """State shared by the SqlStore mixins (one transaction per public method)."""

    def __init__(self, engine: Engine, clock: Clock, secrets: SecretBox | None = None) -> None:
        self._tx = Transactions(engine)
        self._clock = clock
        self._secrets = secrets or SecretBox()
        """The key secrets are encrypted with, and what else to encrypt (db/crypt.py)."""
        dialect = engine.dialect
        self._update_returning: bool = bool(dialect.update_returning)
        """SQLite >= 3.35 and PostgreSQL; MariaDB has INSERT/DELETE RETURNING only."""
        self._dialect = dialect.name
        self._fast = FastPath(dialect, self._tx.state.stats)

    @property
    def engine(self) -> Engine:
        return self._tx.engine

    @property
    def stats(self) -> StatementStats:
        """Statements sent on this store's engine (shared by stores on one engine)."""
        return self._tx.state.stats

    def begin_write_batch(self) -> None:
        batches = self._tx.state.batches
        if batches is not None:
            batches.begin()

    def end_write_batch(self) -> None:
        batches = self._tx.state.batches
        if batches is not None:
            batches.end()

    def pool_status(self) -> dict[str, int]:
        """Connections of the engine's pool: its size and how many are in use (SQLite's
        kept write connection counts only while a write holds it)."""
        pool = self.engine.pool
        size = getattr(pool, "size", None)
        checked_out = getattr(pool, "checkedout", None)
        kept = self._tx.state.kept_writer
        in_use = checked_out() if callable(checked_out) else 0
        return {
            "size": size() if callable(size) else 1,
            "checked_out": in_use - (kept.idle if kept is not None else 0),
        }

    def _now(self) -> datetime:
        return self._clock.now()
