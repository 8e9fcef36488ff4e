"""An engine killed mid-traversal: a live engine takes over, and nothing is made twice.

Two engines share one database and one deterministic transport. Engine A is
killed while one of its plugins runs (the kill is an exception no handler
catches, so its lock stays in the database as a killed process leaves it)
and, with it, a seeded share of the queued messages it had taken. Nobody
touches the stack afterwards: engine B's recovery round, once A's heartbeat
is old enough, must finish it. Each TestResource create is recorded with its
idempotency token: every resource has exactly one token, however many tries.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta
from typing import Any

import pytest

from hotplate.app import start_engine
from hotplate.engine.clock import SeededIds
from hotplate.engine.runner import ActionRunner
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.resources.registry import Registry
from hotplate.resources.test_resource import TestResource
from hotplate.rpc.topics import WORKER_TOPIC

from .harness import Harness
from .templates import chain, res, tmpl

ENGINE_A = "engine-a"


class EngineKilled(BaseException):
    """Raised inside a plugin to stop the whole engine where it stands."""


class KillSwitch:
    """Kills engine A at the n-th call of a chosen plugin step for one resource."""

    def __init__(self) -> None:
        self.armed: tuple[str, int] | None = None
        self.calls: Counter[tuple[str, str]] = Counter()
        self.across = False

    def arm(self, step: str, nth: int) -> None:
        self.armed, self.calls, self.across = (step, nth), Counter(), False

    def arm_across(self, step: str, nth: int) -> None:
        """Kill at the n-th call of the step, whichever resources made them."""
        self.arm(step, nth)
        self.across = True

    def hit(self, resource: Any, step: str) -> None:
        if self.armed is None or getattr(resource.ctx, "_engine_id", None) != ENGINE_A:
            return
        subject = "*" if self.across else resource.name
        self.calls[step, subject] += 1
        if (step, self.calls[step, subject]) == self.armed:
            self.armed = None
            raise EngineKilled(f"{step} of {resource.name}")


SWITCH = KillSwitch()


class KillableTestResource(TestResource):
    def handle_create(self) -> Any:
        data = super().handle_create()
        SWITCH.hit(self, "handle_create")  # after the cloud call: the retry must not repeat it
        return data

    def check_create_complete(self, data: Any) -> bool:
        SWITCH.hit(self, "check_create")  # the physical id is recorded by now
        return super().check_create_complete(data)

    def handle_update(self, new_properties: Any, prop_diff: Any) -> Any:
        data = super().handle_update(new_properties, prop_diff)
        SWITCH.hit(self, "handle_update")
        return data

    def handle_delete(self) -> Any:
        data = super().handle_delete()
        SWITCH.hit(self, "handle_delete")
        return data

    def handle_suspend(self) -> None:
        SWITCH.hit(self, "handle_suspend")

    def handle_resume(self) -> None:
        SWITCH.hit(self, "handle_resume")


REGISTRY = Registry.with_extra({"OS::Heat::TestResource": KillableTestResource})


class TwoEngines:
    def __init__(self, tmp_path: Any, seed: int) -> None:
        self.h = Harness(tmp_path, seed=seed, registry=REGISTRY)
        self.h.engine.stop()  # the harness's own engine is replaced by A and B
        self.a = start_engine(self.h.store, self.h.transport, clock=self.h.clock,
                              ids=SeededIds(seed), runner=ActionRunner(self.h.clock),
                              engine_id=ENGINE_A, registry=REGISTRY, host="host-a")
        self.b = start_engine(self.h.store, self.h.transport, clock=self.h.clock,
                              ids=SeededIds(seed + 7919), runner=ActionRunner(self.h.clock),
                              engine_id="engine-b", registry=REGISTRY, host="host-b")
        self.h.engines = [self.h.parking_on_the_clock(e) for e in (self.a, self.b)]
        self.h.service = self.a.service

    def run_until_killed(self) -> bool:
        try:
            self.h.run()
        except EngineKilled:
            return True
        return False

    def kill_a(self, lost: float) -> None:
        self.h.transport.kill({ENGINE_A, "host-a"}, lost=lost)
        if self.a.recovery is not None:
            self.a.recovery.stop()
        if self.a.deps.parked is not None:  # what it held in memory dies with it
            self.a.deps.parked.stop()

    def recover(self) -> None:
        """B's recovery round once A's reports are old enough, then run it out."""
        interval = self.b.deps.options.periodic_interval
        self.h.clock.advance(3 * interval)
        self.h.store.heartbeat_service(self.b.deps.engine_id)
        assert self.b.recovery is not None
        self.b.recovery.run_once()
        self.h.run()
        for _ in range(3):  # messages A had taken: found by the sweep after its timeout
            if not self.in_progress():
                return
            self.h.clock.advance(self.b.deps.options.stalled_traversal_timeout + 1)
            self.h.store.heartbeat_service(self.b.deps.engine_id)
            self.b.recovery.run_once()
            self.h.run()

    def in_progress(self) -> bool:
        return any(s.status == "IN_PROGRESS" for s in self.h.store.stacks_in_progress())


def _tokens_per_resource(store: Any, stack_id: str) -> dict[str, set[str]]:
    tokens: dict[str, set[str]] = defaultdict(set)
    for attempt in store.list_attempts(stack_id):
        if attempt.action == "CREATE":
            tokens[attempt.resource_uuid].add(attempt.token)
    return tokens


def _wide_and_deep() -> dict[str, Any]:
    resources = {f"w{i}": res("w", wait_secs=1) for i in range(4)}
    resources.update({f"d{i}": res("d", depends_on=[f"w{i}"], wait_secs=1) for i in range(4)})
    return tmpl(resources)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("step", ["handle_create", "check_create"])
def test_create_survives_the_death_of_its_engine(tmp_path, seed, step) -> None:
    two = TwoEngines(tmp_path, seed)
    # The second check of a create comes after its physical id was recorded.
    SWITCH.arm(step, 1 if step == "handle_create" else 2)
    sid = two.h.create("dies", _wide_and_deep())
    assert two.run_until_killed(), "engine A was never killed"
    two.kill_a(lost=0.5)
    assert two.h.status(sid) == "CREATE_IN_PROGRESS"
    two.recover()
    assert two.h.status(sid) == "CREATE_COMPLETE", two.h.stack(sid)["stack_status_reason"]
    rows = two.h.rows(sid)
    assert {r.name for r in rows} == {f"w{i}" for i in range(4)} | {f"d{i}" for i in range(4)}
    assert all(r.engine_id is None for r in rows), "a lock is left behind"
    tokens = _tokens_per_resource(two.h.store, sid)
    assert {uuid for uuid in tokens} == {r.uuid for r in rows}
    assert all(len(found) == 1 for found in tokens.values()), tokens
    retried = [a for a in two.h.store.list_attempts(sid) if a.retry]
    if step == "handle_create":  # handle_create ran, no id recorded: tried again, same token
        assert len(retried) == 1 and retried[0].engine_id == "engine-b"
    else:  # the id was recorded: the new engine only waited for it
        assert retried == []
    takeovers = [e for e in two.h.events(sid)
                 if "took over" in (e["resource_status_reason"] or "")]
    assert takeovers, "the takeover left no event"
    assert ENGINE_A in takeovers[0]["resource_status_reason"]
    assert "engine-b" in takeovers[0]["resource_status_reason"]


@pytest.mark.parametrize("seed", range(4))
def test_update_and_delete_survive_the_death_of_their_engine(tmp_path, seed) -> None:
    two = TwoEngines(tmp_path, seed)
    sid = two.h.create("dies", chain(4))
    two.h.run()
    assert two.h.status(sid) == "CREATE_COMPLETE"
    SWITCH.arm("handle_update", 1)
    two.h.update(sid, chain(4, "changed"))
    assert two.run_until_killed()
    two.kill_a(lost=0.3)
    two.recover()
    assert two.h.status(sid) == "UPDATE_COMPLETE", two.h.stack(sid)["stack_status_reason"]
    assert {r.properties_data["value"] for r in two.h.rows(sid)} == {"changed"}

    # B alone now; a fresh A to kill again, on delete.
    two.a = start_engine(two.h.store, two.h.transport, clock=two.h.clock,
                         ids=SeededIds(seed + 31), runner=ActionRunner(two.h.clock),
                         engine_id=ENGINE_A, registry=REGISTRY, host="host-a")
    two.h.engines = [two.h.parking_on_the_clock(two.a), two.b]
    SWITCH.arm("handle_delete", 1)
    two.a.service.delete_stack({"project_id": "demo", "is_admin": True}, sid)
    if two.run_until_killed():
        two.kill_a(lost=0.3)
        two.recover()
    assert two.h.status(sid) == "DELETE_COMPLETE", two.h.stack(sid)["stack_status_reason"]
    assert two.h.rows(sid) == []


def test_a_lost_message_is_sent_again_by_the_sweep(tmp_path) -> None:
    h = Harness(tmp_path, seed=3)
    sid = h.create("lost", chain(3))
    h.step(2)
    dropped = h.transport.drop(lambda m: m.method == "check_resource")
    assert dropped, "nothing was in flight to lose"
    h.run()
    assert h.status(sid) == "CREATE_IN_PROGRESS"  # stuck, as Heat would be
    recovery = h.engine.recovery
    assert recovery is not None
    assert recovery.sweep(h.clock.now() - timedelta(seconds=60)) == 0  # not yet stalled
    h.clock.advance(61)
    assert recovery.sweep(h.clock.now() - timedelta(seconds=60)) == 1
    assert recovery.sweep(h.clock.now() - timedelta(seconds=60)) == 0  # once per timeout
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    counts = h.event_counts(sid)
    assert all(counts[(f"r{i}", "CREATE_COMPLETE")] == 1 for i in range(3))


def test_a_timeout_with_no_message_left_fails_the_stack(tmp_path) -> None:
    h = Harness(tmp_path, seed=4)
    sid = h.create("late", chain(2), timeout_mins=1)
    h.step(1)
    h.transport.drop(lambda m: m.method == "check_resource")
    h.run()
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    h.clock.advance(60 + h.engine.deps.options.periodic_interval + 1)
    assert h.engine.recovery is not None
    h.engine.recovery.sweep(None)
    view = h.stack(sid)
    assert (view["stack_status"], view["stack_status_reason"]) == ("FAILED", "Timed out")


@pytest.mark.parametrize("action", ["suspend", "resume"])
def test_a_suspend_or_resume_survives_the_death_of_its_engine(tmp_path, action) -> None:
    """One stack_action message runs a suspend or resume: its engine dies halfway, and
    recovery sends it once more, once the stack has shown no progress for a while."""
    two = TwoEngines(tmp_path, 11)
    sid = two.h.create("paused", chain(4))
    two.h.run()
    admin = {"project_id": "demo", "is_admin": True}
    if action == "resume":
        two.a.service.stack_suspend(admin, sid)
        two.h.run()
        assert two.h.status(sid) == "SUSPEND_COMPLETE"
    SWITCH.arm_across(f"handle_{action}", 2)  # dies on its second resource
    transport = two.h.transport
    transport.unserve(WORKER_TOPIC, "engine-b")  # so that engine A takes the message
    getattr(two.a.service, f"stack_{action}")(admin, sid)
    assert two.run_until_killed()
    two.kill_a(lost=0.0)
    transport.serve(WORKER_TOPIC, "engine-b", two.b.worker, WorkerService.ALLOWED)
    assert two.h.status(sid) == f"{action.upper()}_IN_PROGRESS"
    two.recover()
    assert two.h.status(sid) == f"{action.upper()}_COMPLETE", \
        two.h.stack(sid)["stack_status_reason"]
    assert {f"{r.action}_{r.status}" for r in two.h.rows(sid)} == {f"{action.upper()}_COMPLETE"}
    assert all(r.engine_id is None for r in two.h.rows(sid))


@pytest.mark.parametrize("seed", range(3))
def test_actions_parked_on_an_engine_that_dies_are_taken_over(tmp_path, seed) -> None:
    """Engine A has created and parked every resource (they wait 30 s) when it dies:
    its parked actions die with it, and B takes the rows over as for a running one,
    only waiting for what A made (the physical ids were recorded as they parked)."""
    two = TwoEngines(tmp_path, seed)
    transport = two.h.transport
    transport.unserve(WORKER_TOPIC, "engine-b")  # so that engine A takes every node
    sid = two.h.create("parked", tmpl({f"w{i}": res("w", wait_secs=30) for i in range(6)}))
    transport.run_until_idle()  # no time passes: all six are parked on A
    assert two.a.deps.parked is not None and len(two.a.deps.parked) == 6
    assert all(r.physical_resource_id for r in two.h.rows(sid))
    two.kill_a(lost=0.0)
    transport.serve(WORKER_TOPIC, "engine-b", two.b.worker, WorkerService.ALLOWED)
    two.recover()
    assert two.h.status(sid) == "CREATE_COMPLETE", two.h.stack(sid)["stack_status_reason"]
    rows = two.h.rows(sid)
    assert all(r.engine_id is None for r in rows), "a lock is left behind"
    tokens = _tokens_per_resource(two.h.store, sid)
    assert all(len(found) == 1 for found in tokens.values()) and len(tokens) == 6
    assert [a for a in two.h.store.list_attempts(sid) if a.retry] == []  # only waited
    takeovers = [e for e in two.h.events(sid)
                 if "took over" in (e["resource_status_reason"] or "")]
    assert len(takeovers) == 6
    assert all(e["resource_status_reason"] == "Worker went down during resource CREATE: "
               "engine engine-a stopped answering; engine engine-b took over"
               for e in takeovers), takeovers[0]["resource_status_reason"]
