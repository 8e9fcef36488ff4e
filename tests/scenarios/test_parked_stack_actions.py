"""Suspend, resume and check wait parked: a walk waiting on a resource holds no worker.

Each resource here takes a while to suspend or resume (``action_wait_secs``), as
a server does. Five stacks suspended at once on a pool of two workers all wait
side by side, in the engine's parked actions, and the pool still serves another
stack; each walk keeps Heat's order (dependants first for suspend). A delete
during a suspend stops the walk at once instead of waiting for the resource.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SeededIds, SystemClock
from hotplate.engine.runner import ActionRunner
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry
from hotplate.resources.test_resource import TestResource, Waiting
from hotplate.rpc.inprocess import InProcessTransport
from hotplate.rpc.topics import WORKER_TOPIC

from .harness import Harness
from .templates import chain, res, tmpl
from .test_threaded import CTXT, settled, wait_for


class SlowSuspend(TestResource):
    """Suspends and resumes in ``pause_secs`` seconds (negative: never, until a cancel)."""

    properties_schema = {**TestResource.properties_schema,
                         "pause_secs": Schema(Schema.NUMBER, "Seconds to suspend or resume.",
                                              default=0)}

    def handle_suspend(self) -> Any:
        return Waiting("suspend", self.ctx.clock.now(), float(self.properties["pause_secs"]))

    def check_suspend_complete(self, data: Any) -> Any:
        done = self._done(data)
        if done is True and self.properties["value"] == "boom":
            raise RuntimeError("the server would not stop")
        return done

    def handle_resume(self) -> Any:
        return Waiting("resume", self.ctx.clock.now(), float(self.properties["pause_secs"]))

    def check_resume_complete(self, data: Any) -> Any:
        return self._done(data)


REGISTRY = Registry.with_extra({"OS::Heat::TestResource": SlowSuspend})
ADMIN = {**CTXT, "is_admin": True}


def pair(secs: float) -> dict[str, Any]:
    return tmpl({"a": res("a", pause_secs=secs), "b": res("b", depends_on="a", pause_secs=secs)})


@pytest.fixture
def engine(tmp_path):
    store = open_store(f"sqlite:///{tmp_path}/s.sqlite", SystemClock())
    transport = InProcessTransport(workers_per_server=2)
    engine = start_engine(store, transport, registry=REGISTRY)
    yield engine
    engine.stop()
    transport.stop()


def order(engine, sid: str, action: str) -> list[str]:
    return [f"{e.resource_name} {e.resource_status}" for e in engine.store.list_events(sid)
            if e.resource_action == action and e.resource_name in ("a", "b")]


def state(engine, sid: str) -> str:
    stack = engine.store.get_stack(sid, include_deleted=True)
    return f"{stack.action}_{stack.status}"


def test_five_suspends_wait_side_by_side_on_two_workers(engine) -> None:
    sids = [engine.service.create_stack(CTXT, f"s{i}", pair(1.0), {}, {}, {})["stack_id"]
            for i in range(5)]
    for sid in sids:
        wait_for(lambda sid=sid: settled(engine, sid))
    started = time.monotonic()
    for sid in sids:
        engine.service.stack_suspend(ADMIN, sid)
    wait_for(lambda: len(engine.deps.parked) == 5, timeout=5)  # one walk each, waiting
    other = engine.service.create_stack(CTXT, "other", chain(3), {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, other))
    assert state(engine, other) == "CREATE_COMPLETE"
    for sid in sids:
        wait_for(lambda sid=sid: settled(engine, sid))
        assert state(engine, sid) == "SUSPEND_COMPLETE"
        assert engine.store.get_stack(sid).status_reason == "Stack SUSPEND completed successfully"
        assert order(engine, sid, "SUSPEND") == [
            "b IN_PROGRESS", "b COMPLETE", "a IN_PROGRESS", "a COMPLETE"]
    # Side by side, 2 s per stack: well under the 10 s of walking them one at a time.
    assert time.monotonic() - started < 8
    for sid in sids:
        engine.service.stack_resume(ADMIN, sid)
    for sid in sids:
        wait_for(lambda sid=sid: settled(engine, sid))
        assert state(engine, sid) == "RESUME_COMPLETE"
        assert order(engine, sid, "RESUME") == [
            "a IN_PROGRESS", "a COMPLETE", "b IN_PROGRESS", "b COMPLETE"]
        assert all(r.engine_id is None for r in engine.store.list_resources(sid))
    assert len(engine.deps.parked) == 0


def test_a_delete_stops_a_waiting_suspend_at_once(engine) -> None:
    sid = engine.service.create_stack(CTXT, "s", pair(-1), {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    engine.service.stack_suspend(ADMIN, sid)
    wait_for(lambda: len(engine.deps.parked) == 1)
    started = time.monotonic()
    engine.service.delete_stack(CTXT, sid)
    wait_for(lambda: settled(engine, sid), timeout=20)
    assert state(engine, sid) == "DELETE_COMPLETE"
    assert time.monotonic() - started < 10  # the delete did not wait out its 15 s
    assert "SUSPEND aborted" in [e.resource_status_reason for e in
                                 engine.store.list_events(sid) if e.resource_name == "b"]
    assert len(engine.deps.parked) == 0


def test_a_check_failing_after_a_wait_fails_the_suspend(engine) -> None:
    body = pair(0.3)
    body["resources"]["a"]["properties"]["value"] = "boom"
    sid = engine.service.create_stack(CTXT, "s", body, {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    engine.service.stack_suspend(ADMIN, sid)
    wait_for(lambda: settled(engine, sid))
    stack = engine.store.get_stack(sid)
    assert f"{stack.action}_{stack.status}" == "SUSPEND_FAILED"
    assert stack.status_reason == ("Resource SUSPEND failed: RuntimeError: resources.a: "
                                   "the server would not stop")
    assert {r.name: f"{r.action}_{r.status}" for r in engine.store.list_resources(sid)} == {
        "a": "SUSPEND_FAILED", "b": "SUSPEND_COMPLETE"}
    assert all(r.engine_id is None for r in engine.store.list_resources(sid))


MEMBER = """\
heat_template_version: 2021-04-16
parameters:
  index: {type: string}
resources:
  leaf:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: index}
      pause_secs: 0.2
"""

GROUP = {"heat_template_version": "2021-04-16", "resources": {"group": {
    "type": "OS::Heat::ResourceGroup", "properties": {
        "count": 4, "resource_def": {"type": "member.yaml",
                                     "properties": {"index": "%index%"}}}}}}


def tree(engine, sid: str) -> list[Any]:
    """The stack and every stack nested under it."""
    found = [engine.store.get_stack(sid)]
    owners = [sid]
    while owners:
        children = engine.store.list_stacks(None, filters={"owner_id": owners},
                                            show_nested=True)
        found.extend(children)
        owners = [str(child.id) for child in children]
    return found


def test_nested_stacks_are_suspended_resumed_and_checked_through_their_children(
        engine) -> None:
    """Three levels (the stack, its group's child, each member's child) on two workers:
    each walk waits for the child below it parked, woken by the child's end."""
    sid = engine.service.create_stack(CTXT, "g", GROUP, {}, {"member.yaml": MEMBER},
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid), timeout=60)
    assert state(engine, sid) == "CREATE_COMPLETE"
    assert len(tree(engine, sid)) == 6
    for action in ("suspend", "resume", "check"):
        getattr(engine.service, f"stack_{action}")(ADMIN, sid)
        wait_for(lambda: settled(engine, sid), timeout=60)
        stacks = tree(engine, sid)
        assert {f"{s.action}_{s.status}" for s in stacks} == {f"{action.upper()}_COMPLETE"}, \
            [(s.name, s.status_reason) for s in stacks]
        leaves = [r for s in stacks for r in engine.store.list_resources(s.id)
                  if r.name == "leaf"]
        assert len(leaves) == 4
        assert {f"{r.action}_{r.status}" for r in leaves} == {f"{action.upper()}_COMPLETE"}
    assert len(engine.deps.parked) == 0


def test_a_walk_parked_on_an_engine_that_dies_is_walked_again(tmp_path) -> None:
    """Engine A's suspend waits, parked, on resource b when A dies: as for a walk in a
    thread, B takes b's lock over (b FAILED, "Worker went down") and, once the stack
    has shown no progress for a while, walks the stack again, b included."""
    h = Harness(tmp_path, seed=9, registry=REGISTRY)
    h.engine.stop()  # replaced by A and B
    engines = [start_engine(h.store, h.transport, clock=h.clock, ids=SeededIds(9 + k),
                            runner=ActionRunner(h.clock), engine_id=f"engine-{name}",
                            registry=REGISTRY, host=f"host-{name}")
               for k, name in enumerate("ab")]
    a, b = (h.parking_on_the_clock(e) for e in engines)
    h.engines, h.service = [a, b], a.service
    sid = h.create("s", pair(30))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    h.transport.unserve(WORKER_TOPIC, "engine-b")  # so that engine A walks the stack
    a.service.stack_suspend(ADMIN, sid)
    h.transport.run_until_idle()
    assert a.deps.parked is not None and len(a.deps.parked) == 1
    assert h.resource_states(sid)["b"] == "SUSPEND_IN_PROGRESS"
    h.transport.kill({"engine-a", "host-a"}, lost=0.0)
    if a.recovery is not None:
        a.recovery.stop()
    a.deps.parked.stop()  # what it held in memory dies with it
    h.transport.serve(WORKER_TOPIC, "engine-b", b.worker, WorkerService.ALLOWED)
    assert b.recovery is not None
    for _ in range(4):
        h.clock.advance(max(3 * b.deps.options.periodic_interval,
                            b.deps.options.stalled_traversal_timeout + 1))
        h.store.heartbeat_service(b.deps.engine_id)
        b.recovery.run_once()
        h.run()
        if h.status(sid) != "SUSPEND_IN_PROGRESS":
            break
    assert h.status(sid) == "SUSPEND_COMPLETE", h.stack(sid)["stack_status_reason"]
    assert h.resource_states(sid) == {"a": "SUSPEND_COMPLETE", "b": "SUSPEND_COMPLETE"}
    reasons = [e["resource_status_reason"] for e in h.events(sid)
               if e["resource_name"] == "b"]
    assert "Worker went down during resource SUSPEND" in reasons
    assert all(r.engine_id is None for r in h.rows(sid))
