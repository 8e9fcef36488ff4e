"""Waiting costs no thread: any resource whose action is not done at once is parked.

A plugin whose create needs many checks (as a cloud object that builds) is
asked again by the engine on a back-off, or when it said to, while neither a
worker nor a message is held for it. On the harness's fake clock the
schedule is exact; with real threads two hundred such resources converge
on four workers in about the time one takes.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, ClassVar

import pytest

from hotplate.app import embedded
from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry

from .harness import Harness
from .templates import res, tmpl
from .test_threaded import CTXT, settled, wait_for


class Polled(Resource):
    """Done at its ``checks``-th check (-1: never); ``ask_after``: says when to ask again."""

    properties_schema = {
        "checks": Schema(Schema.INTEGER, "Checks until done.", default=1,
                         update_allowed=True),
        "ask_after": Schema(Schema.NUMBER, "CheckAgain(after) while not done.",
                            update_allowed=True),
    }
    seen: ClassVar[dict[str, list[datetime]]] = defaultdict(list)
    """When each resource's checks came, by name."""

    def handle_create(self) -> list[int]:
        self.resource_id_set(self.physical_resource_name())
        return [0]

    def check_create_complete(self, data: list[int]) -> CheckResult:
        Polled.seen[self.name].append(self.ctx.clock.now())
        data[0] += 1
        if data[0] == self.properties["checks"]:
            return True
        after = self.properties["ask_after"]
        return False if after is None else CheckAgain(after=after)

    def handle_update(self, new_properties: Any, prop_diff: Any) -> list[int]:
        super().handle_update(new_properties, prop_diff)
        return [0]

    def check_update_complete(self, data: list[int]) -> CheckResult:
        return self.check_create_complete(data)


REGISTRY = Registry.with_extra({"OS::Test::Polled": Polled})


def polled(**props: Any) -> dict[str, Any]:
    return {"type": "OS::Test::Polled", "properties": props}


@pytest.fixture(autouse=True)
def _forget_checks() -> None:
    Polled.seen.clear()


def gaps(name: str) -> list[float]:
    times = Polled.seen[name]
    return [round((b - a).total_seconds(), 6) for a, b in pairwise(times)]


def test_many_waiting_resources_hold_no_worker_and_follow_the_back_off(tmp_path) -> None:
    h = Harness(tmp_path, seed=1, registry=REGISTRY)
    sid = h.create("many", tmpl({f"p{i}": polled(checks=12) for i in range(200)}))
    h.transport.run_until_idle()  # everything handled and checked once; no time passed
    assert len(h.engine.deps.parked) == 200
    assert h.transport.pending() == []  # nobody works or is queued for them meanwhile
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert len(h.engine.deps.parked) == 0
    expected = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.0, 1.0, 1.0, 1.0]
    assert all(gaps(f"p{i}") == expected for i in range(200)), gaps("p0")
    assert all(r.engine_id is None for r in h.rows(sid))


def test_a_plugin_is_asked_again_when_it_said(tmp_path) -> None:
    h = Harness(tmp_path, seed=2, registry=REGISTRY)
    started = h.clock.now()
    sid = h.create("asks", tmpl({"slow": polled(checks=4, ask_after=30)}))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert gaps("slow") == [30.0, 30.0, 30.0]
    assert h.clock.now() - started == timedelta(seconds=90)


def test_a_test_resource_is_checked_when_its_wait_is_over(tmp_path) -> None:
    h = Harness(tmp_path, seed=3)
    started = h.clock.now()
    sid = h.create("waits", tmpl({"a": res(wait_secs=42), "b": res(wait_secs=7)}))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert h.clock.now() - started == timedelta(seconds=42)  # not a back-off step later


def test_a_parked_resource_times_out_at_the_stack_deadline(tmp_path) -> None:
    h = Harness(tmp_path, seed=4, registry=REGISTRY)
    started = h.clock.now()
    sid = h.create("late", tmpl({"never": polled(checks=-1, ask_after=600)}),
                   timeout_mins=1)
    h.run()
    view = h.stack(sid)
    assert (view["stack_status"], view["stack_status_reason"]) == ("FAILED", "Timed out")
    never = h.resources(sid)["never"]
    assert never["resource_status"] == "FAILED"
    assert never["resource_status_reason"] == (
        f'CREATE aborted (Task create from Polled "never" [{never["physical_resource_id"]}]'
        f' Stack "late" [{sid}] Timed out)')
    assert h.clock.now() - started == timedelta(minutes=1)  # noticed at the deadline
    assert gaps("never") == []  # the ask for 600 s was cut short by the deadline
    assert all(r.engine_id is None for r in h.rows(sid))


def test_deleting_a_stack_whose_resources_are_parked_aborts_them(tmp_path) -> None:
    h = Harness(tmp_path, seed=5, registry=REGISTRY)
    sid = h.create("doomed", tmpl({f"p{i}": polled(checks=-1, ask_after=3000)
                                   for i in range(5)}))
    h.transport.run_until_idle()
    assert len(h.engine.deps.parked) == 5
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    assert h.rows(sid) == []
    aborted = [e for e in h.events(sid)
               if e["resource_status"] == "FAILED" and e["resource_name"] != "doomed"]
    assert sorted(e["resource_name"] for e in aborted) == [f"p{i}" for i in range(5)]
    assert {e["resource_status_reason"] for e in aborted} == {
        "CREATE aborted (user triggered cancel)"}
    assert len(h.engine.deps.parked) == 0


def test_a_cancelled_update_lets_a_parked_resource_finish(tmp_path) -> None:
    h = Harness(tmp_path, seed=6, registry=REGISTRY)
    sid = h.create("c", tmpl({"p": polled(checks=1)}))
    h.run()
    h.update(sid, tmpl({"p": polled(checks=3, ask_after=5)}))
    h.transport.run_until_idle()
    assert len(h.engine.deps.parked) == 1
    h.service.stack_cancel_update({"project_id": "demo"}, sid, cancel_with_rollback=False)
    h.run()
    view = h.stack(sid)
    assert (view["stack_status"], view["stack_status_reason"]) == (
        "FAILED", "Stack UPDATE cancelled")
    assert h.resource_states(sid) == {"p": "UPDATE_COMPLETE"}  # in flight: finished
    assert all(r.engine_id is None for r in h.rows(sid))


def test_two_hundred_waits_on_four_workers_take_about_one_wait(tmp_path) -> None:
    """With real threads: while they wait, the worker pool is free (nothing runs)."""
    engine, transport = embedded(f"sqlite:///{tmp_path}/w.sqlite", workers=4)
    baseline = threading.active_count()
    try:
        body = tmpl({f"r{i}": res(action_wait_secs={"create": 3}) for i in range(200)})
        started = time.monotonic()
        sid = engine.service.create_stack(CTXT, "wide", body, {}, {}, {})["stack_id"]
        wait_for(lambda: len(engine.deps.parked) == 200, timeout=20)
        assert transport.join(timeout=2), "a worker is held while its resource waits"
        assert transport.idle() and len(engine.deps.parked) == 200
        assert threading.active_count() <= baseline + 4 + 1  # the workers and the re-driver
        wait_for(lambda: settled(engine, sid), timeout=60)
        took = time.monotonic() - started
        stack = engine.store.get_stack(sid)
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        assert took < 15, f"200 waits of 3 s on 4 workers took {took:.1f} s"
        assert len(engine.deps.parked) == 0
    finally:
        engine.stop()
        transport.stop()


def test_checks_that_find_nothing_new_write_nothing(tmp_path) -> None:
    """A check that changed neither the physical id nor the resource's data leaves its
    row alone: 500 servers building for half an hour once cost a row write per check."""
    h = Harness(tmp_path, seed=5, registry=REGISTRY)
    sid = h.create("quiet", tmpl({"few": polled(checks=2), "many": polled(checks=12)}))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    keys = {r.name: r.atomic_key for r in h.rows(sid)}
    assert keys["many"] == keys["few"], keys
