"""The legacy engine (``[DEFAULT] convergence_engine = false``) and the convergence engine
give the same results: each scenario runs on both, and on the legacy one also checks
that the stack was worked on under its lock, in one thread of the engine."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.engine.legacy.stacks import LegacyStacks
from hotplate.engine.options import EngineOptions
from hotplate.model.errors import ActionInProgress
from hotplate.model.ids import StackId

from .harness import CTXT, Harness
from .templates import app_stack, chain, res, tmpl

ENGINES = {"convergence": True, "legacy": False}


@pytest.fixture(params=list(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def harness(tmp_path: Any, engine: str, seed: int = 3) -> Harness:
    options = EngineOptions(convergence_engine=ENGINES[engine])
    return Harness(tmp_path, seed=seed, options=options)


def legacy_of(h: Harness) -> LegacyStacks:
    legacy = h.engine.deps.legacy
    assert isinstance(legacy, LegacyStacks)
    return legacy


def settled(h: Harness, sid: str, engine: str) -> None:
    """The stack is its engine's kind, and nothing of it is locked any more."""
    assert h.store.get_stack(StackId(sid)).convergence is ENGINES[engine]
    assert h.store.stack_lock_holder(StackId(sid)) is None
    assert not legacy_of(h).running_here(StackId(sid))
    assert not any(row.engine_id for row in h.rows(sid))


def outcome(h: Harness, sid: str) -> tuple[str, str, dict[str, str], dict[str, Any]]:
    view = h.stack(sid)
    return (h.status(sid), view["stack_status_reason"], h.resource_states(sid),
            h.outputs(sid))


def test_create_update_in_place_and_delete(tmp_path, engine) -> None:
    h = harness(tmp_path, engine)
    sid = h.create("app", app_stack("one"))
    if engine == "legacy":  # the lock is taken before the request is answered
        assert h.store.stack_lock_holder(StackId(sid)) == h.engine.deps.engine_id
    h.run()
    assert outcome(h, sid) == (
        "CREATE_COMPLETE", "Stack CREATE completed successfully",
        {"db": "CREATE_COMPLETE", "app": "CREATE_COMPLETE", "web": "CREATE_COMPLETE"},
        {"web": f"app(one)-{h.resources(sid)['db']['physical_resource_id']}"})
    settled(h, sid, engine)
    ids = {n: v["physical_resource_id"] for n, v in h.resources(sid).items()}
    h.update(sid, app_stack("two"))
    h.run()
    status, reason, states, outputs = outcome(h, sid)
    assert (status, reason) == ("UPDATE_COMPLETE", "Stack UPDATE completed successfully")
    assert states == {"db": "UPDATE_COMPLETE", "app": "UPDATE_COMPLETE",
                      "web": "UPDATE_COMPLETE"}
    assert outputs == {"web": f"app(two)-{ids['db']}"}
    assert {n: v["physical_resource_id"] for n, v in h.resources(sid).items()} == ids
    settled(h, sid, engine)
    h.delete(sid)
    h.run()
    assert h.store.get_stack(StackId(sid)) is None
    assert h.rows(sid) == []
    assert h.store.stack_lock_holder(StackId(sid)) is None


def test_update_with_replacement(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=5)
    before = tmpl({"keep": res("k"), "swap": res("s1", update_replace_value="x"),
                   "gone": res("g")},
                  outputs={"swap": {"value": {"get_attr": ["swap", "output"]}}})
    sid = h.create("rep", before)
    h.run()
    first = h.resources(sid)["swap"]["physical_resource_id"]
    after = tmpl({"keep": res("k"), "swap": res("s2", update_replace_value="y"),
                  "new": res("n", depends_on="swap")},
                 outputs={"swap": {"value": {"get_attr": ["swap", "output"]}}})
    h.update(sid, after)
    h.run()
    assert outcome(h, sid) == (
        "UPDATE_COMPLETE", "Stack UPDATE completed successfully",
        {"keep": "CREATE_COMPLETE", "swap": "CREATE_COMPLETE", "new": "CREATE_COMPLETE"},
        {"swap": "s2"})
    assert h.resources(sid)["swap"]["physical_resource_id"] != first
    assert sorted(row.name for row in h.rows(sid)) == ["keep", "new", "swap"]
    settled(h, sid, engine)


def test_failed_update_rolls_back_in_the_same_thread(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=4)
    outputs = {"a": {"value": {"get_attr": ["a", "output"]}}}
    sid = h.create("rb", tmpl({"a": res("old")}, outputs=outputs))
    h.run()
    h.update(sid, tmpl({"a": res("new"), "b": res(fail=True, depends_on="a")},
                       outputs=outputs), disable_rollback=False)
    h.run()
    assert outcome(h, sid) == (
        "ROLLBACK_COMPLETE", "Stack ROLLBACK completed successfully",
        {"a": "UPDATE_COMPLETE"}, {"a": "old"})
    settled(h, sid, engine)
    events = [(e["resource_name"], e["resource_status"], e["resource_status_reason"])
              for e in h.events(sid) if e["resource_name"] == "rb"]
    assert ("rb", "FAILED", "Resource CREATE failed: ValueError: resources.b: "
            "Test Resource failed b") in events


def test_failed_create_without_rollback(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=2)
    sid = h.create("bad", tmpl({"a": res("x"), "b": res(fail=True, depends_on="a")}))
    h.run()
    status, reason, states, _ = outcome(h, sid)
    assert status == "CREATE_FAILED"
    assert reason == "Resource CREATE failed: ValueError: resources.b: Test Resource failed b"
    assert states == {"a": "CREATE_COMPLETE", "b": "CREATE_FAILED"}
    settled(h, sid, engine)


def test_suspend_resume_check_and_snapshot(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=6)
    sid = h.create("acts", chain(3, "v"))
    h.run()
    admin = {**CTXT, "is_admin": True}
    for method, state in (("stack_suspend", "SUSPEND_COMPLETE"),
                          ("stack_resume", "RESUME_COMPLETE"),
                          ("stack_check", "CHECK_COMPLETE")):
        getattr(h.service, method)(admin, sid)
        h.run()
        assert h.status(sid) == state
        assert set(h.resource_states(sid).values()) == {state}
        settled(h, sid, engine)
    snapshot = h.service.stack_snapshot(admin, sid, "snap")
    h.run()
    assert h.status(sid) == "SNAPSHOT_COMPLETE"
    shown = h.service.show_snapshot(admin, sid, snapshot["id"])
    assert shown["status"] == "COMPLETE"
    assert sorted(shown["data"]["resources"]) == ["r0", "r1", "r2"]
    settled(h, sid, engine)
    h.update(sid, chain(3, "w"))
    h.run()
    h.service.stack_restore(admin, sid, snapshot["id"])
    h.run()
    assert h.status(sid) == "RESTORE_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"v"}
    settled(h, sid, engine)


def slow_chain(value: str) -> dict[str, Any]:
    """Five in a chain whose updates take 10 s each: an update is caught midway."""
    return tmpl({f"r{i}": res(value, depends_on=f"r{i - 1}" if i else None, wait_secs=10)
                 for i in range(5)})


def test_cancel_update_with_and_without_rollback(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=1)
    sid = h.create("cx", slow_chain("old"))
    h.run()
    h.update(sid, slow_chain("new"))
    h.transport.run_until_idle()
    h.run_legacy()  # r0's update waits (parked)
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    h.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=True)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"old"}
    settled(h, sid, engine)
    h.update(sid, slow_chain("new"))
    h.transport.run_until_idle()
    h.run_legacy()
    h.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=False)
    h.run()
    view = h.stack(sid)
    said = "Stack UPDATE cancelled" if engine == "convergence" else "Operation cancelled"
    assert (h.status(sid), view["stack_status_reason"]) == ("UPDATE_FAILED", said)
    assert [row.properties_data["value"] for row in sorted(h.rows(sid), key=lambda r: r.name)
            ] == ["new", "old", "old", "old", "old"]  # r0 finished; the rest never began
    settled(h, sid, engine)


def test_delete_during_create(tmp_path, engine) -> None:
    h = harness(tmp_path, engine, seed=8)
    sid = h.create("dd", tmpl({"slow": res("s", wait_secs=30), "b": res("b")}))
    h.step(2)
    h.run_legacy()
    h.delete(sid)
    h.run()
    assert h.store.get_stack(StackId(sid)) is None
    assert h.rows(sid) == []
    assert h.store.stack_lock_holder(StackId(sid)) is None


def test_a_second_operation_waits_for_the_lock(tmp_path) -> None:
    """Heat's rule for a legacy stack: an update while another operation holds the lock
    is refused with 409 (ActionInProgress), where convergence would take it over."""
    h = harness(tmp_path, "legacy")
    sid = h.create("busy", chain(3, "v1"))
    with pytest.raises(ActionInProgress):
        h.update(sid, chain(3, "v2"))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    h.update(sid, chain(3, "v2"))  # the lock was released: now it goes
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"v2"}


def test_nested_stacks_with_real_threads(tmp_path, engine) -> None:
    """A template resource's child stack inherits the engine's kind (Heat's rule), and
    parent and child each run in their own thread, the parent waiting on the child."""
    from hotplate.app import embedded

    from .test_nested import INNER, children, outer
    from .test_threaded import wait_for

    served, transport = embedded(f"sqlite:///{tmp_path}/n.sqlite", workers=4,
                                 options=EngineOptions(convergence_engine=ENGINES[engine]))
    try:
        service, store = served.service, served.store

        def unlocked(sid: str) -> bool:
            stack = store.get_stack(StackId(sid), include_deleted=True)
            return (stack.status != "IN_PROGRESS"
                    and store.stack_lock_holder(StackId(sid)) is None)

        files = {"inner.yaml": INNER}
        sid = service.create_stack(CTXT, "p", outer(names=["a"]), {}, files, {})["stack_id"]
        wait_for(lambda: unlocked(sid))
        [child] = children(served, sid)
        assert child.convergence is ENGINES[engine]
        wait_for(lambda: unlocked(child.id))
        view = service.show_stack(CTXT, sid, resolve_outputs=True)[0]
        assert (view["stack_action"], view["stack_status"]) == ("CREATE", "COMPLETE")
        assert {o["output_key"]: o["output_value"] for o in view["outputs"]}["said"] == "hi a"
        service.update_stack(CTXT, sid, outer(names=["z"]), {}, files, {})
        wait_for(lambda: unlocked(sid) and unlocked(child.id))
        view = service.show_stack(CTXT, sid, resolve_outputs=True)[0]
        assert (view["stack_action"], view["stack_status"]) == ("UPDATE", "COMPLETE")
        assert {o["output_key"]: o["output_value"] for o in view["outputs"]}["said"] == "hi z"
        service.delete_stack(CTXT, sid)
        wait_for(lambda: unlocked(sid) and unlocked(child.id))
        gone = store.get_stack(child.id, include_deleted=True)
        assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
        assert store.get_stack(StackId(sid)) is None
    finally:
        served.stop()
        transport.stop()


def test_cancel_without_rollback_of_a_stack_that_rolls_back(tmp_path, engine) -> None:
    """Heat's legacy engine rolls back after any cancel of a stack whose rollback is
    enabled (its update task: ``with_rollback or not disable_rollback``); its convergence
    engine only stops the traversal."""
    h = harness(tmp_path, engine, seed=9)
    sid = h.create("cxr", slow_chain("old"))
    h.run()
    h.update(sid, slow_chain("new"), disable_rollback=False)
    h.transport.run_until_idle()
    h.run_legacy()
    h.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=False)
    h.run()
    if engine == "legacy":
        assert (h.status(sid), h.stack(sid)["stack_status_reason"]) == (
            "ROLLBACK_COMPLETE", "Stack ROLLBACK completed successfully")
        assert {row.properties_data["value"] for row in h.rows(sid)} == {"old"}
    else:
        assert (h.status(sid), h.stack(sid)["stack_status_reason"]) == (
            "UPDATE_FAILED", "Stack UPDATE cancelled")
    settled(h, sid, engine)


def test_cancel_of_a_create_says_each_engines_text(tmp_path, engine) -> None:
    """Heat's legacy create fails a cancel as it fails a resource's failure."""
    h = harness(tmp_path, engine, seed=10)
    sid = h.create("cxc", slow_chain("new"))
    h.transport.run_until_idle()
    h.run_legacy()  # r0's create waits (parked)
    h.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=False)
    h.run()
    said = {"convergence": "Stack CREATE cancelled",
            "legacy": "Resource CREATE failed: Operation cancelled"}[engine]
    assert (h.status(sid), h.stack(sid)["stack_status_reason"]) == ("CREATE_FAILED", said)
    settled(h, sid, engine)
