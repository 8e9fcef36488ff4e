"""Event sinks without a database: Heat's body, the checks of a sink's entry, routing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hotplate.engine.event_sinks import EventSinks, SinkTypes, check_environment, event_body
from hotplate.engine.sink_delivery import BACKOFF_MAX_SECS, backoff
from hotplate.model.errors import StackValidationFailed
from hotplate.model.ids import StackId
from hotplate.model.records import EventRecord, NewEvent


class Recording:
    def __init__(self, target: str) -> None:
        self.target = target

    def consume(self, context: Any, event: Any) -> None:
        pass


TYPES = SinkTypes({"zaqar-queue": Recording})


def test_the_body_is_heats_event_as_dict() -> None:
    event = EventRecord(id=7, uuid="u-1", stack_id=StackId("s-1"), resource_name="web",
                        resource_action="CREATE", resource_status="COMPLETE",
                        resource_status_reason="state changed",
                        created_at=datetime(2026, 12, 2, 5, 6, 7, 89, tzinfo=UTC),
                        physical_resource_id="p-1", resource_type="OS::Heat::None")
    assert event_body(event) == {
        "timestamp": "2026-12-02T05:06:07.000089", "version": "0.1", "type": "os.heat.event",
        "id": "u-1",
        "payload": {"resource_name": "web", "physical_resource_id": "p-1", "stack_id": "s-1",
                    "resource_action": "CREATE", "resource_status": "COMPLETE",
                    "resource_status_reason": "state changed",
                    "resource_type": "OS::Heat::None", "resource_properties": {},
                    "version": "0.1"},
    }


@pytest.mark.parametrize(("sinks", "text"), [
    ([{"type": "webhook"}], "event_sinks[0].url: a webhook sink needs a url"),
    ([{"type": "webhook", "url": 3}], "event_sinks[0].url: must be a string"),
    ([{"type": "webhook", "url": "localhost:80"}],
     'event_sinks[0].url: "localhost:80" is not an http or https URL'),
    ([{"type": "webhook", "url": "http://h/", "headers": {"a": 1}}],
     "event_sinks[0].headers: must be a mapping of header names to strings"),
    ([{"type": "zaqar-queue", "target": "q"}, {"type": "kafka"}],
     'event_sinks[1].type: unknown event sink type "kafka" (known: webhook, zaqar-queue)'),
    ([{"type": "zaqar-queue", "ttl": 3}], "event_sinks[0]: bad options for an event sink of "
                                          'type "zaqar-queue": '),
])
def test_a_bad_entry_is_refused_naming_it(sinks: list[dict[str, Any]], text: str) -> None:
    with pytest.raises(StackValidationFailed) as caught:
        check_environment(EventSinks(TYPES), {"event_sinks": sinks})
    assert str(caught.value).startswith(text)


def test_good_entries_pass() -> None:
    check_environment(EventSinks(TYPES), {"event_sinks": [
        {"type": "webhook", "url": "https://h/e", "headers": {"Authorization": "x"}},
        {"type": "zaqar-queue", "target": "q"}]})
    check_environment(None, {"parameters": {}})


def event(stack: str) -> NewEvent:
    return NewEvent(stack_id=StackId(stack), uuid=f"{stack}-e", resource_name="r",
                    resource_action="CREATE", resource_status="COMPLETE",
                    resource_status_reason="")


def test_a_stack_without_sinks_costs_one_reading_a_second() -> None:
    now = [100.0]
    read: list[str] = []
    sinks = EventSinks(TYPES, monotonic=lambda: now[0])
    sinks.bind(lambda stack: read.append(stack) or ())
    sinks.observe(event("quiet"))  # not known yet: queued for the delivery thread to judge
    assert [item[1] for item in sinks.queue] == [None]
    assert sinks.route("quiet") == ()
    sinks.queue.clear()
    for _ in range(5):
        sinks.observe(event("quiet"))
    assert not sinks.queue and read == ["quiet"]
    now[0] += 1.5
    sinks.observe(event("quiet"))
    assert len(sinks.queue) == 1


def test_a_stack_with_sinks_has_its_events_queued_with_them() -> None:
    entry = ({"type": "webhook", "url": "http://h/"},)
    sinks = EventSinks(TYPES)
    sinks.watch("loud", entry)
    sinks.observe(event("loud"))
    assert [(e.uuid, s) for e, s, _ in sinks.queue] == [("loud-e", entry)]
    assert sinks.wake.is_set()


def test_backoff_doubles_up_to_its_cap() -> None:
    assert 1.0 <= backoff(1) <= 1.1
    assert 4.0 <= backoff(3) <= 4.4
    assert BACKOFF_MAX_SECS <= backoff(30) <= BACKOFF_MAX_SECS * 1.1
