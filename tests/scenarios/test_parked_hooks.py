"""Resources paused at hooks are parked: they hold no worker, and survive their engine.

A paused node waits in the engine's parked actions (engine/worker/breakpoints.py),
not in a thread: a pool of two workers with ten resources paused still serves
another stack. Clearing a hook wakes its node at once. An engine that dies with
nodes paused leaves them paused: the engine that takes over waits at the same
hooks, with no second "paused" event, and goes on when they are cleared.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from hotplate.app import embedded
from hotplate.engine.worker.breakpoints import HOOK_RECHECK, clear_hook
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.rpc.topics import WORKER_TOPIC

from .templates import chain, res, tmpl
from .test_engine_death import TwoEngines
from .test_threaded import CTXT, settled, wait_for

TEN = tmpl({f"r{i}": res(f"v{i}") for i in range(10)})
TWO = tmpl({"a": res("a"), "b": res("b", depends_on="a")})
EVERY = {"resource_registry": {"resources": {"*": {"hooks": "pre-create"}}}}


def hooks_env(name: str, hook: str) -> dict:
    return {"resource_registry": {"resources": {name: {"hooks": hook}}}}


def reasons(store, sid, name: str) -> list[str]:
    return [f"{e.resource_action}_{e.resource_status}: {e.resource_status_reason}"
            for e in store.list_events(sid) if e.resource_name == name]


def clear_all(engine, sid: str, hook: str) -> int:
    stack = engine.store.get_stack(sid)
    paused = engine.store.paused_at_hooks(sid)
    rows = [r for r in engine.store.list_resources(sid) if r.id in paused]
    for row in rows:
        clear_hook(engine.deps, stack, row, hook)
    return len(rows)


def test_ten_paused_resources_leave_two_workers_free(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/p.sqlite", workers=2)
    try:
        sid = engine.service.create_stack(CTXT, "paused", TEN, EVERY, {}, {})["stack_id"]
        wait_for(lambda: len(engine.store.paused_at_hooks(sid)) == 10)
        assert engine.deps.parked is not None
        wait_for(lambda: len(engine.deps.parked) == 10)
        other = engine.service.create_stack(CTXT, "other", chain(3), {}, {}, {})["stack_id"]
        wait_for(lambda: settled(engine, other))
        assert engine.store.get_stack(other).status == "COMPLETE"
        assert engine.store.get_stack(sid).status == "IN_PROGRESS"
        wait_for(transport.idle)  # paused, and not a message in the pool
        assert clear_all(engine, sid, "pre-create") == 10
        wait_for(lambda: settled(engine, sid))
        assert engine.store.get_stack(sid).status == "COMPLETE"
        assert reasons(engine.store, sid, "r3") == [
            "INIT_COMPLETE: CREATE paused until Hook pre-create is cleared",
            "INIT_COMPLETE: Hook pre-create is cleared",
            "CREATE_IN_PROGRESS: state changed",
            "CREATE_COMPLETE: state changed",
        ]
        assert len(engine.deps.parked) == 0
    finally:
        engine.stop()
        transport.stop()


def test_clearing_a_hook_wakes_its_node_at_once(tmp_path) -> None:
    two = TwoEngines(tmp_path, 2)
    h = two.h
    sid = h.service.create_stack(CTXT, "s", TWO, hooks_env("a", "pre-create"), {},
                                 {"disable_rollback": True})["stack_id"]
    h.transport.run_until_idle()
    parked = [e.deps.parked for e in (two.a, two.b) if e.deps.parked is not None]
    assert sum(len(p) for p in parked) == 1

    def next_due() -> datetime:
        return min(due for p in parked if (due := p.next_due()) is not None)

    assert next_due() >= h.clock.now() + timedelta(seconds=HOOK_RECHECK)  # no polling
    row = next(r for r in h.rows(sid) if r.name == "a")
    clear_hook(two.b.deps, h.store.get_stack(sid), row, "pre-create")  # from either engine
    h.transport.run_until_idle()
    assert next_due() <= h.clock.now()  # woken at once
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"


def test_a_cancel_ends_the_wait_and_a_delete_goes_through(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/d.sqlite", workers=2)
    try:
        sid = engine.service.create_stack(CTXT, "s", TEN, EVERY, {}, {})["stack_id"]
        wait_for(lambda: len(engine.store.paused_at_hooks(sid)) == 10)
        engine.worker.cancel_check_resource({}, sid)  # what a delete sends lock holders
        failed = "INIT_COMPLETE: Failure occurred while waiting."
        wait_for(lambda: all(failed in reasons(engine.store, sid, f"r{i}")
                             for i in range(10)))
        assert engine.store.paused_at_hooks(sid) == set()
        assert engine.deps.parked is not None
        wait_for(lambda: len(engine.deps.parked) == 0)
        engine.service.delete_stack(CTXT, sid)
        wait_for(lambda: settled(engine, sid), timeout=20)
        stack = engine.store.get_stack(sid, include_deleted=True)
        assert (stack.action, stack.status) == ("DELETE", "COMPLETE")
    finally:
        engine.stop()
        transport.stop()


@pytest.mark.parametrize("hook", ["pre-create", "post-create"])
def test_a_paused_hook_survives_the_death_of_its_engine(tmp_path, hook) -> None:
    two = TwoEngines(tmp_path, 5)
    h, transport = two.h, two.h.transport
    transport.unserve(WORKER_TOPIC, "engine-b")  # so that engine A pauses the node
    sid = h.service.create_stack(CTXT, "s", TWO, hooks_env("a", hook), {},
                                 {"disable_rollback": True})["stack_id"]
    transport.run_until_idle()
    assert two.a.deps.parked is not None and len(two.a.deps.parked) == 1
    paused = f"CREATE paused until Hook {hook} is cleared"
    two.kill_a(lost=0.0)
    transport.serve(WORKER_TOPIC, "engine-b", two.b.worker, WorkerService.ALLOWED)
    h.clock.advance(3 * two.b.deps.options.periodic_interval)
    h.store.heartbeat_service(two.b.deps.engine_id)
    assert two.b.recovery is not None
    two.b.recovery.run_once()
    transport.run_until_idle()
    assert two.b.deps.parked is not None and len(two.b.deps.parked) == 1  # waits on B
    assert h.resource_states(sid)["b"] == "INIT_COMPLETE"
    row = next(r for r in h.rows(sid) if r.name == "a")
    clear_hook(two.b.deps, h.store.get_stack(sid), row, hook)
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE", h.stack(sid)["stack_status_reason"]
    events = reasons(h.store, sid, "a")
    assert sum(paused in e for e in events) == 1, events  # paused once, not again
    assert events.count(f"{row.action}_{row.status}: Hook {hook} is cleared") == 1
    assert events.count("CREATE_COMPLETE: state changed") == 1  # created once
    assert all(r.engine_id is None for r in h.rows(sid))
