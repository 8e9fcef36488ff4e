"""Snapshots with plugins that take part: what ``handle_snapshot`` keeps reaches the
snapshot, ``handle_restore`` rewrites its resource's definition, ``handle_delete_snapshot``
gets its part back; and each failure ends where Heat ends it (the snapshot FAILED with
the stack's reason, a snapshot's deletion DELETE_FAILED and asked again, a stack's
delete "Snapshot deletion failed: ...")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import NotSupported
from hotplate.resources.registry import Registry
from hotplate.resources.test_resource import TestResource

from .harness import CTXT, Harness
from .templates import res, tmpl

DELETED: list[dict[str, Any]] = []
"""The parts ``handle_delete_snapshot`` was given, in order."""
LOCKED = {"keep-forever"}
"""Saved values whose part refuses to be deleted."""


class Saving(TestResource):
    """Saves its value in its snapshot part; restores it; refuses on ``boom``."""

    def handle_snapshot(self) -> str:
        if self.properties["value"] == "boom":
            raise RuntimeError("the disk would not freeze")
        self.data_set("saved", str(self.properties["value"]))
        return "saved"

    def check_snapshot_complete(self, data: Any) -> bool:
        return data == "saved"

    def handle_delete_snapshot(self, snapshot: Mapping[str, Any]) -> None:
        if snapshot["resource_data"]["saved"] in LOCKED:
            raise RuntimeError("the backup is locked")
        DELETED.append(dict(snapshot))

    def handle_restore(self, definition: dict[str, Any],
                       part: Mapping[str, Any]) -> dict[str, Any]:
        saved = part["resource_data"]["saved"]
        return {**definition, "properties": {**definition["properties"],
                                             "value": f"restored {saved}"}}


REGISTRY = Registry.with_extra({"OS::Heat::TestResource": Saving})


def _snapshot(h: Harness, sid: str) -> dict[str, Any]:
    taken = h.service.stack_snapshot(CTXT, sid, "s")
    h.run()
    shown: dict[str, Any] = h.service.show_snapshot(CTXT, sid, taken["id"])
    return shown


def test_a_plugins_part_is_kept_and_restored(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=1, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("one"), "b": res("two", depends_on="a")}))
    h.run()
    snapshot = _snapshot(h, sid)
    assert snapshot["status"] == "COMPLETE"
    assert snapshot["data"]["resources"]["a"]["resource_data"]["saved"] == "one"
    h.update(sid, tmpl({"a": res("three"), "b": res("four", depends_on="a")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    h.service.stack_restore(CTXT, sid, snapshot["id"])
    h.run()
    assert h.status(sid) == "RESTORE_COMPLETE"
    assert {row.name: row.properties_data["value"] for row in h.rows(sid)} == {
        "a": "restored one", "b": "restored two"}


def test_a_failed_snapshot_fails_the_stack_and_the_snapshot(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=2, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("boom")}))
    h.run()
    snapshot = _snapshot(h, sid)
    reason = "Resource SNAPSHOT failed: RuntimeError: resources.a: the disk would not freeze"
    assert (h.status(sid), h.stack(sid)["stack_status_reason"]) == ("SNAPSHOT_FAILED", reason)
    assert (snapshot["action"], snapshot["status"], snapshot["status_reason"]) == (
        "CREATE", "FAILED", reason)
    try:
        h.service.stack_restore(CTXT, sid, snapshot["id"])
    except NotSupported as exc:
        assert str(exc) == "Restoring incomplete snapshot is not supported."
    else:
        raise AssertionError("a failed snapshot was restored")


def test_deleting_a_snapshot_hands_each_part_back_and_can_be_asked_again(
        tmp_path: Any) -> None:
    DELETED.clear()
    h = Harness(tmp_path, seed=3, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("keep-forever")}))
    h.run()
    snapshot = _snapshot(h, sid)
    h.service.delete_snapshot(CTXT, sid, snapshot["id"])
    h.run()
    failed = h.service.show_snapshot(CTXT, sid, snapshot["id"])
    assert (failed["action"], failed["status"], failed["status_reason"]) == (
        "DELETE", "FAILED", "the backup is locked")
    LOCKED.clear()
    try:
        h.service.delete_snapshot(CTXT, sid, snapshot["id"])
        h.run()
    finally:
        LOCKED.add("keep-forever")
    assert h.service.stack_list_snapshots(CTXT, sid) == []
    assert [part["resource_data"]["saved"] for part in DELETED] == ["keep-forever"]


def test_a_snapshot_that_cannot_be_deleted_fails_the_stacks_delete(tmp_path: Any) -> None:
    h = Harness(tmp_path, seed=4, registry=REGISTRY)
    sid = h.create("s", tmpl({"a": res("keep-forever")}))
    h.run()
    _snapshot(h, sid)
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_FAILED"
    assert h.stack(sid)["stack_status_reason"] == (
        "Snapshot deletion failed: the backup is locked")
    assert len(h.service.stack_list_snapshots(CTXT, sid)) == 1
