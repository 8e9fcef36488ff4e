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


def test_lock_left_by_a_dead_engine_is_stolen(tmp_path) -> None:
    """An engine died mid-create: its lock stays until a new traversal finds it dead."""
    h = Harness(tmp_path, seed=8)
    sid = h.create("orphan", chain(3, "a"))
    h.run()
    victim = next(r for r in h.rows(sid) if r.name == "r1")
    # What a crashed engine leaves behind: the row locked by an engine that
    # no longer answers the liveness probe, stuck IN_PROGRESS.
    assert h.store.acquire_resource(
        victim.id, "dead-engine", victim.atomic_key,
        {"action": "UPDATE", "status": "IN_PROGRESS", "status_reason": "state changed"},
    )
    h.update(sid, chain(3, "b"))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    reasons = [e["resource_status_reason"] for e in h.events(sid) if e["resource_name"] == "r1"]
    assert "Worker went down during resource UPDATE" in reasons
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"b"}
    assert not any(r.engine_id for r in h.rows(sid))


def test_held_messages_of_a_superseded_traversal_hand_over(tmp_path) -> None:
    h = Harness(tmp_path, seed=12)
    sid = h.create("held", chain(4, "a"))
    h.run()
    h.update(sid, chain(4, "b"))

    def checks(message) -> bool:
        return message.method == "check_resource"

    h.transport.hold(checks)  # the first update's workers are late...
    h.update(sid, chain(4, "c"))  # ...and a second update supersedes it
    assert h.transport.pending()
    h.transport.release(checks)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert {row.properties_data["value"] for row in h.rows(sid)} == {"c"}


def test_an_unexpected_error_fails_the_stack_and_frees_the_lock(tmp_path) -> None:
    from hotplate.resources.none import NoneResource
    from hotplate.resources.registry import Registry

    class Broken(NoneResource):
        def get_reference_id(self) -> str:
            raise RuntimeError("reference lookup exploded")

    registry = Registry.with_extra({"Test::Broken": Broken})
    h = Harness(tmp_path, registry=registry)
    sid = h.create("boom", tmpl({"ok": res(), "bad": {"type": "Test::Broken"}}))
    h.run()
    view = h.stack(sid)
    assert (view["stack_action"], view["stack_status"]) == ("CREATE", "FAILED")
    assert "reference lookup exploded" in view["stack_status_reason"]
    assert not any(r.engine_id for r in h.rows(sid))
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
