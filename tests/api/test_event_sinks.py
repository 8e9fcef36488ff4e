"""Event sinks through python-heatclient: the built-in webhook posting to a real HTTP
server (every event, in order, retried, kept across an engine restart), a sink class
from an installed distribution's entry point, and bad sinks refused naming the entry."""

from __future__ import annotations

import importlib
import sys
import textwrap
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc
from sqlalchemy import create_engine

from hotplate.app import embedded
from hotplate.db.outbox import OutboxStore
from hotplate.engine.clock import SystemClock
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, create_complete
from tests.api.sink_receiver import Receiver

TEMPLATE = {
    "heat_template_version": VERSION,
    "resources": {
        "first": {"type": "OS::Heat::None"},
        "second": {"type": "OS::Heat::None", "depends_on": "first"},
        "other": {"type": "OS::Heat::TestResource", "properties": {"value": "v"}},
    },
}


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'hotplate.sqlite'}"


@pytest.fixture
def served(db_url: str) -> Iterator[Api]:
    with serving(*embedded(db_url, workers=4)) as api:
        yield api


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


def webhook_env(receiver: Receiver, **extra: Any) -> dict[str, Any]:
    return {"event_sinks": [{"type": "webhook", "url": receiver.url, **extra}]}


def all_of(hc: Any, stack_id: str) -> Any:
    """A wait condition: every event of the stack has arrived."""
    wanted = {event.id for event in hc.events.list(stack_id)}
    return lambda bodies: wanted <= {body["id"] for body in bodies}


def by_resource(bodies: list[dict[str, Any]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for body in bodies:
        payload = body["payload"]
        found[payload["resource_name"]].append(
            f"{payload['resource_action']}_{payload['resource_status']}")
    return dict(found)


def test_a_webhook_gets_every_event_of_a_create_in_order(served: Api,
                                                         receiver: Receiver) -> None:
    hc = served.client()
    stack_id = create_complete(hc, TEMPLATE, name="sunk",
                               environment=webhook_env(receiver, headers={"X-Tenant": "t1"}))
    bodies = receiver.wait_for(all_of(hc, stack_id))
    events = list(hc.events.list(stack_id))
    assert sorted(b["id"] for b in bodies) == sorted(e.id for e in events)  # each once
    assert by_resource(bodies) == {
        "sunk": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"],
        "first": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"],
        "second": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"],
        "other": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"],
    }
    order = [b["payload"]["resource_name"] for b in bodies]
    assert order[0] == order[-1] == "sunk"
    assert order.index("second") > order.index("first") + 1  # first completed before
    body = next(b for b in bodies if b["payload"]["resource_name"] == "other")
    event = next(e for e in events if e.id == body["id"])
    assert body["type"] == "os.heat.event" and body["version"] == "0.1"
    assert body["timestamp"].startswith(event.event_time.rstrip("Z"))
    assert body["payload"] == {
        "resource_name": "other", "physical_resource_id": event.physical_resource_id or None,
        "stack_id": stack_id, "resource_action": "CREATE",
        "resource_status": body["payload"]["resource_status"],
        "resource_status_reason": event.resource_status_reason,
        "resource_type": "OS::Heat::TestResource", "resource_properties": {},
        "version": "0.1"}
    headers = receiver.headers[bodies.index(body)]
    assert headers["X-Tenant"] == "t1"
    assert headers["Idempotency-Key"] == body["id"]
    assert headers["Content-Type"] == "application/json"


def test_a_refusing_webhook_is_retried_until_it_takes_them(served: Api,
                                                           receiver: Receiver) -> None:
    receiver.refuse = 2
    hc = served.client()
    stack_id = create_complete(hc, TEMPLATE, name="retried", environment=webhook_env(receiver))
    bodies = receiver.wait_for(all_of(hc, stack_id))
    assert receiver.refused == 2
    assert len(bodies) == len({b["id"] for b in bodies}) == 8
    assert by_resource(bodies)["retried"] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert [b["payload"]["resource_status"] for b in bodies][:1] == ["IN_PROGRESS"]


def eventually(check: Callable[[], bool], *, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_undelivered_events_go_out_after_an_engine_restart(db_url: str,
                                                           receiver: Receiver) -> None:
    outbox = OutboxStore(create_engine(db_url), SystemClock())
    receiver.refuse = None  # down for as long as the first engine runs
    with serving(*embedded(db_url, workers=4)) as api:
        hc = api.client()
        stack_id = create_complete(hc, TEMPLATE, name="kept", environment=webhook_env(receiver))
        count = len(list(hc.events.list(stack_id)))
        eventually(lambda: len(outbox.pending(stack_id)) == count and receiver.refused > 0)
        assert not receiver.bodies
    receiver.refuse = 0
    with serving(*embedded(db_url, workers=4)) as api:
        hc = api.client()
        bodies = receiver.wait_for(all_of(hc, stack_id), timeout=60)
        assert len(bodies) == count
        assert by_resource(bodies)["kept"] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
        assert by_resource(bodies)["second"] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
        eventually(lambda: outbox.pending(stack_id) == [])


@pytest.mark.parametrize(("sinks", "where"), [
    ([{"type": "webhook"}], "event_sinks[0].url"),
    ([{"type": "webhook", "url": "ftp://x/y"}], "event_sinks[0].url"),
    ([{"type": "webhook", "url": "http://x/y", "headers": ["a"]}], "event_sinks[0].headers"),
    ([{"type": "webhook", "url": "http://x/y", "verb": "PUT"}], "event_sinks[0].verb"),
    ([{"type": "webhook", "url": "http://x/y"}, {"type": "nowhere"}], "event_sinks[1].type"),
])
def test_bad_sinks_are_refused_at_create_and_validate(served: Api, sinks: list[Any],
                                                      where: str) -> None:
    hc = served.client()
    with pytest.raises(exc.HTTPBadRequest) as created:
        hc.stacks.create(stack_name="refused", template=TEMPLATE,
                         environment={"event_sinks": sinks})
    assert where + ":" in str(created.value)
    with pytest.raises(exc.HTTPBadRequest) as validated:
        hc.stacks.validate(template=TEMPLATE, environment={"event_sinks": sinks})
    assert where + ":" in str(validated.value)
    assert [s.stack_name for s in hc.stacks.list()] == []


SINK_MODULE = "hotplate_probe_sink"
SINK = '''
CONSUMED = []


class ProbeSink:
    def __init__(self, label):
        self.label = label

    def consume(self, context, event):
        CONSUMED.append((self.label, context.project_id, event))
'''


@pytest.fixture
def probe_sink(tmp_path: Path) -> Iterator[Any]:
    root = tmp_path / "dist"
    root.mkdir()
    (root / f"{SINK_MODULE}.py").write_text(textwrap.dedent(SINK))
    info = root / f"{SINK_MODULE}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {SINK_MODULE}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[hotplate.event_sinks]\nprobe = {SINK_MODULE}:ProbeSink\n")
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(SINK_MODULE, None)
        importlib.invalidate_caches()


def test_a_sink_class_from_an_entry_point_consumes_every_event(db_url: str,
                                                               probe_sink: Path) -> None:
    with serving(*embedded(db_url, workers=4)) as api:
        hc = api.client()
        with pytest.raises(exc.HTTPBadRequest) as refused:
            hc.stacks.create(stack_name="bad", template=TEMPLATE,
                             environment={"event_sinks": [{"type": "probe"}]})
        assert "event_sinks[0]:" in str(refused.value)
        stack_id = create_complete(hc, TEMPLATE, name="probed",
                                   environment={"event_sinks": [{"type": "probe",
                                                                 "label": "L"}]})
        consumed = sys.modules[SINK_MODULE].CONSUMED
        wanted = {e.id for e in hc.events.list(stack_id)}
        eventually(lambda: {c[2]["id"] for c in consumed} == wanted)
        assert {(label, project) for label, project, _ in consumed} == {("L", "admin")}
        assert len(consumed) == len(wanted)


def test_a_nested_stack_sends_its_events_to_its_parents_sinks(served: Api,
                                                              receiver: Receiver) -> None:
    hc = served.client()
    group = {"heat_template_version": VERSION, "resources": {"group": {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": 2, "resource_def": {"type": "OS::Heat::None"}}}}}
    stack_id = create_complete(hc, group, name="nesting", environment=webhook_env(receiver))
    nested_id = hc.resources.get(stack_id, "group").physical_resource_id
    bodies = receiver.wait_for(lambda got: all_of(hc, stack_id)(got)
                               and all_of(hc, nested_id)(got))
    nested = [b["payload"] for b in bodies if b["payload"]["stack_id"] == nested_id]
    members = by_resource([{"payload": p} for p in nested if p["resource_name"] in ("0", "1")])
    assert members == {"0": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"],
                       "1": ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]}
    own = [p["resource_status"] for p in nested if p["resource_type"] == "OS::Heat::Stack"]
    assert own == ["IN_PROGRESS", "COMPLETE"]
