"""Heat's create and delete retries (action_retries.py), and the waits for a cloud
API that is away (cloud_waits.py), driven check by check on a fake clock."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from hotplate.cloud.errors import CloudConflict, CloudOverLimit, CloudUnavailable
from hotplate.engine.clock import FakeClock
from hotplate.engine.worker.action_retries import (
    CreateRetries,
    DeleteRetries,
    backoff,
    retryable,
)
from hotplate.engine.worker.cloud_waits import LONGEST_WAIT, CloudWaits, resolving
from hotplate.model.states import Action, Status
from hotplate.resources.base import Attempt, CheckAgain, CheckResult, Resource
from hotplate.resources.status_errors import ResourceInError

Log = list[tuple[Action, Status, str]]


class Scripted(Resource):
    """Each handler and check answers from a script: a value, or an exception raised."""

    def __init__(self, script: dict[str, list[Any]]) -> None:
        super().__init__("thing", {}, None)  # type: ignore[arg-type]
        self.script = script
        self.calls: list[tuple[str, str, bool]] = []

    def _next(self, step: str) -> Any:
        self.calls.append((step, self.attempt.token, self.attempt.retry))
        answer = self.script[step].pop(0) if self.script.get(step) else True
        if isinstance(answer, Exception):
            raise answer
        return answer

    def handle_create(self) -> Any:
        return self._next("create")

    def check_create_complete(self, data: Any) -> CheckResult:
        return bool(self._next("check_create"))

    def handle_delete(self) -> Any:
        return self._next("delete")

    def check_delete_complete(self, data: Any) -> CheckResult:
        return bool(self._next("check_delete"))


def _run(check: Callable[[Any], CheckResult], clock: FakeClock, limit: int = 50) -> int:
    """Check until done, sleeping as asked; how many checks it took."""
    for n in range(1, limit + 1):
        answer = check(None)
        if answer:
            return n
        clock.advance(answer.after if isinstance(answer, CheckAgain) else 0.01)
    raise AssertionError("never done")


def _retries(plugin: Scripted, clock: FakeClock, limit: int,
             log: Log) -> CreateRetries:
    plugin.attempt = Attempt("t0")
    return CreateRetries(plugin, plugin.handle_create, limit=limit, clock=clock,
                         record=lambda a, s, r: log.append((a, s, r)),
                         token=lambda n: f"t{n}", rng=random.Random(1))


def _error(n: int) -> ResourceInError:
    return ResourceInError("ERROR", f"no host {n}")


def test_a_delete_refused_with_a_conflict_is_asked_again() -> None:
    clock, log = FakeClock(), Log()
    plugin = Scripted({"check_create": [_error(1), True],
                       "delete": [CloudConflict("busy (HTTP 409)", 409), None]})
    retries = _retries(plugin, clock, 1, log)
    retries.handle()
    _run(retries.check, clock)
    assert [(a.value, s.value) for a, s, _ in log] == [
        ("CREATE", "FAILED"), ("DELETE", "IN_PROGRESS"), ("DELETE", "FAILED"),
        ("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE"), ("CREATE", "IN_PROGRESS")]
    assert log[2][2] == "CloudConflict: resources.thing: busy (HTTP 409)"
    assert [token for step, token, _ in plugin.calls if step == "create"] == ["t0", "t1"]


def test_limit_zero_fails_at_once_and_other_failures_are_not_retried() -> None:
    clock, log = FakeClock(), Log()
    retries = _retries(Scripted({"check_create": [_error(1)]}), clock, 0, log)
    retries.handle()
    with pytest.raises(ResourceInError):
        retries.check(None)
    assert log == []
    retries = _retries(Scripted({"check_create": [RuntimeError("boom")]}), clock, 5, log)
    retries.handle()
    with pytest.raises(RuntimeError):
        retries.check(None)
    assert log == []


def test_a_create_whose_traversal_was_superseded_is_not_made_again() -> None:
    # A cancelled update's replacement: its port still held by the server the rollback
    # keeps, every try would meet the same conflict and hold the rollback up.
    clock, log = FakeClock(), Log()
    plugin = Scripted({"check_create": [CloudConflict("Port p is still in use.", 409)]})
    plugin.attempt = Attempt("t0")
    retries = CreateRetries(plugin, plugin.handle_create, limit=5, clock=clock,
                            record=lambda a, s, r: log.append((a, s, r)),
                            token=lambda n: f"t{n}", superseded=lambda: True)
    retries.handle()
    with pytest.raises(CloudConflict):
        retries.check(None)
    assert log == []
    assert [step for step, _, _ in plugin.calls] == ["create", "check_create"]


def test_what_heat_retries() -> None:
    assert retryable(_error(1))
    assert retryable(CloudConflict("in use", 409))
    assert not retryable(CloudOverLimit("OverQuota", 409))
    assert not retryable(RuntimeError("x"))
    rng = random.Random(3)
    assert 2.0 <= backoff(1, rng) < 4.0 and 16.0 <= backoff(4, rng) < 18.0


def test_an_outage_in_a_retried_create_runs_it_again_as_a_retry() -> None:
    """The second create's POST finds the API away: run again, same token, told so;
    its CREATE_IN_PROGRESS is recorded once."""
    clock, log = FakeClock(), Log()
    away = CloudUnavailable("Unable to establish connection")
    plugin = Scripted({"check_create": [_error(1), True], "create": [1, away, 2]})
    retries = _retries(plugin, clock, 1, log)
    waits = CloudWaits(plugin, retries.handle, retries.check)
    waits.handle()
    _run(waits.check, clock)
    assert [(t, r) for step, t, r in plugin.calls if step == "create"] == [
        ("t0", False), ("t1", False), ("t1", True)]
    assert [s.value for a, s, _ in log if a is Action.CREATE] == ["FAILED", "IN_PROGRESS"]


def test_an_outage_waits_longer_each_time_up_to_a_cap() -> None:
    away = CloudUnavailable("refused")
    plugin = Scripted({"create": [None], "check_create": [away] * 8 + [True]})
    waits = CloudWaits(plugin, plugin.handle_create, plugin.check_create_complete)
    waits.handle()
    asked = []
    while not (answer := waits.check(None)):
        assert isinstance(answer, CheckAgain)
        asked.append(answer.after)
    assert asked == [1.0, 2.0, 4.0, 8.0, LONGEST_WAIT, LONGEST_WAIT, LONGEST_WAIT,
                     LONGEST_WAIT]


def test_resolving_waits_until_the_deadline_then_fails() -> None:
    clock = FakeClock()
    tries: list[int] = []

    def lookup() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise CloudUnavailable("refused")
        return "found"

    cancelled = threading.Event()
    assert resolving(lookup, clock=clock, deadline=None, cancelled=cancelled,
                     sleep=clock.sleep) == "found"

    def never() -> str:
        raise CloudUnavailable("refused")

    deadline = clock.now() + timedelta(seconds=30)
    with pytest.raises(CloudUnavailable):
        resolving(never, clock=clock, deadline=deadline, cancelled=cancelled,
                  sleep=clock.sleep)
    assert clock.now() <= deadline


def test_a_delete_refused_with_conflicts_is_run_again_up_to_the_limit() -> None:
    clock = FakeClock()
    busy = CloudConflict("Volume is busy (HTTP 409)", 409)
    plugin = Scripted({"delete": [busy, None], "check_delete": [busy, True]})
    retries = DeleteRetries(plugin, plugin.handle_delete, limit=2, clock=clock,
                            rng=random.Random(1))
    retries.handle()
    _run(retries.check, clock)
    assert [step for step, _, _ in plugin.calls] == [
        "delete", "delete", "check_delete", "delete", "check_delete"]
    plugin = Scripted({"delete": [busy, busy]})
    retries = DeleteRetries(plugin, plugin.handle_delete, limit=1, clock=clock)
    retries.handle()
    with pytest.raises(CloudConflict):
        _run(retries.check, clock)


def test_a_delete_failing_otherwise_is_not_run_again() -> None:
    plugin = Scripted({"check_delete": [_error(1)]})
    retries = DeleteRetries(plugin, plugin.handle_delete, limit=5, clock=FakeClock())
    retries.handle()
    with pytest.raises(ResourceInError):
        retries.check(None)
