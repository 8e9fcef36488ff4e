"""prepare_for_replace and restore_prev_rsrc: called where Heat's convergence calls them.

A test plugin records each call (on which physical resource, with which
replacement) and, like a port, keeps a token in its resource data that the
hooks hand over.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hotplate.engine.worker.replacement_hooks import REPLACEMENT_ID_WAIT_SECS
from hotplate.resources.registry import Registry
from hotplate.resources.test_resource import TestResource

from .harness import Harness
from .templates import res, tmpl

calls: list[tuple[str, str | None, str | None]] = []
"""(hook, this resource's physical id, the replacement's physical id), of ``a`` only."""
FAIL_HOOKS: set[str] = set()


class HandingOver(TestResource):
    def prepare_for_replace(self) -> None:
        if self.name == "a":
            calls.append(("prepare", self.resource_id, None))
        if "prepare" in FAIL_HOOKS:
            raise RuntimeError("cannot hand over")
        self.data_set("handed_over", "yes")

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        assert convergence
        other = self.replacement
        if self.name == "a":
            calls.append(("restore", self.resource_id,
                          other.resource_id if other is not None else None))
        if "restore" in FAIL_HOOKS:
            raise RuntimeError("cannot take back")
        assert self.data().get("handed_over") == "yes"
        self.data_set("handed_over", "back")


REGISTRY = Registry.with_extra({"OS::Heat::TestResource": HandingOver})


@pytest.fixture(autouse=True)
def _clean() -> Any:
    calls.clear()
    FAIL_HOOKS.clear()
    yield
    calls.clear()
    FAIL_HOOKS.clear()


def _data(h: Harness, sid: str, name: str) -> dict[str, dict[str, str]]:
    return {str(r.physical_resource_id): h.store.get_resource_data(r.id)
            for r in h.rows(sid) if r.name == name}


def _physical(h: Harness, sid: str, name: str) -> str:
    return str(h.resources(sid)[name]["physical_resource_id"])


def test_not_called_on_create_update_in_place_or_delete(tmp_path) -> None:
    h = Harness(tmp_path, seed=1, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one")}))
    h.run()
    h.update(sid, tmpl({"a": res("two")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    h.delete(sid)
    h.run()
    assert calls == []


@pytest.mark.parametrize("seed", range(3))
def test_prepare_for_replace_before_the_replacement_is_made(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one", update_replace_value="x")}))
    h.run()
    old = _physical(h, sid, "a")
    h.update(sid, tmpl({"a": res("one", update_replace_value="y")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert calls == [("prepare", old, None)]
    assert _physical(h, sid, "a") != old


def test_prepare_when_handle_update_asks_for_replacement(tmp_path) -> None:
    h = Harness(tmp_path, seed=2, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one")}))
    h.run()
    old = _physical(h, sid, "a")
    h.update(sid, tmpl({"a": res("two", update_replace=True)}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert calls == [("prepare", old, None)]


def test_failing_prepare_fails_the_old_resource_and_makes_no_replacement(tmp_path) -> None:
    h = Harness(tmp_path, seed=3, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one", update_replace_value="x")}))
    h.run()
    FAIL_HOOKS.add("prepare")
    h.update(sid, tmpl({"a": res("one", update_replace_value="y")}))
    h.run()
    assert h.status(sid) == "UPDATE_FAILED"
    assert h.stack(sid)["stack_status_reason"] == (
        "Resource UPDATE failed: RuntimeError: resources.a: cannot hand over")
    assert h.resource_states(sid) == {"a": "UPDATE_FAILED"}
    assert len([r for r in h.rows(sid) if r.name == "a"]) == 1


FIRST = tmpl({"a": res("one", update_replace_value="x"), "b": res("b1", depends_on="a")})
FAILING = tmpl({"a": res("one", update_replace_value="y"),
                "b": res("b2", fail=True, depends_on="a")})
"""``b`` fails its update after ``a`` was replaced; it required the old ``a``, so the
old ``a`` stands until ``b`` moved on (it never does: the rollback takes ``a`` back)."""


@pytest.mark.parametrize("seed", range(3))
def test_rollback_after_a_replacement_restores_the_old_resource(tmp_path, seed) -> None:
    h = Harness(tmp_path, seed=seed, registry=REGISTRY)
    sid = h.create("s", FIRST)
    h.run()
    old = _physical(h, sid, "a")
    h.update(sid, FAILING, disable_rollback=False)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    assert _physical(h, sid, "a") == old
    assert [c[0] for c in calls] == ["prepare", "restore"]
    restore = calls[1]
    assert restore[1] == old and restore[2] not in (None, old)  # handed the replacement
    assert _data(h, sid, "a")[old]["handed_over"] == "back"


@pytest.mark.parametrize(("unsettled_reads", "sees_its_id"), [(3, True), (10_000, False)])
def test_a_restore_waits_for_the_id_of_a_replacement_still_being_made(
        tmp_path, monkeypatch: pytest.MonkeyPatch, unsettled_reads: int,
        sees_its_id: bool) -> None:
    """The replacement read as its cancelled create leaves it while the cloud has not
    answered yet: held by an engine, no physical id. The restore waits for the id,
    and goes on without it once the wait is over."""
    h = Harness(tmp_path, seed=4, registry=REGISTRY)
    sid = h.create("s", FIRST)
    h.run()
    old = _physical(h, sid, "a")
    h.update(sid, FAILING, disable_rollback=False)
    read = h.store.get_resource
    unsettled = {"left": unsettled_reads}

    def underway(resource_id: int) -> Any:
        found = read(resource_id)
        if found is not None and found.replaces is not None and unsettled["left"] > 0:
            unsettled["left"] -= 1
            return dataclasses.replace(found, physical_resource_id=None,
                                       engine_id="engine-elsewhere")
        return found

    monkeypatch.setattr(h.store, "get_resource", underway)
    before = h.clock.now()
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    (restore,) = [c for c in calls if c[0] == "restore"]
    assert restore[1] == old
    if sees_its_id:
        assert restore[2] not in (None, old)
    else:
        assert restore[2] is None
        assert (h.clock.now() - before).total_seconds() >= REPLACEMENT_ID_WAIT_SECS


def test_failing_restore_fails_the_rollback(tmp_path) -> None:
    h = Harness(tmp_path, seed=5, registry=REGISTRY)
    sid = h.create("s", FIRST)
    h.run()
    FAIL_HOOKS.add("restore")
    h.update(sid, FAILING, disable_rollback=False)
    h.run()
    assert h.status(sid) == "ROLLBACK_FAILED"
    assert h.stack(sid)["stack_status_reason"] == (
        "Resource UPDATE failed: RuntimeError: resources.a: cannot take back")
    old_row = next(r for r in h.rows(sid) if r.name == "a" and r.replaced_by is not None)
    assert (old_row.action, old_row.status) == ("UPDATE", "FAILED")


def test_no_restore_when_an_update_not_a_rollback_takes_the_old_resource_back(
        tmp_path) -> None:
    h = Harness(tmp_path, seed=6, registry=REGISTRY)
    sid = h.create("s", FIRST)
    h.run()
    old = _physical(h, sid, "a")
    h.update(sid, FAILING)
    h.run()
    assert h.status(sid) == "UPDATE_FAILED"
    h.update(sid, FIRST)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert "restore" not in [c[0] for c in calls]
    assert calls[0] == ("prepare", old, None)


def test_prepare_when_a_failed_resource_is_replaced(tmp_path) -> None:
    h = Harness(tmp_path, seed=7, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one", fail=True)}))
    h.run()
    assert h.status(sid) == "CREATE_FAILED"
    h.update(sid, tmpl({"a": res("one")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert [c[0] for c in calls] == ["prepare"]
