"""What only the scenario transport promises: seeded order, duplicates, hold and release."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

from hotplate.rpc import DeterministicTransport, NoSuchMethod, Pending
from tests.unit.rpc.endpoints import Recorder

TOPIC = "engine_worker"


def serving(*names: str, **options: Any) -> tuple[DeterministicTransport, list[Recorder]]:
    options.setdefault("seed", 1)
    transport = DeterministicTransport(**options)
    endpoints = [Recorder(name) for name in names]
    for endpoint in endpoints:
        transport.serve(TOPIC, endpoint.name, endpoint, Recorder.ALLOWED)
    return transport, endpoints


def delivery_order(seed: int, *, reorder: bool = True) -> list[int]:
    transport, (a,) = serving("a", seed=seed, reorder=reorder)
    for n in range(30):
        transport.cast({}, TOPIC, "note", {"n": n})
    transport.run_until_idle()
    return [kw["n"] for _, kw in a.seen]


def test_nothing_runs_until_stepped() -> None:
    transport, (a,) = serving("a")
    transport.cast({}, TOPIC, "note", {"n": 1}, server="a")
    transport.cast({}, TOPIC, "note", {"n": 2})
    assert a.seen == []
    assert transport.pending() == [
        Pending(TOPIC, "a", "note", {"n": 1}),
        Pending(TOPIC, None, "note", {"n": 2}),
    ]
    assert transport.step()
    assert len(a.seen) == 1
    assert transport.run_until_idle() == 1
    assert not transport.step()
    assert transport.pending() == []


def test_order_is_reproducible_for_a_seed() -> None:
    assert delivery_order(42) == delivery_order(42)
    assert delivery_order(42) != delivery_order(43)
    assert sorted(delivery_order(42)) == list(range(30))


def test_without_reorder_delivery_is_fifo() -> None:
    assert delivery_order(42, reorder=False) == list(range(30))


def test_round_robin_start_is_seeded() -> None:
    def first_server(seed: int) -> str:
        transport, endpoints = serving("a", "b", "c", "d", seed=seed)
        transport.cast({}, TOPIC, "note", {})
        transport.step()
        (name,) = [e.name for e in endpoints if e.seen]
        return name

    assert first_server(5) == first_server(5)
    assert len({first_server(seed) for seed in range(40)}) > 1


def test_duplicates_happen_at_the_given_rate() -> None:
    transport, (a,) = serving("a", duplicate_rate=0.25)
    for n in range(4000):
        transport.cast({}, TOPIC, "note", {"n": n})
    transport.run_until_idle()
    duplicated = transport.counters.duplicated
    assert 850 <= duplicated <= 1150  # 1000 expected, sd about 27
    seen = Counter(kw["n"] for _, kw in a.seen)
    assert set(seen) == set(range(4000))
    assert sum(count - 1 for count in seen.values()) == duplicated
    assert max(seen.values()) == 2  # a re-delivery is not re-duplicated
    assert transport.counters.delivered == 4000 + duplicated


def test_no_duplicates_by_default() -> None:
    transport, (a,) = serving("a")
    for n in range(500):
        transport.cast({}, TOPIC, "note", {"n": n})
    transport.run_until_idle()
    assert transport.counters.duplicated == 0
    assert len(a.seen) == 500


def test_duplicate_rate_must_be_a_probability() -> None:
    with pytest.raises(ValueError):
        DeterministicTransport(seed=1, duplicate_rate=1.0)


def even(message: Pending) -> bool:
    return bool(message.kwargs["n"] % 2 == 0)


def test_hold_keeps_matching_messages_until_released() -> None:
    transport, (a,) = serving("a")
    transport.hold(even)
    for n in range(6):
        transport.cast({}, TOPIC, "note", {"n": n})
    transport.run_until_idle()
    assert sorted(kw["n"] for _, kw in a.seen) == [1, 3, 5]
    assert [p.kwargs["n"] for p in transport.pending()] == [0, 2, 4]

    transport.release(lambda m: m.kwargs["n"] == 2)  # one message goes; the hold stays
    transport.cast({}, TOPIC, "note", {"n": 6})
    transport.run_until_idle()
    assert a.seen[-1] == ("note", {"n": 2})
    assert [p.kwargs["n"] for p in transport.pending()] == [0, 4, 6]

    transport.release(even)  # lifting the hold itself
    transport.run_until_idle()
    transport.cast({}, TOPIC, "note", {"n": 8})
    transport.run_until_idle()
    assert sorted(kw["n"] for _, kw in a.seen) == [0, 1, 2, 3, 4, 5, 6, 8]


def test_release_all_lifts_every_hold() -> None:
    transport, _ = serving("a")
    transport.hold(even)
    transport.hold(lambda m: m.method == "note")
    for n in range(4):
        transport.cast({}, TOPIC, "note", {"n": n})
    assert transport.run_until_idle() == 0
    transport.release_all()
    assert transport.run_until_idle() == 4


def test_drop_discards_pending_messages() -> None:
    transport, (a,) = serving("a")
    for n in range(6):
        transport.cast({}, TOPIC, "note", {"n": n})
    assert transport.drop(even) == 3
    transport.run_until_idle()
    assert sorted(kw["n"] for _, kw in a.seen) == [1, 3, 5]
    assert transport.counters.dropped == 3


def test_message_to_a_server_gone_before_delivery_is_dropped() -> None:
    transport, (a, b) = serving("a", "b")
    transport.cast({}, TOPIC, "note", {}, server="a")
    transport.cast({}, TOPIC, "note", {})
    transport.unserve(TOPIC, "a")
    transport.run_until_idle()
    assert a.seen == []
    assert len(b.seen) == 1  # a topic-wide message still finds a live server
    assert transport.counters.dropped == 1


class Loop:
    ALLOWED = frozenset({"again"})

    def __init__(self, transport: DeterministicTransport) -> None:
        self.transport = transport

    def again(self, ctxt: dict[str, Any]) -> None:
        self.transport.cast(ctxt, TOPIC, "again", {})


def test_run_until_idle_reports_a_livelock() -> None:
    transport = DeterministicTransport(seed=1)
    transport.serve(TOPIC, "a", Loop(transport), Loop.ALLOWED)
    transport.cast({}, TOPIC, "again", {})
    with pytest.raises(RuntimeError, match="not idle after 50 steps"):
        transport.run_until_idle(max_steps=50)


def test_run_until_idle_may_end_exactly_at_the_limit() -> None:
    transport, _ = serving("a")
    for n in range(3):
        transport.cast({}, TOPIC, "note", {"n": n})
    assert transport.run_until_idle(max_steps=3) == 3


def test_handler_errors_are_raised_and_recorded() -> None:
    transport, _ = serving("a", reorder=False)
    transport.cast({}, TOPIC, "boom", {})
    transport.cast({}, TOPIC, "hidden", {})
    with pytest.raises(ValueError, match="boom") as failed:
        transport.step()
    with pytest.raises(NoSuchMethod) as refused:
        transport.step()
    assert [f.error for f in transport.errors] == [failed.value, refused.value]
    assert [f.message.method for f in transport.errors] == ["boom", "hidden"]


def test_handler_errors_only_recorded_when_asked() -> None:
    transport, _ = serving("a", raise_errors=False)
    transport.cast({}, TOPIC, "boom", {})
    assert transport.run_until_idle() == 1
    (failure,) = transport.errors
    assert isinstance(failure.error, ValueError)
    assert failure.message == Pending(TOPIC, None, "boom", {})


def test_call_runs_at_once_in_the_callers_thread() -> None:
    transport, (a,) = serving("a")
    transport.cast({}, TOPIC, "note", {"n": 0})
    result = transport.call({}, TOPIC, "echo", {"n": 1})
    assert result["thread"] == threading.current_thread().name
    assert a.seen == [("echo", {"n": 1})]
    assert len(transport.pending()) == 1


def test_pending_views_are_copies_of_the_wire_message() -> None:
    transport, (a,) = serving("a")
    sent = {"xs": [1]}
    transport.cast({}, TOPIC, "note", sent)
    sent["xs"].append(2)
    transport.pending()[0].kwargs["xs"].append(3)
    transport.run_until_idle()
    assert a.seen == [("note", {"xs": [1]})]


def test_stop_drops_what_is_queued() -> None:
    transport, (a,) = serving("a")
    transport.cast({}, TOPIC, "note", {})
    transport.stop()
    assert transport.pending() == []
    assert transport.run_until_idle() == 0
    assert a.seen == []
    assert transport.counters.dropped == 1
