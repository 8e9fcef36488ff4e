"""An engine's lease on its own work, and the fence it puts up when the lease runs out.

Another engine may take a silent engine's locks over once its service row is
more than ``2 * periodic_interval`` old (and it does not answer a probe;
recovery.py). An engine cut off from the database cannot refresh that row,
but it may still run: its threads may go on calling a cloud, and its RPC
servers may go on taking messages, while a live engine already redoes the
same work. So each engine holds a *lease*: every report it writes renews it,
and when it has not renewed it for ``lease_seconds`` it fences itself
(``Fence``: the scale-out engine process exits at once, so it takes no more
messages, its broker connections and consumers go, and its in-flight work is
abandoned). The timing, with P = periodic_interval, L =
engine_life_check_timeout and r the moment the last successful report
*started*::

    the engine fences at            r + 2P - m,   m = min(L, P/2)
    its row reads updated_at  >=    r            (written after it started)
    others take over no sooner than updated_at + 2P  >=  r + 2P

so the fence is up ``m`` seconds before anyone may take over, whatever
happened to the report after it started (it may hang in a cut connection and
commit much later: its ``updated_at`` is still no later than it claims). The
margin covers the fence itself (a process exit: milliseconds) and the skew
between the engines' clocks (the row's times are engines' wall clocks; keep
them synchronised, as NTP does, well within ``m``). A report that starts
after the deadline renews nothing: an engine woken from a pause past its
lease fences, even if the database is back. A report that updates no row (the
row was removed as dead) renews nothing either.

The lease is measured on the monotonic clock, so a wall-clock step never
stretches it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger(__name__)

EXIT_FENCED = 75
"""A scale-out engine process's exit status when its lease ran out (EX_TEMPFAIL): its
parent (``hotplate engine``, cli/launcher.py) starts another at once, with a new engine
id, whatever back-off earlier deaths had grown."""

Fence = Callable[[str], None]
"""What an engine does when its lease runs out, given why; it must stop the engine
taking messages and acting on its work at once (the process exits)."""


def fence_margin(periodic_interval: float, life_check: float) -> float:
    """Seconds between an engine's fence and the earliest takeover of its work."""
    return min(float(life_check), periodic_interval / 2)


def lease_seconds(periodic_interval: float, life_check: float) -> float:
    """How long a report keeps an engine's lease: ``2P - min(L, P/2)``."""
    return 2.0 * periodic_interval - fence_margin(periodic_interval, life_check)


class Lease:
    """Renewed by each report that started in time and updated the engine's row; fences
    once when ``seconds`` pass without one. A watchdog thread runs while it is held."""

    def __init__(self, seconds: float, fence: Fence, *,
                 monotonic: Callable[[], float] = time.monotonic, name: str = "lease") -> None:
        if seconds <= 0:
            raise ValueError(f"a lease of {seconds} s")
        self.seconds = seconds
        self._fence = fence
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._deadline = monotonic() + seconds
        self._fenced: str | None = None
        self._released = False
        self._thread = threading.Thread(target=self._watch, name=name, daemon=True)

    def start(self) -> Lease:
        self._thread.start()
        return self

    def now(self) -> float:
        """The lease's clock (monotonic): a report notes it as it starts."""
        return self._monotonic()

    def renewed(self, started: float) -> bool:
        """A report that started at ``started`` (monotonic) wrote the row: the lease runs
        to ``started + seconds``. False (and nothing renewed) once fenced, or when the
        report started after the deadline: the lease was lost meanwhile."""
        with self._lock:
            if self._fenced is not None or started > self._deadline:
                return False
            self._deadline = max(self._deadline, started + self.seconds)
            self._changed.notify_all()
            return True

    @property
    def fenced(self) -> str | None:
        """Why the engine fenced itself; None while the lease holds."""
        with self._lock:
            return self._fenced

    def remaining(self) -> float:
        """Seconds left on the lease (negative once past it)."""
        with self._lock:
            return self._deadline - self._monotonic()

    def release(self) -> None:
        """A clean stop: the watchdog ends and nothing fences."""
        with self._lock:
            self._released = True
            self._changed.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)

    def check(self) -> bool:
        """Fence now if the deadline has passed; True while the lease holds."""
        with self._lock:
            if self._released:
                return True
            if self._fenced is not None:
                return False
            late = self._monotonic() - self._deadline
            if late < 0:
                return True
            reason = (f"no report reached the database for {self.seconds + late:.1f} s "
                      f"(lease {self.seconds:g} s)")
            self._fenced = reason
        LOG.critical("engine lease lost: %s; fencing this engine", reason)
        self._fence(reason)
        return False

    def _watch(self) -> None:
        while True:
            with self._lock:
                if self._released or self._fenced is not None:
                    return
                wait = self._deadline - self._monotonic()
                if wait > 0:
                    self._changed.wait(min(wait, 1.0))
                    continue
            if not self.check():
                return
