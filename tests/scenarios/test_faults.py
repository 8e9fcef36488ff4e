"""Timeouts, deletes during creates, re-delivered and stale messages."""

from __future__ import annotations

import pytest

from .harness import Harness
from .templates import app_stack, chain, res, tmpl


def test_stack_timeout(tmp_path) -> None:
    h = Harness(tmp_path)
    sid = h.create("slow", tmpl({"fast": res(),
                                 "slow": res(wait_secs=600)}), timeout_mins=1)
    h.run()
    view = h.stack(sid)
    assert (view["stack_action"], view["stack_status"]) == ("CREATE", "FAILED")
    assert view["stack_status_reason"] == "Timed out"
    slow = h.resources(sid)["slow"]
    assert slow["resource_status"] == "FAILED"
    assert "aborted" in slow["resource_status_reason"]


def test_delete_while_create_runs(tmp_path) -> None:
    h = Harness(tmp_path, seed=6)
    sid = h.create("half", chain(6))
    h.step(5)
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    assert h.rows(sid) == []
    counts = h.event_counts(sid)
    for i in range(6):
        assert counts[(f"r{i}", "CREATE_COMPLETE")] == counts[(f"r{i}", "DELETE_COMPLETE")]


@pytest.mark.parametrize("seed", range(6))
def test_duplicated_messages_change_nothing(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed, duplicate_rate=0.3)
    sid = h.create("dup", app_stack("x", extra={"more": res(depends_on="web")}))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    counts = h.event_counts(sid)
    for name in ("db", "app", "web", "more"):
        assert counts[(name, "CREATE_COMPLETE")] == 1
    h.update(sid, app_stack("y", extra={"more": res(depends_on="web")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    counts = h.event_counts(sid)
    for name in ("db", "app", "web"):
        assert counts[(name, "UPDATE_COMPLETE")] == 1
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    counts = h.event_counts(sid)
    for name in ("db", "app", "web", "more"):
        assert counts[(name, "DELETE_COMPLETE")] == 1


def test_stale_message_of_old_traversal_is_ignored(tmp_path) -> None:
    h = Harness(tmp_path, seed=2)
    sid = h.create("stale", chain(3, "a"))
    h.run()
    old = h.store.get_stack(sid).current_traversal
    h.update(sid, chain(3, "b"))
    h.run()
    first = h.store.list_resources(sid)[0]
    before = h.event_counts(sid)
    h.engine.worker.check_resource({}, first.id, old, {}, True)
    h.run()
    assert h.event_counts(sid) == before
    assert h.status(sid) == "UPDATE_COMPLETE"
