"""Heat's notifications on a real RabbitMQ, read as a consumer such as Ceilometer reads them.

An engine (SQLite, in-process RPC) sends through ``build_notifier`` with the
``messagingv2`` driver to the session's private virtual host; the test binds
a queue of its own to Heat's ``heat`` exchange under ``notifications.*``, as
a Ceilometer set up for Heat does, and decodes oslo.messaging's 2.0 envelope.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection, Exchange, Queue

from hotplate.app import Engine, open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.rpc.inprocess import InProcessTransport
from hotplate.rpc.notifier import build_notifier

HOST = "notify-test-host"
CTXT = {"project_id": "demo", "username": "alice", "user_id": "u-1", "is_admin": True}
HEAT_KEYS = {"tenant_id", "user_id", "user_identity", "username", "stack_identity",
             "stack_name", "state", "state_reason", "create_at", "tags", "updated_at",
             "description"}
SCALING_KEYS = HEAT_KEYS | {"adjustment_type", "adjustment", "capacity", "groupname",
                            "message"}
WAIT = 30.0

GROUP = """
heat_template_version: 2016-10-14
description: A scaling group
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      min_size: 1
      max_size: 3
      resource:
        type: OS::Heat::RandomString
  scale_up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: group}
      scaling_adjustment: 1
"""


class Inbox:
    """A queue of this test's on Heat's exchange, bound to every notification priority."""

    def __init__(self, url: str) -> None:
        self._conn = Connection(url.replace("rabbit://", "amqp://", 1))
        exchange = Exchange("heat", type="topic", durable=False, auto_delete=False)
        self._queue = Queue(f"notify-test-{uuid.uuid4().hex[:8]}", exchange,
                            routing_key="notifications.*", exclusive=True)
        self._consumer = self._conn.Consumer([self._queue], callbacks=[self._received],
                                             accept=["json"])
        self._consumer.consume()
        self.messages: list[dict[str, Any]] = []

    def _received(self, body: Any, message: Any) -> None:
        envelope = body if isinstance(body, dict) else json.loads(body)
        assert envelope["oslo.version"] == "2.0"
        notification = json.loads(envelope["oslo.message"])
        notification["routing_key"] = message.delivery_info["routing_key"]
        self.messages.append(notification)
        message.ack()

    def wait_for(self, stack_id: str, *event_types: str) -> list[dict[str, Any]]:
        """The stack's notifications once every one of ``event_types`` has come."""
        deadline = time.monotonic() + WAIT
        while True:
            mine = [m for m in self.messages if m["payload"]["stack_identity"] == stack_id]
            if set(event_types) <= {m["event_type"] for m in mine}:
                return mine
            assert time.monotonic() < deadline, f"only {[m['event_type'] for m in mine]}"
            with contextlib.suppress(TimeoutError):
                self._conn.drain_events(timeout=0.2)

    def close(self) -> None:
        self._consumer.cancel()
        self._conn.release()


@pytest.fixture
def inbox(broker_url: str) -> Iterator[Inbox]:
    made = Inbox(broker_url)
    yield made
    made.close()


@pytest.fixture
def engine(broker_url: str, tmp_path: Path, inbox: Inbox) -> Iterator[Engine]:
    notifier = build_notifier("messagingv2", broker_url, None, HOST)
    assert notifier is not None
    transport = InProcessTransport(workers_per_server=4)
    clock = SystemClock()
    started = start_engine(open_store(f"sqlite:///{tmp_path / 'notify.sqlite'}", clock),
                           transport, clock=clock, host=HOST, work_slots=1,
                           notifier=notifier)
    yield started
    started.stop()
    transport.stop()


def _wait_status(engine: Engine, stack_id: str) -> str:
    deadline = time.monotonic() + WAIT
    while True:
        view = engine.service.show_stack(CTXT, stack_id)[0]
        if view["stack_status"] != "IN_PROGRESS":
            return f"{view['stack_action']}_{view['stack_status']}"
        assert time.monotonic() < deadline, "stack still in progress"
        time.sleep(0.05)


def _create(engine: Engine, name: str, template: Any, **args: Any) -> str:
    ident = engine.service.create_stack(CTXT, name, template, {}, {},
                                        {"disable_rollback": True, **args})
    return str(ident["stack_id"])


def test_a_create_sends_start_and_end_with_heats_payload(engine: Engine,
                                                         inbox: Inbox) -> None:
    template = {"heat_template_version": "2016-10-14", "description": "Two values",
                "resources": {"a": {"type": "OS::Heat::TestResource",
                                    "properties": {"value": "x"}}}}
    sid = _create(engine, "notified", template, tags="t1,t2")
    assert _wait_status(engine, sid) == "CREATE_COMPLETE"
    start, end = inbox.wait_for(sid, "orchestration.stack.create.start",
                                "orchestration.stack.create.end")
    assert (start["event_type"], end["event_type"]) == (
        "orchestration.stack.create.start", "orchestration.stack.create.end")
    for message in (start, end):
        assert message["publisher_id"] == f"orchestration.{HOST}"
        assert message["priority"] == "INFO"
        assert message["routing_key"] == "notifications.info"
        payload = message["payload"]
        assert set(payload) == HEAT_KEYS
        assert payload["stack_identity"] == sid
        assert payload["stack_name"] == "notified"
        assert payload["tenant_id"] == "demo"
        assert payload["user_id"] == payload["username"] == "alice"
        assert payload["user_identity"] == "u-1"
        assert payload["description"] == "Two values"
        assert payload["tags"] == ["t1", "t2"]
        assert payload["create_at"].endswith("Z")
        assert message["_context_project_id"] == "demo"
        assert message["_context_user_id"] == "u-1"
    assert start["payload"]["state"] == "CREATE_IN_PROGRESS"
    assert end["payload"]["state"] == "CREATE_COMPLETE"
    assert end["payload"]["state_reason"] == "Stack CREATE completed successfully"


def test_a_failed_create_sends_error(engine: Engine, inbox: Inbox) -> None:
    template = {"heat_template_version": "2016-10-14",
                "resources": {"bad": {"type": "OS::Heat::TestResource",
                                      "properties": {"fail": True}}}}
    sid = _create(engine, "failing", template)
    assert _wait_status(engine, sid) == "CREATE_FAILED"
    messages = inbox.wait_for(sid, "orchestration.stack.create.error")
    error = next(m for m in messages if m["event_type"] == "orchestration.stack.create.error")
    assert error["priority"] == "ERROR"
    assert error["routing_key"] == "notifications.error"
    assert error["payload"]["state"] == "CREATE_FAILED"
    assert "Test Resource failed bad" in error["payload"]["state_reason"]


def test_a_scaling_signal_sends_autoscaling_start_and_end(engine: Engine,
                                                          inbox: Inbox) -> None:
    sid = _create(engine, "scaled", GROUP)
    assert _wait_status(engine, sid) == "CREATE_COMPLETE"
    engine.service.resource_signal(CTXT, sid, "scale_up", {})
    messages = inbox.wait_for(sid, "orchestration.autoscaling.start",
                              "orchestration.autoscaling.end")
    start, end = (next(m for m in messages if m["event_type"] == f"orchestration.autoscaling.{s}")
                  for s in ("start", "end"))
    group = engine.service.describe_stack_resource(CTXT, sid, "group")
    reference = group["physical_resource_id"]
    for message in (start, end):
        assert set(message["payload"]) == SCALING_KEYS
        assert message["priority"] == "INFO"
        assert message["payload"]["groupname"] == reference
        assert message["payload"]["adjustment"] == 1
        assert message["payload"]["adjustment_type"] == "change_in_capacity"
        assert message["payload"]["state"] == "CREATE_COMPLETE"  # the group's stack
        assert message["payload"]["description"] == "A scaling group"
    assert (start["payload"]["capacity"], start["payload"]["message"]) == (
        1, f"Start resizing the group {reference}")
    assert (end["payload"]["capacity"], end["payload"]["message"]) == (
        2, f"End resizing the group {reference}")
