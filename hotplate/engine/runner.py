"""Running one plugin action to its end: handle_<action>, then poll check_<action>_complete.

The loop is the only place that waits. Between polls it checks for a cancel
request (cancel_check_resource) and for the stack's deadline, so a stuck
plugin can always be stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from hotplate.model.errors import CancelOperation
from hotplate.ports import Clock


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
        check: Callable[[Any], bool] | None,
        *,
        deadline: datetime | None,
        cancelled: threading.Event | None,
        before_wait: Callable[[], None] | None = None,
    ) -> None:
        """Call ``handle`` once, then ``check(data)`` until it says done.

        Raises CancelOperation when ``cancelled`` is set, ActionTimeout past
        ``deadline``; anything the plugin raises propagates unchanged.
        ``before_wait`` runs once, before the first wait: what the plugin has
        done so far is made durable before time passes.
        """
        self._checkpoint(deadline, cancelled)
        data = handle() if handle is not None else None
        if check is None:
            return
        delay = self._poll_start
        waited = False
        while not check(data):
            if not waited and before_wait is not None:
                before_wait()
            waited = True
            self._checkpoint(deadline, cancelled)
            self._clock.sleep(delay)
            self._checkpoint(deadline, cancelled)
            delay = min(delay * 2, self._poll_max)

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
