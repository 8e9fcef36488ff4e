"""A task run every N seconds on a daemon thread: the engine's timers.

Heat runs its engine timers on oslo.service's fixed-interval looping call:
the task runs, then the loop sleeps what is left of the interval, so reports
keep their rhythm however long one took. ``run_every`` is that schedule, with
the clock and the wait passed in so a test can drive it on fake time;
``PeriodicTimer`` runs it on a thread that a stop wakes at once.

A task that raises is logged and run again at the next period: a database
that is away for a while must not end the engine's heartbeat for good.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger(__name__)

Task = Callable[[], bool]
"""One run of a periodic task; False ends the timer (what it served is gone)."""


def run_every(interval: float, task: Task, *, monotonic: Callable[[], float],
              wait: Callable[[float], bool], name: str = "periodic task") -> None:
    """Run ``task`` every ``interval`` seconds, the first time one interval from now.

    ``wait(seconds)`` sleeps and answers True when the timer was stopped
    meanwhile. Each run is due one interval after the previous one was; a run
    that took longer than that is followed by the next at once, never by a
    burst of the runs it missed.
    """
    due = monotonic() + interval
    while not wait(max(0.0, due - monotonic())):
        try:
            if not task():
                return
        except Exception:
            LOG.exception("%s failed; trying again in %s s", name, interval)
        due = max(due + interval, monotonic())


class PeriodicTimer:
    """``run_every`` on a daemon thread of its own, until ``stop``."""

    def __init__(self, name: str, interval: float, task: Task) -> None:
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=run_every, name=name, daemon=True,
            args=(interval, task),
            kwargs={"monotonic": time.monotonic, "wait": self._stopped.wait, "name": name})

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        """Wake the thread to end, without waiting for it."""
        self._stopped.set()

    def stop(self, timeout: float | None = 10.0) -> None:
        """Wake the thread and wait (up to ``timeout``) for a run under way to end."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()
