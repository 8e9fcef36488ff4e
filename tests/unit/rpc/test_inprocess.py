"""What only the threaded transport promises: pools, timeouts, quiescence, no leaks."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.rpc import InProcessTransport, MessagingTimeout
from tests.unit.rpc.endpoints import Recorder

TOPIC = "engine_worker"


@pytest.fixture
def transport() -> Iterator[InProcessTransport]:
    t = InProcessTransport(workers_per_server=4, call_timeout=5.0)
    yield t
    t.stop()


def wait_until(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.001)


def test_call_times_out(transport: InProcessTransport) -> None:
    endpoint = Recorder("a")
    transport.serve(TOPIC, "a", endpoint, Recorder.ALLOWED)
    with pytest.raises(MessagingTimeout, match=r"no reply within 0\.05 s"):
        transport.call({}, TOPIC, "block", {}, timeout=0.05)
    endpoint.release.set()
    assert transport.join(timeout=5.0)


def test_default_call_timeout_applies() -> None:
    t = InProcessTransport(workers_per_server=1, call_timeout=0.05)
    endpoint = Recorder("a")
    t.serve(TOPIC, "a", endpoint, Recorder.ALLOWED)
    try:
        with pytest.raises(MessagingTimeout):
            t.call({}, TOPIC, "block", {})
    finally:
        endpoint.release.set()
        t.stop()


def test_threads_are_named_by_topic(transport: InProcessTransport) -> None:
    transport.serve(TOPIC, "a", Recorder("a"), Recorder.ALLOWED)
    result = transport.call({}, TOPIC, "echo", {})
    assert result["thread"].startswith(f"hotplate-{TOPIC}-")


def test_thread_count_returns_to_baseline_after_stop() -> None:
    baseline = threading.active_count()
    t = InProcessTransport(workers_per_server=8)
    for topic in ("engine", "engine_worker", "heat-engine-listener"):
        for server in ("e1", "e2"):
            t.serve(topic, server, Recorder(server), Recorder.ALLOWED)
    for n in range(200):
        t.cast({}, "engine_worker", "note", {"n": n})
        t.call({}, "engine", "echo", {"n": n})
    assert t.join(timeout=5.0)
    assert threading.active_count() > baseline
    t.stop()
    assert threading.active_count() == baseline


def test_pools_are_bounded() -> None:
    t = InProcessTransport(workers_per_server=3)
    endpoint = Recorder("a")
    t.serve(TOPIC, "a", endpoint, Recorder.ALLOWED)
    try:
        for _ in range(10):
            t.cast({}, TOPIC, "block", {})
        wait_until(lambda: len(endpoint.seen) == 3)
        time.sleep(0.05)
        assert len(endpoint.seen) == 3
        assert not t.idle()
        assert not t.join(timeout=0.01)
    finally:
        endpoint.release.set()
    assert t.join(timeout=5.0)
    assert len(endpoint.seen) == 10
    t.stop()


def test_many_concurrent_casts_are_delivered_exactly_once(
    transport: InProcessTransport,
) -> None:
    endpoints = [Recorder(name) for name in ("e1", "e2", "e3")]
    for endpoint in endpoints:
        transport.serve(TOPIC, endpoint.name, endpoint, Recorder.ALLOWED)

    def send(sender: int) -> None:
        for n in range(500):
            transport.cast({}, TOPIC, "note", {"id": f"{sender}-{n}"})

    senders = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join()
    assert transport.join(timeout=10.0)
    seen = Counter(kw["id"] for e in endpoints for _, kw in e.seen)
    assert len(seen) == 4000
    assert set(seen.values()) == {1}
    counters = transport.counters
    assert (counters.cast, counters.delivered, counters.dropped) == (4000, 4000, 0)
    assert all(1200 <= len(e.seen) <= 1467 for e in endpoints)  # round-robin


class Chain:
    """Each message casts the next one: join must wait for the whole chain."""

    ALLOWED = frozenset({"hop"})

    def __init__(self, transport: InProcessTransport) -> None:
        self.transport = transport
        self.hops: list[int] = []

    def hop(self, ctxt: dict[str, Any], n: int) -> None:
        time.sleep(0.001)
        self.hops.append(n)
        if n:
            self.transport.cast(ctxt, TOPIC, "hop", {"n": n - 1})


def test_join_waits_for_messages_that_cause_messages(transport: InProcessTransport) -> None:
    chain = Chain(transport)
    transport.serve(TOPIC, "a", chain, Chain.ALLOWED)
    transport.cast({}, TOPIC, "hop", {"n": 20})
    assert transport.join(timeout=5.0)
    assert chain.hops == list(range(20, -1, -1))
    assert transport.idle()


def test_stop_waits_for_running_and_drops_queued() -> None:
    t = InProcessTransport(workers_per_server=1)
    endpoint = Recorder("a")
    t.serve(TOPIC, "a", endpoint, Recorder.ALLOWED)
    t.cast({}, TOPIC, "block", {})
    for n in range(5):
        t.cast({}, TOPIC, "note", {"n": n})
    wait_until(lambda: endpoint.methods() == ["block"])
    stopper = threading.Thread(target=t.stop)
    stopper.start()
    wait_until(lambda: t.counters.dropped == 5)  # queued ones cancelled at once
    assert stopper.is_alive()  # ... while the running one is awaited
    endpoint.release.set()
    stopper.join(timeout=5.0)
    assert not stopper.is_alive()
    assert endpoint.methods() == ["block"]
    assert t.idle()


def test_queued_call_cancelled_by_stop_times_out() -> None:
    t = InProcessTransport(workers_per_server=1)
    endpoint = Recorder("a")
    t.serve(TOPIC, "a", endpoint, Recorder.ALLOWED)
    t.cast({}, TOPIC, "block", {})
    wait_until(lambda: endpoint.methods() == ["block"])
    outcome: list[BaseException] = []

    def caller() -> None:
        try:
            t.call({}, TOPIC, "echo", {}, timeout=5.0)
        except MessagingTimeout as exc:
            outcome.append(exc)

    thread = threading.Thread(target=caller)
    thread.start()
    wait_until(lambda: t.counters.called == 1)
    time.sleep(0.05)  # let it queue behind the blocked message
    stopper = threading.Thread(target=t.stop)
    stopper.start()
    thread.join(timeout=5.0)
    endpoint.release.set()
    stopper.join(timeout=5.0)
    assert len(outcome) == 1  # an answer that will never come, not a hang


class SelfStopping:
    """An engine that unserves itself from one of its own handlers."""

    ALLOWED = frozenset({"shutdown"})

    def __init__(self, transport: InProcessTransport) -> None:
        self.transport = transport
        self.done = threading.Event()

    def shutdown(self, ctxt: dict[str, Any]) -> None:
        self.transport.unserve(TOPIC, "a")
        self.done.set()


def test_a_handler_may_unserve_its_own_server(transport: InProcessTransport) -> None:
    endpoint = SelfStopping(transport)
    transport.serve(TOPIC, "a", endpoint, SelfStopping.ALLOWED)
    transport.cast({}, TOPIC, "shutdown", {})
    assert endpoint.done.wait(timeout=5.0)
    assert transport.join(timeout=5.0)


def test_workers_per_server_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        InProcessTransport(workers_per_server=0)
