"""Stack snapshots through python-heatclient: take, show, list, restore, delete, and a
stack's delete taking its snapshots with it; Heat's statuses, texts and errors."""

from __future__ import annotations

import time
from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, output_values, wait_status


def _template(length: int = 8, value: str = "one") -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "parameters": {"value": {"type": "string", "default": value}},
        "resources": {
            "secret": {"type": "OS::Heat::RandomString", "properties": {"length": length}},
            "kept": {"type": "OS::Heat::TestResource",
                     "properties": {"value": {"get_param": "value"}}},
            "after": {"type": "OS::Heat::Value",
                      "properties": {"value": {"get_attr": ["kept", "output"]}}},
        },
        "outputs": {"value": {"value": {"get_attr": ["after", "value"]}}},
    }


def _created(hc: Any, name: str, template: dict[str, Any], **fields: Any) -> str:
    stack_id = str(hc.stacks.create(stack_name=name, template=template, **fields)["stack"]["id"])
    assert wait_status(hc, name).stack_status == "CREATE_COMPLETE"
    return stack_id


def _wait_snapshot(hc: Any, stack: str, snapshot_id: str, *, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = hc.stacks.snapshot_show(stack, snapshot_id)["snapshot"]
        if found["status"] != "IN_PROGRESS" or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _wait_gone(hc: Any, stack: str, snapshot_id: str, *, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if snapshot_id not in [s["id"] for s in hc.stacks.snapshot_list(stack)["snapshots"]]:
            return
        time.sleep(0.05)
    raise AssertionError(f"snapshot {snapshot_id} still listed")


def test_a_snapshot_records_the_stack_and_each_resource(hc: Any) -> None:
    stack_id = _created(hc, "snap-snapped", _template())
    taken = hc.stacks.snapshot(stack_id, name="first")
    assert taken["name"] == "first"
    assert (taken["action"], taken["status"]) == ("CREATE", "IN_PROGRESS")
    assert taken["data"]["resources"] == {}
    assert taken["data"]["template"]["resources"]["secret"]["type"] == "OS::Heat::RandomString"

    done = _wait_snapshot(hc, stack_id, taken["id"])
    assert (done["action"], done["status"]) == ("CREATE", "COMPLETE")
    assert done["status_reason"] == "Stack SNAPSHOT completed successfully"
    stack = wait_status(hc, stack_id)
    assert (stack.stack_status, stack.stack_status_reason) == (
        "SNAPSHOT_COMPLETE", "Stack SNAPSHOT completed successfully")
    data = done["data"]
    assert (data["action"], data["status"]) == ("SNAPSHOT", "COMPLETE")
    assert data["id"] == stack_id and data["name"] == "snap-snapped"
    assert set(data["resources"]) == {"secret", "kept", "after"}
    secret = data["resources"]["secret"]
    assert secret["type"] == "OS::Heat::RandomString"
    assert (secret["action"], secret["status"]) == ("SNAPSHOT", "COMPLETE")
    assert secret["resource_id"] == hc.resources.get(stack_id, "secret").physical_resource_id
    assert secret["resource_data"]["value"]  # the random value itself, as Heat keeps it
    for name in ("secret", "kept", "after"):
        statuses = [e.resource_status for e in hc.events.list(
            stack_id, resource_name=name, sort_dir="asc")]
        assert statuses[-2:] == ["SNAPSHOT_IN_PROGRESS", "SNAPSHOT_COMPLETE"]

    listed = hc.stacks.snapshot_list(stack_id)["snapshots"]
    assert [(s["id"], s["name"], s["status"]) for s in listed] == [
        (taken["id"], "first", "COMPLETE")]
    assert listed[0]["data"]["resources"]["kept"]["type"] == "OS::Heat::TestResource"


def test_a_restore_converges_back_to_the_snapshot(hc: Any) -> None:
    stack_id = _created(hc, "snap-restored", _template(value="before"))
    snapshot_id = hc.stacks.snapshot(stack_id)["id"]
    assert _wait_snapshot(hc, stack_id, snapshot_id)["status"] == "COMPLETE"
    hc.stacks.update(stack_id, template=_template(length=12),
                     parameters={"value": "after"})
    updated = wait_status(hc, stack_id)
    assert updated.stack_status == "UPDATE_COMPLETE"
    assert output_values(updated)["value"] == "after"

    hc.stacks.restore(stack_id, snapshot_id)
    restored = wait_status(hc, stack_id)
    assert (restored.stack_status, restored.stack_status_reason) == (
        "RESTORE_COMPLETE", "Stack RESTORE completed successfully")
    assert output_values(restored)["value"] == "before"
    assert hc.stacks.template(stack_id)["resources"]["secret"]["properties"] == {"length": 8}
    assert len(hc.resources.get(stack_id, "secret").attributes["value"]) == 8
    # the snapshot is kept, and can be restored again
    assert [s["id"] for s in hc.stacks.snapshot_list(stack_id)["snapshots"]] == [snapshot_id]


def test_deleting_a_snapshot_and_the_errors_heat_gives(hc: Any) -> None:
    stack_id = _created(hc, "snap-tidied", _template())
    with pytest.raises(exc.HTTPNotFound) as missing:
        hc.stacks.snapshot_show(stack_id, "no-such-snapshot")
    assert ("The Snapshot (no-such-snapshot) for Stack (snap-tidied) could not be found."
            in str(missing.value))
    snapshot_id = hc.stacks.snapshot(stack_id)["id"]
    assert _wait_snapshot(hc, stack_id, snapshot_id)["status"] == "COMPLETE"

    hc.stacks.snapshot_delete(stack_id, snapshot_id)
    _wait_gone(hc, stack_id, snapshot_id)
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.restore(stack_id, snapshot_id)
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.snapshot_delete(stack_id, snapshot_id)


def test_a_busy_stack_takes_no_snapshot(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {"slow": {
        "type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"create": 5}}}}}
    stack_id = str(hc.stacks.create(stack_name="snap-busy", template=template)["stack"]["id"])
    with pytest.raises(exc.HTTPConflict) as busy:
        hc.stacks.snapshot(stack_id)
    assert "Stack snap-busy already has an action (CREATE) in progress." in str(busy.value)
    assert hc.stacks.snapshot_list(stack_id)["snapshots"] == []
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"


def test_deleting_a_stack_deletes_its_snapshots(hc: Any) -> None:
    stack_id = _created(hc, "snap-gone", _template())
    snapshot_id = hc.stacks.snapshot(stack_id)["id"]
    assert _wait_snapshot(hc, stack_id, snapshot_id)["status"] == "COMPLETE"
    hc.stacks.delete(stack_id)
    deleted = wait_status(hc, stack_id)
    assert deleted.stack_status == "DELETE_COMPLETE"
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.snapshot_list(stack_id)


def _child(value: str) -> str:
    return ("heat_template_version: 2021-04-16\n"
            "resources:\n"
            "  inner:\n"
            "    type: OS::Heat::Value\n"
            f"    properties: {{value: {value}}}\n"
            "outputs:\n"
            "  out: {value: {get_attr: [inner, value]}}\n")


def _parent(value: str) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": {"child": {
        "type": "OS::Heat::Stack", "properties": {"template": _child(value)}}},
        "outputs": {"out": {"value": {"get_attr": ["child", "outputs", "out"]}}}}


def test_a_heat_stack_resource_snapshots_its_stack_and_restores_its_template(
        hc: Any) -> None:
    stack_id = _created(hc, "snap-parent", _parent("first"))
    snapshot_id = hc.stacks.snapshot(stack_id)["id"]
    done = _wait_snapshot(hc, stack_id, snapshot_id)
    assert done["status"] == "COMPLETE", done
    child_id = hc.resources.get(stack_id, "child").physical_resource_id
    child_snapshot = done["data"]["resources"]["child"]["resource_data"]["snapshot_id"]
    shown = hc.stacks.snapshot_show(child_id, child_snapshot)["snapshot"]
    assert shown["status"] == "COMPLETE"
    assert shown["data"]["template"]["resources"]["inner"]["properties"] == {"value": "first"}

    hc.stacks.update(stack_id, template=_parent("second"))
    assert output_values(wait_status(hc, stack_id))["out"] == "second"
    hc.stacks.restore(stack_id, snapshot_id)
    restored = wait_status(hc, stack_id)
    assert restored.stack_status == "RESTORE_COMPLETE", restored.stack_status_reason
    assert output_values(restored)["out"] == "first"
    assert hc.resources.get(stack_id, "child").physical_resource_id == child_id
