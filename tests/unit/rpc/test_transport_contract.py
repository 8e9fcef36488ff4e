"""The Transport contract, run against every implementation."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pytest

from hotplate.model.errors import EntityNotFound, StackValidationFailed
from hotplate.rpc import (
    DeterministicTransport,
    InProcessTransport,
    MessagingTimeout,
    NoSuchMethod,
    NotSerializable,
    RemoteError,
)
from hotplate.rpc.dispatch import Counters
from tests.unit.rpc.endpoints import Recorder
from tests.unit.rpc.test_gated_pool import OneAtATime

TOPIC = "engine_worker"


@dataclass
class Harness:
    transport: InProcessTransport | DeterministicTransport
    settle: Callable[[], None]
    gate: Any = None

    def serve(self, *names: str, topic: str = TOPIC) -> list[Recorder]:
        endpoints = [Recorder(name) for name in names]
        for endpoint in endpoints:
            self.transport.serve(topic, endpoint.name, endpoint, Recorder.ALLOWED,
                                 gate=self.gate)
        return endpoints

    @property
    def counters(self) -> Counters:
        return self.transport.counters


@pytest.fixture(params=["inprocess", "inprocess-gated", "deterministic"])
def harness(request: pytest.FixtureRequest) -> Iterator[Harness]:
    if request.param.startswith("inprocess"):
        inproc = InProcessTransport(workers_per_server=4, call_timeout=5.0)

        def settle() -> None:
            assert inproc.join(timeout=5.0)

        gate = OneAtATime() if request.param == "inprocess-gated" else None
        yield Harness(inproc, settle, gate)
        inproc.stop()
    else:
        det = DeterministicTransport(seed=7, raise_errors=False)

        def run() -> None:
            det.run_until_idle()

        yield Harness(det, run)
        det.stop()


class Colour(StrEnum):
    RED = "red"


# -- call ------------------------------------------------------------------------
def test_call_returns_json_result(harness: Harness) -> None:
    harness.serve("a")
    result = harness.transport.call({"user": "u"}, TOPIC, "echo",
                                    {"n": 1, "data": {"xs": [1, 2.5, None, True]}})
    assert result["server"] == "a"
    assert result["ctxt"] == {"user": "u"}
    assert result["kwargs"] == {"n": 1, "data": {"xs": [1, 2.5, None, True]}}


def test_endpoint_gets_fresh_copies_and_plain_values(harness: Harness) -> None:
    (endpoint,) = harness.serve("a")
    sent = {"xs": [1, 2], "colour": Colour.RED}
    harness.transport.call({}, TOPIC, "echo", sent)
    received = endpoint.seen[0][1]
    assert received == {"xs": [1, 2], "colour": "red"}
    assert received["xs"] is not sent["xs"]
    assert type(received["colour"]) is str


def test_call_to_nobody_times_out(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(MessagingTimeout):
        harness.transport.call({}, TOPIC, "echo", {}, server="gone")
    with pytest.raises(MessagingTimeout):
        harness.transport.call({}, "no-such-topic", "echo", {})


# -- cast ------------------------------------------------------------------------
def test_cast_reaches_the_named_server(harness: Harness) -> None:
    a, b = harness.serve("a", "b")
    harness.transport.cast({}, TOPIC, "note", {"n": 1}, server="b")
    harness.settle()
    assert a.seen == []
    assert b.seen == [("note", {"n": 1})]
    assert harness.counters.delivered == 1


def test_cast_without_server_goes_round_robin(harness: Harness) -> None:
    endpoints = harness.serve("a", "b", "c")
    for n in range(30):
        harness.transport.cast({}, TOPIC, "note", {"n": n})
    harness.settle()
    assert [len(e.seen) for e in endpoints] == [10, 10, 10]
    got = sorted(kw["n"] for e in endpoints for _, kw in e.seen)
    assert got == list(range(30))


def test_cast_to_nobody_is_dropped_with_a_warning(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    harness.serve("a")
    with caplog.at_level(logging.WARNING):
        harness.transport.cast({}, TOPIC, "note", {}, server="dead-engine")
        harness.transport.cast({}, "no-such-topic", "note", {})
    harness.settle()
    assert harness.counters.dropped == 2
    assert harness.counters.cast == 2
    assert sum("dropped" in r.getMessage() for r in caplog.records) == 2


def test_unserved_server_gets_nothing_more(harness: Harness) -> None:
    (a,) = harness.serve("a")
    harness.transport.unserve(TOPIC, "a")
    harness.transport.unserve(TOPIC, "a")  # twice is harmless
    harness.transport.cast({}, TOPIC, "note", {}, server="a")
    harness.settle()
    assert a.seen == []
    assert harness.counters.dropped == 1


def test_serving_the_same_server_twice_is_an_error(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(ValueError, match="already served"):
        harness.serve("a")


def test_failing_cast_is_logged_and_does_not_stop_delivery(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    (a,) = harness.serve("a")
    with caplog.at_level(logging.ERROR):
        harness.transport.cast({}, TOPIC, "boom", {})
        harness.settle()
    harness.transport.cast({}, TOPIC, "note", {})
    harness.settle()
    assert a.methods() == ["boom", "note"]
    assert harness.counters.failed == 1
    assert harness.counters.delivered == 2
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.exc_info is not None


# -- access policy ---------------------------------------------------------------
@pytest.mark.parametrize("method", ["hidden", "_secret", "data", "missing", "__init__"])
def test_refused_call_is_never_invoked(harness: Harness, method: str) -> None:
    (a,) = harness.serve("a")
    with pytest.raises(NoSuchMethod) as info:
        harness.transport.call({}, TOPIC, method, {})
    assert isinstance(info.value, RemoteError)
    assert info.value.method == method
    assert a.seen == []
    assert harness.counters.refused == 1


@pytest.mark.parametrize("method", ["hidden", "_secret", "data", "missing"])
def test_refused_cast_is_never_invoked(harness: Harness, method: str) -> None:
    (a,) = harness.serve("a")
    harness.transport.cast({}, TOPIC, method, {})
    harness.settle()
    assert a.seen == []
    assert harness.counters.refused == 1
    assert harness.counters.delivered == 0


# -- what may cross --------------------------------------------------------------
NOT_JSON: list[tuple[dict[str, Any], str]] = [
    ({"data": {"when": datetime.datetime(2026, 1, 1)}}, "kwargs.data.when"),
    ({"ids": (1, 2)}, "kwargs.ids"),
    ({"ids": [1, {2, 3}]}, "kwargs.ids[1]"),
    ({"data": {1: "x"}}, "kwargs.data[1]"),
    ({"obj": object()}, "kwargs.obj"),
    ({"x": float("nan")}, "kwargs.x"),
    ({"data": {"a b": b"raw"}}, "kwargs.data['a b']"),
]


@pytest.mark.parametrize(("kwargs", "path"), NOT_JSON)
@pytest.mark.parametrize("kind", ["call", "cast"])
def test_non_json_is_refused_at_the_sender(
    harness: Harness, kwargs: dict[str, Any], path: str, kind: str
) -> None:
    (a,) = harness.serve("a")
    send = harness.transport.call if kind == "call" else harness.transport.cast
    with pytest.raises(TypeError) as info:
        send({}, TOPIC, "echo", kwargs)
    assert isinstance(info.value, NotSerializable)
    assert info.value.path == path
    assert path in str(info.value)
    harness.settle()
    assert a.seen == []
    assert harness.counters == Counters()


def test_non_json_context_is_refused(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(NotSerializable, match=r"ctxt\.roles"):
        harness.transport.cast({"roles": {"admin"}}, TOPIC, "note", {})


# -- errors across the transport ----------------------------------------------------
def test_model_errors_keep_their_class(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(EntityNotFound) as info:
        harness.transport.call({}, TOPIC, "not_found", {"name": "web"})
    assert str(info.value) == "The Stack (web) could not be found."
    assert (info.value.entity, info.value.name) == ("Stack", "web")

    with pytest.raises(StackValidationFailed) as invalid:
        harness.transport.call({}, TOPIC, "invalid", {})
    assert str(invalid.value) == "resources.web.type: unknown type"
    assert list(invalid.value.path) == ["resources", "web", "type"]


def test_other_errors_become_remote_errors(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(RemoteError) as info:
        harness.transport.call({}, TOPIC, "boom", {})
    assert (info.value.exc_type, info.value.message, info.value.module) == (
        "ValueError", "boom", "builtins")
    assert harness.counters.failed == 1


def test_non_json_result_fails_at_the_endpoint(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(RemoteError) as info:
        harness.transport.call({}, TOPIC, "bad_result", {})
    assert info.value.exc_type == "NotSerializable"
    assert "result.when" in info.value.message


def test_wrong_arguments_are_a_remote_type_error(harness: Harness) -> None:
    harness.serve("a")
    with pytest.raises(RemoteError) as info:
        harness.transport.call({}, TOPIC, "not_found", {"nom": "web"})
    assert info.value.exc_type == "TypeError"


def test_stop_is_idempotent_and_final(harness: Harness) -> None:
    (a,) = harness.serve("a")
    harness.transport.stop()
    harness.transport.stop()
    harness.transport.cast({}, TOPIC, "note", {})
    harness.settle()
    with pytest.raises(MessagingTimeout):
        harness.transport.call({}, TOPIC, "echo", {})
    assert a.seen == []
    assert harness.counters.dropped == 2


def test_serve_after_stop_is_an_error(harness: Harness) -> None:
    harness.transport.stop()
    with pytest.raises(RuntimeError, match="stopped"):
        harness.serve("a")
