"""A legacy engine stopping gracefully (SIGTERM) ends what its threads hold, as Heat's
EngineService.stop: an operation that ends within the grace period ends as it would
have; one still running then stops at its next node, its stack FAILED "Engine went
down during stack <ACTION>" (the previous template back after an update) and its lock
released, so another engine acts on it at once, not once the stopped one's lease ran
out."""

from __future__ import annotations

import time

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.model.ids import StackId
from hotplate.rpc.inprocess import InProcessTransport

from .harness import CTXT
from .templates import res, tmpl
from .test_legacy_recovery import LEGACY, TwoEngines, slow, without_time
from .test_threaded import wait_for


def test_a_stopping_engine_resets_the_create_it_could_not_finish(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=21)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "stopped", slow("one"), {}, {}, {})["stack_id"]
    without_time(h)  # "slow" is creating, parked on engine A
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    assert two.a.end_legacy(0) == 1
    view = h.service.show_stack({**CTXT, "is_admin": True}, sid)[0]
    assert (h.status(sid), view["stack_status_reason"]) == (
        "CREATE_FAILED", "Engine went down during stack CREATE")
    assert h.resource_states(sid) == {"fast": "CREATE_COMPLETE", "slow": "CREATE_FAILED"}
    assert h.resources(sid)["slow"]["resource_status_reason"] == (
        "Engine went down during stack CREATE")
    assert h.store.stack_lock_holder(StackId(sid)) is None
    assert not any(row.engine_id for row in h.rows(sid))
    assert not two.a.deps.legacy.running_here(StackId(sid))  # type: ignore[union-attr]
    h.run()  # what A still had parked does nothing more
    assert h.status(sid) == "CREATE_FAILED"
    two.b.service.update_stack(CTXT, sid, slow("two", secs=0), {}, {}, {})  # at once
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.outputs(sid) == {"fast": "two"}


def test_a_stopping_engines_update_gets_its_previous_template_back(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=22)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "upd", slow("one", secs=0), {}, {}, {})[
        "stack_id"]
    h.run()
    before = h.store.get_stack(StackId(sid)).raw_template_id
    two.a.service.update_stack(CTXT, sid, slow("two"), {}, {}, {})
    without_time(h)
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    assert two.a.end_legacy(0) == 1
    stack = h.store.get_stack(StackId(sid))
    assert (h.status(sid), stack.status_reason) == (
        "UPDATE_FAILED", "Engine went down during stack UPDATE")
    assert stack.raw_template_id == before and stack.prev_raw_template_id is None
    assert h.service.get_template({**CTXT, "is_admin": True}, sid) == slow("one", secs=0)
    assert h.store.stack_lock_holder(StackId(sid)) is None


def test_an_action_still_waiting_after_a_cancel_fails_at_the_stop(tmp_path) -> None:
    """Cancelled without rollback, the stack is over but its update in flight waits on
    in the thread; the stop fails that resource and lets the lock go."""
    two = TwoEngines(tmp_path, seed=24)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "cx", slow("one", secs=0), {}, {}, {})[
        "stack_id"]
    h.run()
    update = slow("two")
    update["resources"]["fast"]["properties"]["wait_secs"] = 600
    two.a.service.update_stack(CTXT, sid, update, {}, {}, {})
    without_time(h)  # "fast" updating, parked on engine A
    two.a.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=False)
    without_time(h)
    assert (h.status(sid), h.stack(sid)["stack_status_reason"]) == (
        "UPDATE_FAILED", "Operation cancelled")
    assert h.store.stack_lock_holder(StackId(sid)) == "engine-a"  # "fast" still waits
    assert two.a.end_legacy(0) == 0
    assert h.status(sid) == "UPDATE_FAILED"
    assert h.resources(sid)["fast"]["resource_status"] == "FAILED"
    assert h.resources(sid)["fast"]["resource_status_reason"] == (
        "Engine went down during stack UPDATE")
    assert h.store.stack_lock_holder(StackId(sid)) is None
    assert not any(row.engine_id for row in h.rows(sid))
    assert len(two.a.deps.parked) == 0  # type: ignore[arg-type]


def test_a_fenced_engine_resets_nothing_at_its_stop(tmp_path) -> None:
    """Its lease ran out: others may be taking its stacks over, so it writes nothing."""
    two = TwoEngines(tmp_path, seed=23)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "fenced", slow("one"), {}, {}, {})["stack_id"]
    without_time(h)
    two.a.deps.legacy.holds = lambda: False  # type: ignore[union-attr]
    assert two.a.end_legacy(0) == 0
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    assert h.store.stack_lock_holder(StackId(sid)) == "engine-a"


def test_shutdown_waits_for_legacy_threads_within_its_grace(tmp_path) -> None:
    """Real threads and clock: of two creates, the one that ends within the grace period
    completes (its waits re-driven meanwhile, though the engine takes no more messages);
    the other is reset when it is over, and its lock is free for engine B at once."""
    clock = SystemClock()
    store = open_store(f"sqlite:///{tmp_path}/stop.sqlite", clock)
    transport = InProcessTransport(workers_per_server=4)
    a = start_engine(store, transport, clock=clock, engine_id="engine-a", host="host-a",
                     work_slots=1, options=LEGACY)
    b = None
    try:
        quick = a.service.create_stack(CTXT, "quick", tmpl({"q": res("q", wait_secs=1)}),
                                       {}, {}, {})["stack_id"]
        creating = tmpl({"fast": res("one"), "slow": res(
            "one", depends_on="fast", action_wait_secs={"create": 600})})  # deleted at once
        stuck = a.service.create_stack(CTXT, "stuck", creating, {}, {}, {})["stack_id"]
        wait_for(lambda: {r.name: str(r.status) for r in store.list_resources(
            StackId(stuck))}.get("slow") == "IN_PROGRESS")
        b = start_engine(store, transport, clock=clock, engine_id="engine-b",
                         host="host-b", work_slots=1, options=LEGACY)
        grace = 6.0
        began = time.monotonic()
        a.shutdown(timeout=grace)
        assert time.monotonic() - began < grace + 5
        done = store.get_stack(StackId(quick))
        assert (done.action, done.status) == ("CREATE", "COMPLETE"), done.status_reason
        reset = store.get_stack(StackId(stuck))
        assert (reset.action, reset.status, reset.status_reason) == (
            "CREATE", "FAILED", "Engine went down during stack CREATE")
        assert store.stack_lock_holder(StackId(quick)) is None
        assert store.stack_lock_holder(StackId(stuck)) is None
        assert store.resources_locked_by("engine-a") == []
        b.service.update_stack(CTXT, stuck, slow("two", secs=0), {}, {}, {})
        wait_for(lambda: store.get_stack(StackId(stuck)).status != "IN_PROGRESS")
        after = store.get_stack(StackId(stuck))
        assert (after.action, after.status) == ("UPDATE", "COMPLETE"), after.status_reason
    finally:
        if b is not None:
            b.stop()
        transport.stop()

