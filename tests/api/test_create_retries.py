"""Heat's ``action_retry_limit`` and a cloud API that is away, seen through
python-heatclient: a create whose object goes ERROR is deleted and made again
(with Heat's events), up to the limit, then fails with Heat's text; a plugin call
that finds the API unavailable waits and goes on, its handler told it is a retry."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from hotplate.app import open_store, start_engine
from hotplate.cloud.errors import CloudConflict, CloudUnavailable
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import EngineOptions
from hotplate.resources.base import CheckResult, Resource
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry
from hotplate.resources.status_errors import ResourceInError
from hotplate.rpc.inprocess import InProcessTransport
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, wait_status

LIMIT = 2


class Flaky(Resource):
    """Goes ERROR ``errors`` times (its check says so, as a server's that no host
    fits), then builds; every object it makes and deletes is counted by its key."""

    properties_schema = {
        "key": Schema(Schema.STRING, "Counts this one apart.", required=True),
        "errors": Schema(Schema.INTEGER, "Creates that go ERROR first.", default=0),
    }
    made: ClassVar[Counter[str]] = Counter()
    deleted: ClassVar[Counter[str]] = Counter()
    tokens: ClassVar[dict[str, list[tuple[str, bool]]]] = {}
    lock = threading.Lock()

    def handle_create(self) -> int:
        key = self.properties["key"]
        with Flaky.lock:
            Flaky.made[key] += 1
            Flaky.tokens.setdefault(key, []).append((self.attempt.token, self.attempt.retry))
            number = Flaky.made[key]
        self.resource_id_set(f"{key}-{number}")
        return number

    def check_create_complete(self, number: int) -> CheckResult:
        if number <= self.properties["errors"]:
            raise ResourceInError("ERROR", f"Message: No valid host ({number}), Code: 500")
        return True

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            with Flaky.lock:
                Flaky.deleted[self.properties["key"]] += 1


class Busy(Resource):
    """Its delete is refused as in use (409) ``conflicts`` times."""

    properties_schema = {
        "key": Schema(Schema.STRING, "Counts this one apart.", required=True),
        "conflicts": Schema(Schema.INTEGER, "Deletes refused first."),
    }
    deletes: ClassVar[Counter[str]] = Counter()

    def handle_create(self) -> None:
        self.resource_id_set(self.properties["key"])

    def handle_delete(self) -> None:
        key = self.properties["key"]
        Busy.deletes[key] += 1
        if Busy.deletes[key] <= self.properties["conflicts"]:
            raise CloudConflict(f"Volume {key} is busy (HTTP 409)", 409)


class Unreachable(Resource):
    """Its cloud is away for its first handles and checks, as many as it is told."""

    properties_schema = {
        "key": Schema(Schema.STRING, "Counts this one apart.", required=True),
        "handles_away": Schema(Schema.INTEGER, "Handles that find the API away."),
        "checks_away": Schema(Schema.INTEGER, "Checks that find the API away."),
    }
    calls: ClassVar[Counter[tuple[str, str]]] = Counter()
    retries: ClassVar[Counter[str]] = Counter()

    def _call(self, step: str) -> None:
        key = self.properties["key"]
        Unreachable.calls[key, step] += 1
        if Unreachable.calls[key, step] <= self.properties[f"{step}s_away"]:
            raise CloudUnavailable("Unable to establish connection to http://127.0.0.1:8774")

    def handle_create(self) -> str:
        if self.attempt.retry:
            Unreachable.retries[self.properties["key"]] += 1
        self._call("handle")
        self.resource_id_set(self.properties["key"])
        return "made"

    def check_create_complete(self, data: str) -> CheckResult:
        assert data == "made"
        self._call("check")
        return True


@pytest.fixture(scope="module")
def retries_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = f"sqlite:///{tmp_path_factory.mktemp('retries') / 'hotplate.sqlite'}"
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=4)
    registry = Registry.with_extra({"Test::Flaky": Flaky, "Test::Unreachable": Unreachable,
                                     "Test::Busy": Busy})
    engine = start_engine(open_store(db, clock), transport, clock=clock, work_slots=1,
                          registry=registry, options=EngineOptions(action_retry_limit=LIMIT))
    with serving(engine, transport) as served:
        yield served


def _template(type_name: str, **props: Any) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "resources": {"thing": {"type": type_name, "properties": props}}}


def _events(hc: Any, stack: str) -> list[tuple[str, str, str]]:
    """A resource's events, oldest first (the API lists one resource's newest first)."""
    return [(e.resource_status, e.physical_resource_id or "", e.resource_status_reason)
            for e in reversed(hc.events.list(stack, resource_name="thing"))]


def test_a_create_that_goes_error_twice_is_deleted_and_made_again(retries_api: Api) -> None:
    hc = retries_api.client()
    hc.stacks.create(stack_name="flaky", template=_template("Test::Flaky", key="k2",
                                                            errors=LIMIT))
    assert wait_status(hc, "flaky", timeout=60).stack_status == "CREATE_COMPLETE"
    thing = hc.resources.get("flaky", "thing")
    assert (thing.resource_status, thing.physical_resource_id) == ("CREATE_COMPLETE", "k2-3")
    assert (Flaky.made["k2"], Flaky.deleted["k2"]) == (3, 2)
    tokens = [token for token, _ in Flaky.tokens["k2"]]
    assert len(set(tokens)) == 3 and not any(retry for _, retry in Flaky.tokens["k2"])
    error = ('ResourceInError: resources.thing: Went to status ERROR due to '
             '"Message: No valid host ({n}), Code: 500"')
    assert _events(hc, "flaky") == [
        ("CREATE_IN_PROGRESS", "", "state changed"),
        ("CREATE_FAILED", "k2-1", error.format(n=1)),
        ("DELETE_IN_PROGRESS", "k2-1", "state changed"),
        ("DELETE_COMPLETE", "k2-1", "state changed"),
        ("CREATE_IN_PROGRESS", "", "state changed"),
        ("CREATE_FAILED", "k2-2", error.format(n=2)),
        ("DELETE_IN_PROGRESS", "k2-2", "state changed"),
        ("DELETE_COMPLETE", "k2-2", "state changed"),
        ("CREATE_IN_PROGRESS", "", "state changed"),
        ("CREATE_COMPLETE", "k2-3", "state changed"),
    ]


def test_past_the_limit_the_first_failure_fails_the_stack(retries_api: Api) -> None:
    hc = retries_api.client()
    hc.stacks.create(stack_name="broken", template=_template("Test::Flaky", key="k9",
                                                             errors=9))
    stack = wait_status(hc, "broken", timeout=60)
    first = ('ResourceInError: resources.thing: Went to status ERROR due to '
             '"Message: No valid host (1), Code: 500"')
    assert stack.stack_status == "CREATE_FAILED"
    assert stack.stack_status_reason == f"Resource CREATE failed: {first}"
    assert (Flaky.made["k9"], Flaky.deleted["k9"]) == (LIMIT + 1, LIMIT)
    statuses = [status for status, _, _ in _events(hc, "broken")]
    assert statuses.count("CREATE_FAILED") == LIMIT + 1
    assert statuses[-1] == "CREATE_FAILED"
    hc.stacks.delete("broken")
    deadline = time.monotonic() + 30
    while Flaky.deleted["k9"] < LIMIT + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Flaky.deleted["k9"] == LIMIT + 1  # the last one, deleted with the stack


def test_a_plugin_failing_otherwise_is_not_retried(retries_api: Api) -> None:
    hc = retries_api.client()
    hc.stacks.create(stack_name="once", template=_template("Test::Flaky", key="k0"))
    assert wait_status(hc, "once", timeout=30).stack_status == "CREATE_COMPLETE"
    assert Flaky.made["k0"] == 1


def test_an_unavailable_cloud_is_waited_for(retries_api: Api) -> None:
    """Away for the handle and the first check: the handler runs again as a retry
    of its attempt, the check is asked again, and the create completes."""
    hc = retries_api.client()
    hc.stacks.create(stack_name="away", template=_template(
        "Test::Unreachable", key="u", handles_away=1, checks_away=2))
    assert wait_status(hc, "away", timeout=60).stack_status == "CREATE_COMPLETE"
    assert (Unreachable.calls["u", "handle"], Unreachable.calls["u", "check"]) == (2, 3)
    assert Unreachable.retries["u"] == 1
    assert [status for status, _, _ in _events(hc, "away")] == [
        "CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_a_delete_refused_as_busy_is_asked_again(retries_api: Api) -> None:
    """Twice refused with a 409 (the limit): deleted the third time, with no event
    between, as Heat's delete retries; once more, and the delete fails."""
    hc = retries_api.client()
    for stack, key, conflicts in (("busy", "b2", LIMIT), ("stuck", "b3", LIMIT + 1)):
        hc.stacks.create(stack_name=stack, template=_template("Test::Busy", key=key,
                                                             conflicts=conflicts))
        assert wait_status(hc, stack).stack_status == "CREATE_COMPLETE"
        hc.stacks.delete(stack)
    deadline = time.monotonic() + 60
    while Busy.deletes["b2"] < LIMIT + 1 or Busy.deletes["b3"] < LIMIT + 1:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    stuck = wait_status(hc, "stuck", timeout=30)
    while "busy" in {listed.stack_name for listed in hc.stacks.list()}:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert (stuck.stack_status, stuck.stack_status_reason) == (
        "DELETE_FAILED", "Resource DELETE failed: CloudConflict: resources.thing: "
        "Volume b3 is busy (HTTP 409)")
    assert [status for status, _, _ in _events(hc, "stuck")][-2:] == [
        "DELETE_IN_PROGRESS", "DELETE_FAILED"]
