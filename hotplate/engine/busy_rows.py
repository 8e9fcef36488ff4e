"""What this engine's threads are working on now, so that a lock of its own that no
work of its own stands behind can be told apart.

Every piece of work that takes a resource's lock runs inside ``row`` (a
node's check, from before it takes the lock until after it releases or parks
it) or ``stack`` (a suspend, resume or check walk); a parked action is in the
parked set meanwhile. So a row locked by this engine, under one atomic key,
found neither busy nor parked at two looks a periodic interval apart, has
been forgotten: the work that held it ended without a word (its last write's
answer lost with the database, an error that escaped). Recovery then hands it
on as it would a dead engine's (recovery.py ``reclaim_forgotten``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["BusyRows"]


class BusyRows:
    """Resource ids and stack ids under work here now (counted: work may nest)."""

    def __init__(self) -> None:
        self._rows: Counter[int] = Counter()
        self._stacks: Counter[str] = Counter()
        self._lock = threading.Lock()

    @contextmanager
    def row(self, resource_id: int) -> Iterator[None]:
        with self._lock:
            self._rows[resource_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._rows[resource_id] -= 1
                if not self._rows[resource_id]:
                    del self._rows[resource_id]

    @contextmanager
    def stack(self, stack_id: str) -> Iterator[None]:
        with self._lock:
            self._stacks[stack_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._stacks[stack_id] -= 1
                if not self._stacks[stack_id]:
                    del self._stacks[stack_id]

    def count(self, resource_id: int) -> int:
        """How many works here are on the row now (the caller's own included)."""
        with self._lock:
            return self._rows.get(resource_id, 0)

    def snapshot(self) -> tuple[frozenset[int], frozenset[str]]:
        """The rows and the stacks under work at this moment."""
        with self._lock:
            return frozenset(self._rows), frozenset(self._stacks)
