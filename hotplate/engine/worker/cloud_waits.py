"""An action that waits out a cloud API that is away, instead of failing.

A plugin's call that finds the API unreachable (a refused, reset or timed-out
connection, a 502/503/504) is retried by the client layer a few times in a few
seconds (``client_retry_limit``); an API restarted or failed over is away for
longer. What is still ``CloudUnavailable`` after that reaches here::

    raised by        what happens
    ---------------  ----------------------------------------------------------------
    handle_<action>  checked again after the wait: the handler runs again, told
                     it is a retry of the same attempt (``Attempt.retry``), since
                     the request may have reached the cloud before the connection
                     broke: a type that looks before making finds what it made
    check            asked again after the wait
    anything else    as before: the plugin's failure

The waits double from ``FIRST_WAIT`` to ``LONGEST_WAIT``; they are parked
waits (parking.py), so they hold no thread, and the stack's timeout ends them
("Timed out") as it ends any other wait.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from hotplate.cloud.errors import CloudUnavailable
from hotplate.resources.base import CheckAgain, CheckResult, Resource

__all__ = ["FIRST_WAIT", "LONGEST_WAIT", "CloudWaits"]

LOG = logging.getLogger(__name__)

FIRST_WAIT = 1.0
LONGEST_WAIT = 10.0
"""The longest wait between two tries: an API back is noticed within this."""


class CloudWaits:
    """A plugin action's ``handle`` and ``check``, made to wait while the cloud is away.

    Use ``handle`` and ``check`` in place of the plugin's: the plugin's own data
    stays here (``check`` ignores what it is given); ``handle`` answers it too, for
    the plugin's ``next_check_after``.
    """

    def __init__(self, instance: Resource, handle: Callable[[], Any],
                 check: Callable[[Any], CheckResult]) -> None:
        self._instance = instance
        self._handle = handle
        self._check = check
        self._data: Any = None
        self._handled = False
        self._held: CheckAgain | None = None
        """The wait a failed first handle asked for, answered by the first check."""
        self._wait = 0.0

    def handle(self) -> Any:
        self._held = self._try_handle()
        return self._data

    def check(self, _: Any) -> CheckResult:
        if self._held is not None:
            held, self._held = self._held, None
            return held
        if not self._handled:
            self._instance.attempt = dataclasses.replace(self._instance.attempt, retry=True)
            waiting = self._try_handle()
            if waiting is not None:
                return waiting
        try:
            answer = self._check(self._data)
        except CloudUnavailable as exc:
            return self._waiting(exc, "check")
        self._wait = 0.0
        return answer

    def _try_handle(self) -> CheckAgain | None:
        try:
            self._data = self._handle()
        except CloudUnavailable as exc:
            return self._waiting(exc, "handle")
        self._handled, self._wait = True, 0.0
        return None

    def _waiting(self, exc: CloudUnavailable, step: str) -> CheckAgain:
        self._wait = min(max(self._wait * 2, FIRST_WAIT), LONGEST_WAIT)
        LOG.warning("resource %s: the cloud is unavailable during %s (%s); trying again in "
                    "%.0f s", self._instance.name, step, exc, self._wait)
        return CheckAgain(self._wait)
