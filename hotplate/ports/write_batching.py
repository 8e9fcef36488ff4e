"""Committing a worker's successive writes together, a role of the Store
(``hotplate.ports.Store``; db/write_batch.py)."""

from __future__ import annotations

from typing import Protocol


class WriteBatching(Protocol):
    """A thread that holds the engine's one work slot (SQLite) commits its successive
    hot-path writes together (db/write_batch.py); elsewhere both are no-ops."""

    def begin_write_batch(self) -> None:
        """This thread's hot-path writes share one transaction from now on."""
        ...

    def end_write_batch(self) -> None:
        """Commit that transaction; the thread's writes go alone again."""
        ...
