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
    a RESOLVE rule   (a name looked up before a create or update) looked up again
                     after the wait, in the worker's thread (``resolving``)
    anything else    as before: the plugin's failure

The waits double from ``FIRST_WAIT`` to ``LONGEST_WAIT``; they are parked
waits (parking.py), so they hold no thread, and the stack's timeout ends them
("Timed out") as it ends any other wait.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from hotplate.cloud.errors import CloudUnavailable
from hotplate.ports import Clock
from hotplate.resources.base import CheckAgain, CheckResult, Resource

__all__ = ["FIRST_WAIT", "LONGEST_WAIT", "CloudWaits", "resolving"]

T = TypeVar("T")

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


def resolving(step: Callable[[], T], *, clock: Clock, deadline: datetime | None,
              cancelled: threading.Event, sleep: Callable[[float], None]) -> T:
    """``step()`` (resolving a resource's properties), tried again while the cloud is
    away, until the stack's ``deadline`` or a cancel; then its failure is raised.

    The wait holds the worker's thread (``sleep`` releases its work slot): a
    lookup has nothing to park, and an outage is rare and short.
    """
    wait = 0.0
    while True:
        try:
            return step()
        except CloudUnavailable as exc:
            wait = min(max(wait * 2, FIRST_WAIT), LONGEST_WAIT)
            late = deadline is not None and (deadline - clock.now()).total_seconds() < wait
            if late or cancelled.is_set():
                raise
            LOG.warning("the cloud is unavailable resolving properties (%s); trying again "
                        "in %.0f s", exc, wait)
            sleep(wait)
