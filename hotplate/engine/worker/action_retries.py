"""Heat's ``action_retry_limit``: a create that failed is deleted and made again; a delete
refused with a conflict is asked again.

A create whose object went ERROR (``ResourceInError``), or that the service
refused with a conflict (409, not a quota), is not failed at once: what it
made is deleted and the create runs again, after ``2**n`` seconds plus up to
two of jitter, until ``action_retry_limit`` creates have been retried. As in
Heat's ``Resource.create``::

    create ──ok──────────────────────────────────────────────▶ done
      │ ResourceInError / 409, fewer than limit+1 creates failed
      ▼
    CREATE_FAILED (the failure's text), DELETE_IN_PROGRESS
    delete ──409 / ResourceInError (fewer than limit+1)──▶ DELETE_FAILED, wait, delete
      │ done
      ▼
    DELETE_COMPLETE, wait 2**failures + jitter, CREATE_IN_PROGRESS, create ...

    (a failed create's delete starts at the next check, without a wait, as Heat's)

    limit+1 creates failed: the first failure is raised (Heat keeps the first).
    Any other failure: raised as it is.

Each state is an event, as Heat's are; the row itself stays CREATE_IN_PROGRESS
and locked all along (one lock, one action: a takeover resumes the create,
never a delete the traversal did not plan). Each create after the first is a
new attempt (``Attempt``) with its own token: the object it makes is a new one,
never the deleted one found again by its mark.

A delete (``DeleteRetries``) refused with a conflict (409: still in use, busy) is
run again, handler and checks, after ``2**n`` seconds plus jitter, up to
``action_retry_limit`` times, as Heat's ``Resource.delete``; no events between.
"""

from __future__ import annotations

import enum
import logging
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hotplate.cloud.errors import CloudUnavailable
from hotplate.convergence import outcome
from hotplate.engine.worker.node_work import failure_text
from hotplate.model.states import Action, Status
from hotplate.ports import Clock
from hotplate.resources.base import Attempt, CheckAgain, CheckResult, Resource
from hotplate.resources.status_errors import ResourceInError

__all__ = ["JITTER_SECS", "CreateRetries", "DeleteRetries", "backoff", "is_conflict",
           "retryable"]

LOG = logging.getLogger(__name__)

JITTER_SECS = 2.0
"""Heat's ``jitter_max`` for the wait before a retried create or delete."""

Record = Callable[[Action, Status, str], None]
"""Writes one step's event (and what the plugin did so far) under the row's lock."""


def is_conflict(exc: BaseException) -> bool:
    """A 409 that is not a quota (Neutron's OverQuota is a 409 too)."""
    return (getattr(exc, "status", None) == 409
            and "OverQuota" not in type(exc).__name__ and "OverQuota" not in str(exc))


def retryable(exc: BaseException) -> bool:
    """Whether Heat retries a create (or its delete) that failed so."""
    return isinstance(exc, ResourceInError) or is_conflict(exc)


def backoff(count: int, rng: random.Random) -> float:
    """Heat's ``retry_backoff_delay(count, jitter_max=2.0)``."""
    return float(2 ** count) + rng.random() * JITTER_SECS


class _Step(enum.Enum):
    CREATING = "creating"
    DELETE_DUE = "delete due"
    DELETING = "deleting"
    CREATE_DUE = "create due"


class CreateRetries:
    """The create's ``handle`` and ``check``, with Heat's deletes and retries between.

    ``first`` is the first create's handler (``handle_create``, or a taken-over
    create's ``resume_data``); ``token(n)`` the token of the n-th retried create;
    ``record`` writes each step's event. A step a cloud outage interrupts
    (``CloudUnavailable``, which cloud_waits.py turns into a wait) is not
    counted: it runs again as it was.
    """

    def __init__(self, instance: Resource, first: Callable[[], Any], *, limit: int,
                 clock: Clock, record: Record, token: Callable[[int], str],
                 rng: random.Random | None = None,
                 superseded: Callable[[], bool] = lambda: False) -> None:
        self._instance = instance
        self._superseded = superseded
        """Whether a newer traversal (a rollback, a cancel, another update) took the
        stack over: then a failed create is not made again, it fails at once, so that
        the newer traversal is not held up by tries the stack no longer wants."""
        self._first = first
        self._limit = max(limit, 0)
        self._clock = clock
        self._record = record
        self._token = token
        self._rng = rng or random.Random()
        self._step = _Step.CREATING
        self._data: Any = None
        self._failed = {Action.CREATE: 0, Action.DELETE: 0}
        self._first_failure: Exception | None = None
        self._due: datetime | None = None
        self._announced: _Step | None = None

    def handle(self) -> Any:
        """The first create; its data is answered (for the plugin's
        ``next_check_after``), but ``check`` works on the data of the latest try."""
        try:
            self._data = self._first()
        except CloudUnavailable:
            raise
        except Exception as exc:
            self._failure(Action.CREATE, exc)
        return self._data

    def check(self, _: Any) -> CheckResult:
        if self._step is _Step.CREATING:
            return self._checked(Action.CREATE, self._instance.check_create_complete)
        waiting = self._waiting()
        if waiting is not None:
            return waiting
        if self._step is _Step.DELETING:
            answer = self._checked(Action.DELETE, self._instance.check_delete_complete)
            if not answer or self._step is not _Step.DELETING:
                return answer
            self._record(Action.DELETE, Status.COMPLETE, outcome.STATE_CHANGED)
            self._instance.resource_id = None
            return self._after(self._failed[Action.CREATE], _Step.CREATE_DUE)
        if self._step is _Step.DELETE_DUE:
            self._announce(Action.DELETE)
            return self._start(Action.DELETE, self._instance.handle_delete, _Step.DELETING)
        again = self._announce(Action.CREATE)
        self._instance.attempt = Attempt(self._token(self._failed[Action.CREATE]), retry=again)
        return self._start(Action.CREATE, self._instance.handle_create, _Step.CREATING)

    def _announce(self, action: Action) -> bool:
        """Record ``<action>_IN_PROGRESS`` once for this step; True when it was already
        (the handler is being run again after an outage: a retry of its attempt)."""
        if self._announced is self._step:
            return True
        self._record(action, Status.IN_PROGRESS, outcome.STATE_CHANGED)
        self._announced = self._step
        return False

    def _start(self, action: Action, handler: Callable[[], Any], then: _Step) -> CheckResult:
        """Run a create's or delete's handler; the step moves on only once it ran, so
        an outage in it runs it again (cloud_waits.py)."""
        try:
            self._data = handler()
        except CloudUnavailable:
            raise
        except Exception as exc:
            return self._failure(action, exc)
        self._step, self._announced = then, None
        return False

    def _checked(self, action: Action, check: Callable[[Any], CheckResult]) -> CheckResult:
        try:
            return check(self._data)
        except CloudUnavailable:
            raise
        except Exception as exc:
            return self._failure(action, exc)

    def _failure(self, action: Action, exc: Exception) -> CheckResult:
        """Count a failed create or delete; raise unless Heat would try again."""
        if not retryable(exc) or (action is Action.CREATE and self._superseded()):
            raise exc
        self._failed[action] += 1
        if self._first_failure is None:
            self._first_failure = exc
        if self._failed[action] > self._limit:
            raise self._first_failure
        self._record(action, Status.FAILED, failure_text(exc, self._instance.name))
        if action is Action.CREATE:  # the delete starts at the next check
            self._failed[Action.DELETE] = 0
            self._step, self._announced, self._due = _Step.DELETE_DUE, None, None
            return False
        return self._after(self._failed[Action.DELETE], _Step.DELETE_DUE)

    def _after(self, count: int, then: _Step) -> CheckAgain:
        wait = backoff(count, self._rng)
        self._due = self._clock.now() + timedelta(seconds=wait)
        self._step, self._announced = then, None
        return CheckAgain(wait)

    def _waiting(self) -> CheckAgain | None:
        if self._due is None:
            return None
        left = (self._due - self._clock.now()).total_seconds()
        if left > 0:
            return CheckAgain(left)
        self._due = None
        return None


class DeleteRetries:
    """A delete's ``handle`` and ``check``, run again while refused with a conflict."""

    def __init__(self, instance: Resource, handler: Callable[[], Any], *, limit: int,
                 clock: Clock, rng: random.Random | None = None) -> None:
        self._instance = instance
        self._handler = handler
        self._limit = max(limit, 0)
        self._clock = clock
        self._rng = rng or random.Random()
        self._data: Any = None
        self._count = 0
        self._due: datetime | None = None
        self._handle_due = False

    def handle(self) -> Any:
        try:
            self._data = self._handler()
        except Exception as exc:
            self._refused(exc)
        return self._data

    def check(self, _: Any) -> CheckResult:
        if self._due is not None:
            left = (self._due - self._clock.now()).total_seconds()
            if left > 0:
                return CheckAgain(left)
            self._due = None
        try:
            if self._handle_due:
                self._data = self._handler()
                self._handle_due = False
                return False
            return self._instance.check_delete_complete(self._data)
        except Exception as exc:
            return self._refused(exc)

    def _refused(self, exc: Exception) -> CheckAgain:
        if not is_conflict(exc) or self._count >= self._limit:
            raise exc
        self._count += 1
        wait = backoff(self._count, self._rng)
        LOG.info("resource %s: delete refused (%s); trying again in %.1f s",
                 self._instance.name, exc, wait)
        self._due = self._clock.now() + timedelta(seconds=wait)
        self._handle_due = True
        return CheckAgain(wait)
