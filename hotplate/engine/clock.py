"""Clocks and id sources: the real ones, and a fake clock for deterministic tests."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """Time that moves only when told to, or when someone sleeps.

    Sleeping advances the clock instead of waiting, so a scenario with a
    ten-minute timeout runs in milliseconds and always the same way.
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=max(seconds, 0))


class UuidIds:
    def new_uuid(self) -> str:
        return str(uuid.uuid4())


class SeededIds:
    """Predictable UUIDs for deterministic tests."""

    def __init__(self, seed: int = 0) -> None:
        self._counter = 0
        self._seed = seed
        self._lock = threading.Lock()

    def new_uuid(self) -> str:
        with self._lock:
            self._counter += 1
            digest = hashlib.sha256(f"{self._seed}:{self._counter}".encode()).digest()
            return str(uuid.UUID(bytes=digest[:16], version=4))
