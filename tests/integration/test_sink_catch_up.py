"""Events a dead engine never handed to the outbox still reach a durable sink, on every
backend.

An engine queues its events in memory and hands them to the outbox a moment
later (sink_delivery.py); one that dies in between would lose them. Here an
engine is its pieces (EventSinks and SinkDelivery over the real store) with
the delivery thread never started: the events are written, then the engine
is dropped. A second engine's catch-up finds them above the sink's
watermark and sends them to a real HTTP receiver, each once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, insert, select

from hotplate.db import schema as s
from hotplate.db.outbox import OutboxStore
from hotplate.db.store import SqlStore
from hotplate.engine.event_sinks import EventSinks, SinkTypes, sink_key
from hotplate.engine.sink_delivery import DeliveryTiming, SinkDelivery
from hotplate.model.records import NewEvent
from tests.api.sink_receiver import Receiver
from tests.integration.helpers import FakeClock, make_stack, new_id

TIMING = DeliveryTiming(confirm_delay=10.0, catch_up_every=0.0)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


class EnginePieces:
    """One engine's event sink pieces; its delivery thread is never started."""

    def __init__(self, store: SqlStore, clock: FakeClock, sinks: tuple[dict[str, Any], ...]):
        self.sinks = EventSinks(SinkTypes())
        self.sinks.bind(lambda _stack: sinks)
        self.outbox = OutboxStore(store.engine, clock)
        self.delivery = SinkDelivery(self.sinks, store, self.outbox, clock, TIMING)
        self.store = store

    def write(self, stack_id: str, name: str) -> NewEvent:
        """An event as the engine writes one: observed (queued), then stored."""
        event = NewEvent(stack_id=stack_id, uuid=new_id(), resource_name=name,
                         resource_action="CREATE", resource_status="COMPLETE",
                         resource_status_reason="state changed", resource_type="OS::Heat::None")
        self.sinks.observe(event)
        self.store.add_event(event)
        return event


def webhook(receiver: Receiver) -> tuple[dict[str, Any], ...]:
    return ({"type": "webhook", "url": receiver.url},)


def test_events_never_handed_over_reach_the_sink_after_a_restart(
        store: SqlStore, clock: FakeClock, receiver: Receiver) -> None:
    sinks = webhook(receiver)
    stack = make_stack(store, clock)
    first = EnginePieces(store, clock, sinks)
    first.sinks.watch(stack.id, sinks)  # the action sets the stack's sinks
    sent = [first.write(stack.id, f"r{i}") for i in range(2)]
    first.delivery.run_once()  # these two go out as usual
    assert [b["id"] for b in receiver.bodies] == [e.uuid for e in sent]
    lost = [first.write(stack.id, f"r{i}") for i in range(2, 5)]
    del first  # the engine dies with three events queued in memory

    second = EnginePieces(store, clock, sinks)
    second.delivery.run_once()  # too soon: their engine may still hand them over
    assert len(receiver.bodies) == 2
    clock.sleep(11)
    second.delivery.run_once()
    ids = [b["id"] for b in receiver.bodies]
    assert ids == [e.uuid for e in sent + lost]  # each once, and in order
    second.delivery.run_once()
    assert len(receiver.bodies) == 5
    newest = max(e.id for e in store.list_events(stack.id))
    assert second.outbox.watermarks(stack.id) == {sink_key(sinks[0]): newest}
    assert second.outbox.pending() == []
    assert _handed(store) == []


def _handed(store: SqlStore) -> list[Any]:
    with store.engine.connect() as conn:
        return list(conn.execute(select(s.event_sink_handed)))


def test_events_handed_over_late_by_their_engine_are_not_queued_twice(
        store: SqlStore, clock: FakeClock, receiver: Receiver) -> None:
    sinks = webhook(receiver)
    stack = make_stack(store, clock)
    slow = EnginePieces(store, clock, sinks)
    slow.sinks.watch(stack.id, sinks)
    events = [slow.write(stack.id, f"r{i}") for i in range(3)]
    slow.delivery.run_once()
    clock.sleep(11)
    other = EnginePieces(store, clock, sinks)
    other.delivery.run_once()
    assert sorted(b["id"] for b in receiver.bodies) == sorted(e.uuid for e in events)
    assert len(receiver.bodies) == 3
    assert _handed(store) == []


def test_the_watermark_waits_for_an_older_id_written_later(
        store: SqlStore, clock: FakeClock, receiver: Receiver) -> None:
    """An event's time is taken before its id: a lower id may carry a later time. The
    catch-up takes nothing at or above the first event still within the delay."""
    sinks = webhook(receiver)
    stack = make_stack(store, clock)
    engine = EnginePieces(store, clock, sinks)
    engine.sinks.watch(stack.id, sinks)
    now = clock.now()
    late = _insert_event(store, stack.id, "late", now)  # the lower id, the later time
    early = _insert_event(store, stack.id, "early", now - timedelta(seconds=30))
    assert late < early
    engine.delivery.catch_up()
    assert engine.outbox.pending() == []
    clock.sleep(11)
    engine.delivery.run_once()
    assert [b["payload"]["resource_name"] for b in receiver.bodies] == ["late", "early"]
    assert engine.outbox.watermarks(stack.id) == {sink_key(sinks[0]): early}


def _insert_event(store: SqlStore, stack_id: str, name: str, when: Any) -> int:
    with store.engine.begin() as conn:
        result = conn.execute(insert(s.event).values(
            uuid=new_id(), stack_id=stack_id, resource_action="CREATE",
            resource_status="COMPLETE", resource_name=name, resource_status_reason="",
            resource_type="OS::Heat::None", created_at=when))
        return int(result.inserted_primary_key[0])


def test_a_sink_the_stack_no_longer_has_gets_nothing_more(
        store: SqlStore, clock: FakeClock, receiver: Receiver) -> None:
    sinks = webhook(receiver)
    stack = make_stack(store, clock)
    before = EnginePieces(store, clock, sinks)
    before.sinks.watch(stack.id, sinks)
    after = EnginePieces(store, clock, ())  # an update took the webhook away
    after.sinks.watch(stack.id, ())
    after.write(stack.id, "r0")
    clock.sleep(11)
    after.delivery.run_once()
    assert receiver.bodies == []
    assert after.outbox.watermarks(stack.id) == {}


def test_engines_catching_up_at_once_queue_each_event_once(
        store: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    sinks = ({"type": "webhook", "url": "http://127.0.0.1:9/unused"},)
    stack = make_stack(store, clock)
    dead = EnginePieces(store, clock, sinks)
    dead.sinks.watch(stack.id, sinks)
    for i in range(20):
        dead.write(stack.id, f"r{i}")
    clock.sleep(11)
    engines = [EnginePieces(store, clock, sinks) for _ in range(4)]
    start = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def catch_up(engine: EnginePieces) -> None:
        start.wait()
        try:
            engine.delivery.catch_up()
        except BaseException as exc:  # the test fails below, naming it
            errors.append(exc)

    threads = [threading.Thread(target=catch_up, args=(e,)) for e in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    queued = OutboxStore(db_engine, clock).pending(stack.id)
    assert sorted(r.body["payload"]["resource_name"] for r in queued) == sorted(
        f"r{i}" for i in range(20))


def test_a_deleted_stacks_watermark_goes_once_it_caught_up(
        store: SqlStore, clock: FakeClock) -> None:
    sinks = ({"type": "webhook", "url": "http://127.0.0.1:9/unused"},)
    stack = make_stack(store, clock)
    engine = EnginePieces(store, clock, sinks)
    engine.sinks.watch(stack.id, sinks)
    engine.write(stack.id, "r0")
    engine.delivery.run_once()
    store.soft_delete_stack(stack.id)
    clock.sleep(11)
    engine.delivery.catch_up()  # catches up; the stack was deleted only now
    assert list(engine.outbox.watermarks(stack.id)) == [sink_key(sinks[0])]
    clock.sleep(30)
    fresh = EnginePieces(store, clock, sinks)
    fresh.delivery.catch_up()
    assert fresh.outbox.watermarks(stack.id) == {}


def test_only_durable_sinks_get_a_watermark_and_it_is_kept_across_actions(
        store: SqlStore, clock: FakeClock) -> None:
    sinks = ({"type": "webhook", "url": "http://127.0.0.1:9/unused"},)
    stack = make_stack(store, clock)
    engine = EnginePieces(store, clock, sinks)
    before = store.stats.snapshot()
    engine.sinks.watch(stack.id, ())
    engine.sinks.watch(stack.id, ({"type": "not-durable"},))
    assert (store.stats.snapshot() - before).statements == 0  # no sinks: no statement
    engine.write(stack.id, "before")
    engine.sinks.watch(stack.id, sinks)
    first = engine.outbox.watermarks(stack.id)
    assert first == {sink_key(sinks[0]): store.list_events(stack.id)[-1].id}
    engine.write(stack.id, "r0")
    engine.sinks.watch(stack.id, sinks)  # the next action: the watermark stays where it was
    assert engine.outbox.watermarks(stack.id) == first
