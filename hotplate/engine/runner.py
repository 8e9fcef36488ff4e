"""Running one plugin action to its end in one thread: handle_<action>, then poll
check_<action>_complete.

Resource operations park instead of waiting here (engine/worker/parking.py);
this loop serves what runs as one task (suspend, resume and check walk a
stack resource by resource), hooks, and plugins that finish at once. Between
polls it checks for a cancel request (cancel_check_resource) and for the
stack's deadline, so a stuck plugin can always be stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from hotplate.model.errors import CancelOperation
from hotplate.ports import Clock
from hotplate.resources.base import CheckAgain, CheckResult


class ActionTimeout(Exception):
    """The stack's deadline passed while a resource action was still running."""

    def __str__(self) -> str:
        return "Timed out"


POLL_START = 0.01
POLL_MAX = 1.0


class ActionRunner:
    def __init__(
        self, clock: Clock, *, poll_start: float = POLL_START, poll_max: float = POLL_MAX
    ) -> None:
        self._clock = clock
        self._poll_start = poll_start
        self._poll_max = poll_max

    def run(
        self,
        handle: Callable[[], Any] | None,
        check: Callable[[Any], CheckResult] | None,
        *,
        deadline: datetime | None,
        cancelled: threading.Event | None,
        before_wait: Callable[[], None] | None = None,
    ) -> None:
        """Call ``handle`` once, then ``check(data)`` until it says done.

        Raises CancelOperation when ``cancelled`` is set, ActionTimeout past
        ``deadline``; anything the plugin raises propagates unchanged.
        ``before_wait`` runs once, before the first wait: what the plugin has
        done so far is made durable before time passes. A ``CheckAgain(after)``
        answer is honoured, in sleeps no longer than the back-off's cap so
        that a cancel or the deadline still stops the wait in time.
        """
        self._checkpoint(deadline, cancelled)
        data = handle() if handle is not None else None
        if check is None:
            return
        delay = self._poll_start
        waited = False
        while not (answer := check(data)):
            if not waited and before_wait is not None:
                before_wait()
            waited = True
            if isinstance(answer, CheckAgain):
                self._wait(max(answer.after, self._poll_start), deadline, cancelled)
                continue
            self._wait(delay, deadline, cancelled)
            delay = min(delay * 2, self._poll_max)

    def _wait(self, seconds: float, deadline: datetime | None,
              cancelled: threading.Event | None) -> None:
        left = max(seconds, 0.0)
        while True:
            self._checkpoint(deadline, cancelled)
            if left <= 0:
                return
            step = min(left, max(self._poll_max, self._poll_start))
            self._clock.sleep(step)
            left -= step

    def start(self, handle: Callable[[], Any] | None, *, deadline: datetime | None,
              cancelled: threading.Event | None) -> Any:
        """Only the ``handle`` part of ``run``: its data, for checks made later."""
        self.checkpoint(deadline, cancelled)
        return handle() if handle is not None else None

    def checkpoint(self, deadline: datetime | None, cancelled: threading.Event | None) -> None:
        """Raise CancelOperation if cancelled, ActionTimeout past the deadline."""
        self._checkpoint(deadline, cancelled)

    def _checkpoint(self, deadline: datetime | None, cancelled: threading.Event | None) -> None:
        if cancelled is not None and cancelled.is_set():
            raise CancelOperation("user triggered cancel")
        if deadline is not None and self._clock.now() >= deadline:
            raise ActionTimeout()
