"""Legacy stacks whose lock holder died: reset FAILED by a live engine's recovery round
(Heat only does it when an engine starts), the previous template restored after an
update; a live holder's stack left alone; a holder whose lock was stolen exits."""

from __future__ import annotations

from typing import Any

from hotplate.app import Engine, start_engine
from hotplate.engine.clock import SeededIds
from hotplate.engine.legacy.stacks import LegacyStacks
from hotplate.engine.options import EngineOptions
from hotplate.engine.runner import ActionRunner
from hotplate.model.errors import ActionInProgress
from hotplate.model.ids import NO_TRAVERSAL, EngineId, StackId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.rpc.requests import request_uuid

from .harness import CTXT, Harness
from .templates import res, tmpl

LEGACY = EngineOptions(convergence_engine=False)


class TwoEngines:
    """Engines A and B on one database and one scheduler; A can die."""

    def __init__(self, tmp_path: Any, seed: int = 11) -> None:
        self.h = Harness(tmp_path, seed=seed, options=LEGACY)
        self.h.engine.stop()
        self.a = self._engine("engine-a", "host-a", seed)
        self.b = self._engine("engine-b", "host-b", seed + 7919)
        self.h.engines = [self.h.parking_on_the_clock(e) for e in (self.a, self.b)]

    def _engine(self, engine_id: str, host: str, seed: int) -> Engine:
        engine = start_engine(self.h.store, self.h.transport, clock=self.h.clock,
                              ids=SeededIds(seed), runner=ActionRunner(self.h.clock),
                              engine_id=engine_id, host=host, options=LEGACY)
        return self.h.legacy_on_the_scheduler(engine)

    def kill_a(self) -> None:
        """A stops where it stands: its messages, timers and threads go, its lock stays."""
        self.h.transport.kill({"engine-a", "host-a"}, lost=1.0)
        assert self.a.recovery is not None and self.a.deps.parked is not None
        self.a.recovery.stop()
        self.a.deps.parked.stop()
        self.a.reporter.stop()
        self.h.engines = [self.b]

    def b_recovers(self) -> None:
        """B's recovery round once A's reports are old enough."""
        self.h.clock.advance(3 * self.b.deps.options.periodic_interval)
        self.h.store.heartbeat_service(self.b.deps.engine_id)
        assert self.b.recovery is not None
        self.b.recovery.run_once()
        self.h.run()


def without_time(h: Harness) -> None:
    """Deliver and run all that is due now, the clock still: what waits keeps waiting."""
    h.transport.run_until_idle()
    while h.run_legacy():
        h.transport.run_until_idle()


def slow(value: str, secs: int = 600) -> dict[str, Any]:
    return tmpl({"fast": res(value), "slow": res(value, wait_secs=secs, depends_on="fast")},
                outputs={"fast": {"value": {"get_attr": ["fast", "output"]}}})


def test_create_left_by_a_dead_engine_is_reset_by_a_live_ones_round(tmp_path) -> None:
    two = TwoEngines(tmp_path)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "left", slow("one"), {}, {}, {})["stack_id"]
    without_time(h)  # "slow" is creating, parked on engine A
    assert h.status(sid) == "CREATE_IN_PROGRESS"
    assert h.store.stack_lock_holder(StackId(sid)) == "engine-a"
    assert two.b.recovery is not None
    assert two.b.recovery.reset_legacy() == 0  # A is alive: its stack is left alone
    two.kill_a()
    two.b_recovers()
    view = h.service.show_stack({**CTXT, "is_admin": True}, sid)[0]
    assert (h.status(sid), view["stack_status_reason"]) == (
        "CREATE_FAILED", "Engine went down during stack CREATE")
    assert h.resource_states(sid) == {"fast": "CREATE_COMPLETE", "slow": "CREATE_FAILED"}
    assert h.resources(sid)["slow"]["resource_status_reason"] == (
        "Engine went down during stack CREATE")
    assert h.store.stack_lock_holder(StackId(sid)) is None
    assert not any(row.engine_id for row in h.rows(sid))
    two.b.service.update_stack(CTXT, sid, slow("two", secs=0), {}, {}, {})
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.outputs(sid) == {"fast": "two"}
    assert set(h.resource_states(sid).values()) == {"UPDATE_COMPLETE"} | {
        state for state in h.resource_states(sid).values() if state == "CREATE_COMPLETE"}


def test_update_left_by_a_dead_engine_gets_its_previous_template_back(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=12)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "upd", slow("one", secs=0), {}, {}, {})["stack_id"]
    h.run()
    before = h.store.get_stack(StackId(sid)).raw_template_id
    two.a.service.update_stack(CTXT, sid, slow("two"), {}, {}, {})
    without_time(h)
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    two.kill_a()
    two.b_recovers()
    stack = h.store.get_stack(StackId(sid))
    assert (h.status(sid), stack.status_reason) == (
        "UPDATE_FAILED", "Engine went down during stack UPDATE")
    assert stack.raw_template_id == before and stack.prev_raw_template_id is None
    assert h.service.get_template({**CTXT, "is_admin": True}, sid) == slow("one", secs=0)
    two.b.service.update_stack(CTXT, sid, slow("three", secs=0), {}, {}, {})
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.outputs(sid) == {"fast": "three"}


def test_a_dead_holders_lock_is_stolen_by_the_next_operation(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=13)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "steal", slow("one", secs=0), {}, {}, {})[
        "stack_id"]
    h.run()
    h.store.acquire_stack_lock(StackId(sid), EngineId("engine-gone"))  # a holder long dead
    two.b.service.update_stack(CTXT, sid, slow("two", secs=0), {}, {}, {})
    assert h.store.stack_lock_holder(StackId(sid)) == "engine-b"
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.store.stack_lock_holder(StackId(sid)) is None


def test_a_live_holder_refuses_and_a_delete_stops_it(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=14)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "busy", slow("one"), {}, {}, {})["stack_id"]
    without_time(h)
    try:
        two.b.service.update_stack(CTXT, sid, slow("two"), {}, {}, {})
    except ActionInProgress:
        pass
    else:
        raise AssertionError("a live holder's stack was updated")
    two.b.service.delete_stack(CTXT, sid)  # stop_stack on A, then B takes the lock
    h.run()
    assert h.store.get_stack(StackId(sid)) is None
    assert h.rows(sid) == []
    assert h.store.stack_lock_holder(StackId(sid)) is None


def test_a_holder_whose_lock_was_stolen_exits_at_its_release(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=15)
    h = two.h
    legacy = two.a.deps.legacy
    assert isinstance(legacy, LegacyStacks)
    exits: list[str] = []
    legacy.exit = exits.append
    sid = two.a.service.create_stack(CTXT, "fenced", slow("one", secs=5), {}, {}, {})[
        "stack_id"]
    without_time(h)
    assert h.store.steal_stack_lock(StackId(sid), EngineId("engine-a"),
                                    EngineId("engine-b"))
    h.run()
    assert exits and sid in exits[0]


def test_a_fenced_holder_writes_nothing_more_and_keeps_its_lock(tmp_path) -> None:
    """Its lease lapsed (engine/lease.py): the thread stops where it stands, the stack
    and the lock as they were, for a live engine to find the holder dead and reset."""
    import threading
    import time

    from hotplate.app import embedded

    served, transport = embedded(f"sqlite:///{tmp_path}/f.sqlite", workers=2,
                                 options=LEGACY)
    try:
        legacy = served.deps.legacy
        assert isinstance(legacy, LegacyStacks)
        sid = served.service.create_stack(CTXT, "fenced", slow("one", secs=1), {}, {},
                                          {})["stack_id"]
        legacy.holds = lambda: False  # as lease.check answers once the lease ran out
        deadline = time.monotonic() + 30
        while any(t.name == f"hotplate-legacy-{sid[:8]}" for t in threading.enumerate()):
            assert time.monotonic() < deadline, "the fenced thread went on"
            time.sleep(0.05)
        time.sleep(1.5)  # past the slow resource's wait: nobody goes on with it
        stack = served.store.get_stack(StackId(sid))
        assert (stack.action, stack.status) == ("CREATE", "IN_PROGRESS")
        assert served.store.stack_lock_holder(StackId(sid)) == served.deps.engine_id
    finally:
        served.stop()
        transport.stop()


def test_a_cancel_reaches_the_holders_thread_on_another_engine(tmp_path) -> None:
    """stack_cancel_update asked of B for a stack whose thread runs on A: B sends the
    message on the listener topic (Heat's ``send``), A's thread rolls back."""
    two = TwoEngines(tmp_path, seed=16)
    h = two.h
    sid = two.a.service.create_stack(CTXT, "cx", slow("old", secs=0), {}, {}, {})[
        "stack_id"]
    h.run()
    update = slow("new")
    update["resources"]["fast"]["properties"]["wait_secs"] = 600
    two.a.service.update_stack(CTXT, sid, update, {}, {}, {"disable_rollback": True})
    without_time(h)
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    two.b.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=True)
    assert h.store.stack_lock_holder(StackId(sid)) == "engine-a"  # still A's thread
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert h.outputs(sid) == {"fast": "old"}
    assert h.store.stack_lock_holder(StackId(sid)) is None


def made_never_started(h: Harness, request_id: str, template: dict[str, Any]
                       ) -> tuple[dict[str, Any], StackId]:
    """The stack a create asked with ``request_id`` wrote before its engine died, never
    started; and the context that asks the create again."""
    ctxt = {**CTXT, "request_id": request_id}
    sid = StackId(str(request_uuid(ctxt, "stack")))
    tid = h.store.create_raw_template(template, {}, {})
    h.store.create_stack(StackRecord(
        id=sid, name="again", project_id=CTXT["project_id"], raw_template_id=tid,
        action=Action.INIT, status=Status.COMPLETE, status_reason="",
        current_traversal=NO_TRAVERSAL, created_at=h.clock.now(), convergence=False))
    return ctxt, sid


def test_a_create_asked_again_starts_its_stack_under_the_lock(tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=17)
    h = two.h
    ctxt, sid = made_never_started(h, "req-again", slow("one", secs=5))
    h.store.acquire_stack_lock(sid, EngineId("engine-gone"))  # its dead asker's, say
    made = two.b.service.create_stack(ctxt, "again", slow("one", secs=5), {}, {}, {})
    assert made["stack_id"] == sid
    assert h.store.stack_lock_holder(sid) == "engine-b"  # stolen, and held while it runs
    legacy = two.b.deps.legacy
    assert isinstance(legacy, LegacyStacks) and legacy.running_here(sid)
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    assert h.store.stack_lock_holder(sid) is None


def test_a_create_asked_again_while_a_live_engine_holds_the_lock_is_refused(
        tmp_path) -> None:
    two = TwoEngines(tmp_path, seed=18)
    h = two.h
    ctxt, sid = made_never_started(h, "req-busy", slow("one", secs=0))
    h.store.acquire_stack_lock(sid, EngineId("engine-a"))  # A lives (it starts it, say)
    try:
        two.b.service.create_stack(ctxt, "again", slow("one", secs=0), {}, {}, {})
    except ActionInProgress:
        pass
    else:
        raise AssertionError("the stack was started under a live engine's lock")
    stack = h.store.get_stack(sid)
    assert (stack.action, stack.current_traversal) == (Action.INIT, NO_TRAVERSAL)
    assert h.store.stack_lock_holder(sid) == "engine-a"
