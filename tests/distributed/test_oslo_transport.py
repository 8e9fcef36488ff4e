"""OsloTransport over a real RabbitMQ: the Transport contract where a broker can keep it.

What differs from in-process, by nature of a broker: a cast to a server
nobody serves is dropped by RabbitMQ without the sender knowing, and
server-less messages are shared out by the broker rather than in strict
turn. Both are Heat's behaviour too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

import pytest

from hotplate.model.errors import EntityNotFound, StackValidationFailed
from hotplate.rpc import MessagingTimeout, NoSuchMethod, NotSerializable, RemoteError
from hotplate.rpc.messaging import OsloTransport
from tests.unit.rpc.endpoints import Recorder

TOPIC = "engine_worker"


@pytest.fixture
def transport(broker_url: str) -> Iterator[OsloTransport]:
    made = OsloTransport(broker_url, workers_per_server=4, call_timeout=10.0)
    yield made
    made.stop()


def serve(transport: OsloTransport, *names: str, topic: str = TOPIC) -> list[Recorder]:
    endpoints = [Recorder(name) for name in names]
    for endpoint in endpoints:
        transport.serve(topic, endpoint.name, endpoint, Recorder.ALLOWED)
    return endpoints


def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


def test_call_returns_json_result_and_a_plain_context(transport: OsloTransport) -> None:
    serve(transport, "a")
    result = transport.call({"user": "u"}, TOPIC, "echo",
                            {"n": 1, "data": {"xs": [1, 2.5, None, True]}})
    assert result["server"] == "a"
    assert result["ctxt"] == {"user": "u"}
    assert result["kwargs"] == {"n": 1, "data": {"xs": [1, 2.5, None, True]}}
    assert result["thread"] != "MainThread"


def test_call_to_a_dead_server_times_out(transport: OsloTransport) -> None:
    serve(transport, "a")
    started = time.monotonic()
    with pytest.raises(MessagingTimeout, match="gone"):
        transport.call({}, TOPIC, "echo", {}, server="gone", timeout=1)
    assert 0.9 < time.monotonic() - started < 5


def test_cast_reaches_the_named_server_only(transport: OsloTransport) -> None:
    a, b = serve(transport, "a", "b")
    transport.cast({}, TOPIC, "note", {"n": 1}, server="b")
    eventually(lambda: b.seen == [("note", {"n": 1})])
    time.sleep(0.2)
    assert a.seen == []


def test_casts_without_server_are_shared_and_none_is_lost(transport: OsloTransport) -> None:
    endpoints = serve(transport, "a", "b")
    for n in range(40):
        transport.cast({}, TOPIC, "note", {"n": n})
    eventually(lambda: sum(len(e.seen) for e in endpoints) == 40)
    got = sorted(kw["n"] for e in endpoints for _, kw in e.seen)
    assert got == list(range(40))
    assert all(e.seen for e in endpoints), [len(e.seen) for e in endpoints]


def test_calls_without_server_reach_some_server(transport: OsloTransport) -> None:
    serve(transport, "a", "b")
    servers = {transport.call({}, TOPIC, "echo", {})["server"] for _ in range(20)}
    assert servers <= {"a", "b"} and servers


def test_unserved_server_gets_nothing_more(transport: OsloTransport) -> None:
    (a,) = serve(transport, "a")
    transport.unserve(TOPIC, "a")
    transport.unserve(TOPIC, "a")  # twice is harmless
    transport.cast({}, TOPIC, "note", {}, server="a")
    with pytest.raises(MessagingTimeout):
        transport.call({}, TOPIC, "echo", {}, server="a", timeout=1)
    assert a.seen == []


def test_serving_the_same_server_twice_is_an_error(transport: OsloTransport) -> None:
    serve(transport, "a")
    with pytest.raises(ValueError, match="already served"):
        serve(transport, "a")


def test_failing_cast_is_logged_and_does_not_stop_delivery(
    transport: OsloTransport, caplog: pytest.LogCaptureFixture
) -> None:
    (a,) = serve(transport, "a")
    with caplog.at_level(logging.ERROR):
        transport.cast({}, TOPIC, "boom", {}, server="a")
        transport.cast({}, TOPIC, "note", {}, server="a")
        eventually(lambda: sorted(a.methods()) == ["boom", "note"])  # casts go out in any order
        # a message is counted once its method has returned, a moment after it ran
        eventually(lambda: transport.counters.delivered == 2)
    counters = transport.counters
    assert (counters.delivered, counters.failed) == (2, 1)
    ours = [r for r in caplog.records if r.levelno == logging.ERROR
            and r.name.startswith("hotplate.rpc.")]  # ours, not oslo's
    assert len(ours) == 1 and ours[0].exc_info is not None


@pytest.mark.parametrize("method", ["hidden", "_secret", "data", "missing"])
def test_refused_call_is_never_invoked(transport: OsloTransport, method: str) -> None:
    (a,) = serve(transport, "a")
    with pytest.raises(NoSuchMethod) as info:
        transport.call({}, TOPIC, method, {})
    assert isinstance(info.value, RemoteError)
    assert method in str(info.value)
    assert a.seen == []


def test_refused_cast_is_never_invoked(transport: OsloTransport) -> None:
    (a,) = serve(transport, "a")
    transport.cast({}, TOPIC, "hidden", {}, server="a")
    eventually(lambda: transport.counters.refused == 1)
    assert a.seen == []


@pytest.mark.parametrize("kind", ["call", "cast"])
def test_non_json_is_refused_at_the_sender(transport: OsloTransport, kind: str) -> None:
    (a,) = serve(transport, "a")
    send = transport.call if kind == "call" else transport.cast
    with pytest.raises(NotSerializable) as info:
        send({}, TOPIC, "echo", {"ids": (1, 2)})
    assert info.value.path == "kwargs.ids"
    with pytest.raises(NotSerializable, match=r"ctxt\.roles"):
        send({"roles": {"admin"}}, TOPIC, "echo", {})
    assert a.seen == []


def test_model_errors_keep_their_class(transport: OsloTransport) -> None:
    serve(transport, "a")
    with pytest.raises(EntityNotFound) as info:
        transport.call({}, TOPIC, "not_found", {"name": "web"})
    assert str(info.value) == "The Stack (web) could not be found."
    assert (info.value.entity, info.value.name) == ("Stack", "web")
    with pytest.raises(StackValidationFailed) as invalid:
        transport.call({}, TOPIC, "invalid", {})
    assert str(invalid.value) == "resources.web.type: unknown type"
    assert list(invalid.value.path) == ["resources", "web", "type"]


def test_other_errors_become_remote_errors(transport: OsloTransport) -> None:
    serve(transport, "a")
    with pytest.raises(RemoteError) as info:
        transport.call({}, TOPIC, "boom", {})
    assert (info.value.exc_type, info.value.message, info.value.module) == (
        "ValueError", "boom", "builtins")
    with pytest.raises(RemoteError) as bad:
        transport.call({}, TOPIC, "bad_result", {})
    assert bad.value.exc_type == "NotSerializable" and "result.when" in bad.value.message
    with pytest.raises(RemoteError) as wrong:
        transport.call({}, TOPIC, "not_found", {"nom": "web"})
    assert wrong.value.exc_type == "TypeError"


def test_engine_topic_speaks_heats_version(transport: OsloTransport) -> None:
    """A stock heat-api sends version 1.36 on ``engine``: the server must accept it."""
    serve(transport, "host-a", topic="engine")
    assert transport.call({}, "engine", "echo", {})["server"] == "host-a"


def test_stop_is_idempotent_and_final(transport: OsloTransport) -> None:
    (a,) = serve(transport, "a")
    transport.stop()
    transport.stop()
    transport.cast({}, TOPIC, "note", {})
    with pytest.raises(MessagingTimeout, match="stopped"):
        transport.call({}, TOPIC, "echo", {})
    with pytest.raises(RuntimeError, match="stopped"):
        serve(transport, "b")
    assert a.seen == []
    assert transport.counters.dropped == 2


def test_a_bad_url_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"transport URL 'nosuch://u:\*\*\*@h/'"):
        OsloTransport("nosuch://u:secret@h/")


def test_a_cast_carries_its_values_as_they_were_when_cast(transport: OsloTransport) -> None:
    """Casts are published from other threads: changing a value afterwards changes nothing."""
    (a,) = serve(transport, "a")
    data = {"xs": [1]}
    transport.cast({}, TOPIC, "note", {"data": data}, server="a")
    data["xs"].append(2)
    eventually(lambda: a.seen == [("note", {"data": {"xs": [1]}})])
