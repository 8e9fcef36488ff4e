"""Calls through a WatchedTransport give up as soon as the broker is known unreachable,
and go through again once it is back."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from hotplate.rpc import InProcessTransport
from hotplate.rpc.broker_watch import BrokerWatch
from hotplate.rpc.errors import BrokerUnavailable
from hotplate.rpc.watched import WatchedTransport


class Switch:
    """A probe that fails while ``down``."""

    def __init__(self) -> None:
        self.down = False

    def __call__(self) -> None:
        if self.down:
            raise ConnectionError("cut")

    def close(self) -> None:
        pass


class Slow:
    def __init__(self) -> None:
        self.release = threading.Event()

    def ping(self, ctxt: Any) -> str:
        return "pong"

    def wait(self, ctxt: Any) -> str:
        self.release.wait(10)
        return "late"


@pytest.fixture
def wired() -> Any:
    inner = InProcessTransport(workers_per_server=2, call_timeout=10)
    slow = Slow()
    inner.serve("engine", "h", slow, frozenset({"ping", "wait"}))
    switch = Switch()
    watch = BrokerWatch(switch, interval=3600)  # probed by hand below
    transport = WatchedTransport(inner, watch)
    yield transport, switch, watch, slow
    slow.release.set()
    transport.stop()


def test_calls_pass_while_the_broker_answers(wired: Any) -> None:
    transport, _, _, _ = wired
    assert transport.call({}, "engine", "ping", {}, server="h") == "pong"


def test_a_call_is_refused_at_once_while_the_broker_is_unreachable(wired: Any) -> None:
    transport, switch, watch, _ = wired
    switch.down = True
    assert not watch.probe_once()
    with pytest.raises(BrokerUnavailable) as raised:
        transport.call({}, "engine", "ping", {}, server="h")
    assert raised.value.retry_after >= 1
    switch.down = False
    assert watch.probe_once()
    assert transport.call({}, "engine", "ping", {}, server="h") == "pong"


def test_a_waiting_call_gives_up_when_the_broker_goes(wired: Any) -> None:
    transport, switch, watch, _ = wired
    failed: list[BaseException] = []

    def waiting() -> None:
        try:
            transport.call({}, "engine", "wait", {}, server="h")
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=waiting)
    thread.start()
    time.sleep(0.3)
    switch.down = True
    started = time.monotonic()
    watch.probe_once()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - started < 1.0
    assert isinstance(failed[0], BrokerUnavailable)
