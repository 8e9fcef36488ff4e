"""The embedded engine with real threads and the real clock."""

from __future__ import annotations

import threading
import time

from hotplate.app import embedded

from .templates import chain, res, tmpl

CTXT = {"project_id": "demo", "username": "demo", "is_admin": False}


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


def settled(engine, sid):
    stack = engine.store.get_stack(sid, include_deleted=True)
    return stack.status != "IN_PROGRESS"


def test_create_update_delete_with_threads(tmp_path) -> None:
    baseline = threading.active_count()
    engine, transport = embedded(f"sqlite:///{tmp_path}/t.sqlite", workers=8)
    try:
        sid = engine.service.create_stack(CTXT, "t", chain(20, "a"), {}, {}, {})["stack_id"]
        wait_for(lambda: settled(engine, sid))
        assert engine.store.get_stack(sid).status == "COMPLETE"
        engine.service.update_stack(CTXT, sid, chain(20, "b"), {}, {}, {})
        wait_for(lambda: settled(engine, sid))
        stack = engine.store.get_stack(sid)
        assert (stack.action, stack.status) == ("UPDATE", "COMPLETE")
        engine.service.delete_stack(CTXT, sid)
        wait_for(lambda: settled(engine, sid))
        stack = engine.store.get_stack(sid, include_deleted=True)
        assert (stack.action, stack.status) == ("DELETE", "COMPLETE")
        assert stack.deleted_at is not None
    finally:
        engine.stop()  # its report timer
        transport.stop()
    wait_for(lambda: threading.active_count() <= baseline, timeout=10)


def test_delete_cancels_running_workers(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/t.sqlite", workers=4)
    try:
        body = tmpl({"slow": res(action_wait_secs={"create": 60}), "quick": res()})
        sid = engine.service.create_stack(CTXT, "c", body, {}, {}, {})["stack_id"]
        wait_for(lambda: any(r.engine_id for r in engine.store.list_resources(sid)))
        started = time.monotonic()
        engine.service.delete_stack(CTXT, sid)
        wait_for(lambda: settled(engine, sid))
        assert time.monotonic() - started < 20
        stack = engine.store.get_stack(sid, include_deleted=True)
        assert (stack.action, stack.status) == ("DELETE", "COMPLETE")
        events = engine.service.list_events({**CTXT, "is_admin": True}, sid)
        aborted = [e for e in events if e["resource_name"] == "slow"
                   and e["resource_status"] == "FAILED"]
        assert aborted and aborted[0]["resource_status_reason"].startswith("CREATE aborted")
        reasons = [e["resource_status_reason"] for e in events if e["resource_name"] == "c"]
        assert "Stack CREATE cancelled" in reasons
    finally:
        engine.stop()
        transport.stop()


def test_waiting_plugins_run_concurrently_on_sqlite(tmp_path) -> None:
    """SQLite engines do bookkeeping one worker at a time, but plugins wait in parallel."""
    engine, transport = embedded(f"sqlite:///{tmp_path}/t.sqlite", workers=8)
    try:
        body = tmpl({f"slow{i}": res(action_wait_secs={"create": 2}) for i in range(4)})
        started = time.monotonic()
        sid = engine.service.create_stack(CTXT, "par", body, {}, {}, {})["stack_id"]
        wait_for(lambda: settled(engine, sid))
        elapsed = time.monotonic() - started
        assert engine.store.get_stack(sid).status == "COMPLETE"
        assert elapsed < 6.0, f"four 2 s waits took {elapsed:.1f} s: they ran one by one"
    finally:
        engine.stop()
        transport.stop()
