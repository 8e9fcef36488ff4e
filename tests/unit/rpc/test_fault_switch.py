"""The test-only fault switch: which casts it loses, and that it loses nothing else."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from hotplate.rpc.fault_switch import (
    ENVIRONMENT_VARIABLE,
    DropRule,
    FaultSwitch,
    parse_rules,
    with_faults,
)
from hotplate.rpc.inprocess import InProcessTransport
from tests.unit.rpc.endpoints import Recorder


@pytest.fixture
def inner() -> Iterator[InProcessTransport]:
    transport = InProcessTransport(workers_per_server=2)
    yield transport
    transport.stop()


def _settle(recorder: Recorder, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(recorder.seen) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)  # and nothing more arrives


def test_rules_read_count_passed_and_star() -> None:
    assert parse_rules("check_resource:3") == {"check_resource": DropRule(3)}
    assert parse_rules("check_resource:*@2, note:1@4") == {
        "check_resource": DropRule(None, 2), "note": DropRule(1, 4)}
    assert parse_rules("") == {}


@pytest.mark.parametrize("spec", ["check_resource", "check_resource:x", ":3",
                                  "check_resource:-1", "check_resource:2@y"])
def test_a_rule_that_does_not_read_names_the_variable(spec: str) -> None:
    with pytest.raises(ValueError, match=ENVIRONMENT_VARIABLE):
        parse_rules(spec)


def test_which_casts_a_rule_drops() -> None:
    assert [DropRule(2).drops(n) for n in range(1, 5)] == [True, True, False, False]
    assert [DropRule(None, 2).drops(n) for n in range(1, 6)] == [
        False, False, True, True, True]
    assert [DropRule(1, 1).drops(n) for n in range(1, 4)] == [False, True, False]


def test_the_first_casts_are_lost_the_rest_and_calls_go_through(
        inner: InProcessTransport, caplog: pytest.LogCaptureFixture) -> None:
    switch = FaultSwitch(inner, parse_rules("note:2"))
    recorder = Recorder("a")
    switch.serve("t", "a", recorder, Recorder.ALLOWED)
    with caplog.at_level(logging.WARNING, logger="hotplate.rpc.fault_switch"):
        for n in range(4):
            switch.cast({}, "t", "note", {"n": n}, server="a")
    _settle(recorder, 2)
    assert sorted(kw["n"] for _, kw in recorder.seen) == [2, 3]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "fault switch: dropped cast note number 1", "fault switch: dropped cast note number 2"]
    assert switch.call({}, "t", "echo", {"x": 1}, server="a")["kwargs"] == {"x": 1}
    switch.unserve("t", "a")


def test_unset_wraps_nothing(inner: InProcessTransport) -> None:
    assert with_faults(inner, {}) is inner
    assert isinstance(with_faults(inner, {ENVIRONMENT_VARIABLE: "note:1"}), FaultSwitch)
