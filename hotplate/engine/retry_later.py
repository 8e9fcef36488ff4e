"""Database work an engine could not finish, done again on its periodic round.

A node whose database went away under it is handed on (check_resource.py):
its row, still locked by this engine, is given up and its action resumed,
or its node sent again. That takes the database too. When it is still away,
nothing else would ever do it: the row's lock names a live engine, which no
takeover touches and no sweep re-drives, so the stack would wait forever.
Such work is kept here by key and tried again each periodic round (the
recovery timer) until it succeeds; the engine's end hands its locks over
anyway, and its death leaves them to a takeover.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

__all__ = ["RetryLater"]

LOG = logging.getLogger(__name__)


class RetryLater:
    """Pending work by key (a resource's, so a newer failure replaces an older one)."""

    def __init__(self) -> None:
        self._pending: dict[str, Callable[[], None]] = {}
        self._lock = threading.Lock()

    def add(self, key: str, work: Callable[[], None]) -> None:
        with self._lock:
            self._pending[key] = work

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def run(self) -> int:
        """Try each pending work once; those that raise stay for the next round. How
        many succeeded."""
        with self._lock:
            found = list(self._pending.items())
        done = 0
        for key, work in found:
            try:
                work()
            except Exception as exc:
                LOG.warning("%s: still failing (%s); next round", key, exc)
                continue
            with self._lock:
                if self._pending.get(key) is work:
                    del self._pending[key]
            done += 1
        return done
