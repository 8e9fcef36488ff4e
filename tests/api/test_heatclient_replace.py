"""Replacements through python-heatclient: the replaced resource's events, and an
update that replaces a resource, cancelled with rollback, then the stack deleted.

These drive a real server, as Heat's functional tests test_stack_cancel and
test_create_update do: ``b`` updates slowly after ``a`` is replaced, and the
update is cancelled once the new ``a`` is CREATE_COMPLETE.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, wait_status

B_UPDATE_SECS = 3


def pair(a_props: dict[str, Any], b_value: str) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": {
        "A": {"type": "OS::Heat::TestResource", "properties": a_props},
        "B": {"type": "OS::Heat::TestResource", "depends_on": ["A"],
              "properties": {"value": b_value,
                             "action_wait_secs": {"update": B_UPDATE_SECS}}},
    }}


REPLACING = {
    # update_replace_value cannot be updated: a new value needs a new resource.
    "property": (pair({"value": "a", "update_replace_value": "1"}, "b1"),
                 pair({"value": "a", "update_replace_value": "2"}, "b2")),
    # update_replace asks for a new resource when the value changes.
    "requested": (pair({"value": "a1", "update_replace": True}, "b1"),
                  pair({"value": "a2", "update_replace": True}, "b2")),
}


def _create(hc: Any, name: str, template: dict[str, Any]) -> str:
    sid = str(hc.stacks.create(stack_name=name, template=template,
                               disable_rollback=False)["stack"]["id"])
    assert wait_status(hc, sid).stack_status == "CREATE_COMPLETE"
    return sid


def _events(hc: Any, sid: str, name: str) -> list[Any]:
    return list(hc.events.list(sid, resource_name=name, sort_dir="asc"))


def _wait_for_replacement(hc: Any, sid: str, timeout: float = 20.0) -> None:
    """Until the new ``A`` is CREATE_COMPLETE (its second CREATE_COMPLETE event)."""
    deadline = time.monotonic() + timeout
    while True:
        created = [e for e in _events(hc, sid, "A") if e.resource_status == "CREATE_COMPLETE"]
        if len(created) == 2:
            return
        assert time.monotonic() < deadline, "the replacement was not created"
        time.sleep(0.05)


def _cancelled_replacement(hc: Any, name: str, how: str) -> str:
    before, after = REPLACING[how]
    sid = _create(hc, name, before)
    hc.stacks.update(sid, template=after)
    _wait_for_replacement(hc, sid)
    assert hc.stacks.get(sid).stack_status == "UPDATE_IN_PROGRESS"  # B still updating
    hc.actions.cancel_update(sid)
    assert wait_status(hc, sid, timeout=30).stack_status == "ROLLBACK_COMPLETE"
    return sid


def _delete(hc: Any, sid: str) -> None:
    hc.stacks.delete(sid)
    stack = wait_status(hc, sid, timeout=20)
    assert (stack.stack_status, stack.stack_status_reason) == (
        "DELETE_COMPLETE", "Stack DELETE completed successfully")


def _listed(hc: Any, sid: str) -> list[str]:
    try:
        return [f"{r.resource_name} {r.resource_status}" for r in hc.resources.list(sid)]
    except exc.HTTPNotFound:
        return []


@pytest.mark.parametrize("how", sorted(REPLACING))
def test_replaced_resource_records_that_it_needs_replacement(hc: Any, how: str) -> None:
    before, after = REPLACING[how]
    sid = _create(hc, f"replace-events-{how}", before)
    old = hc.resources.get(sid, "A").physical_resource_id
    hc.stacks.update(sid, template=after)
    assert wait_status(hc, sid, timeout=30).stack_status == "UPDATE_COMPLETE"
    assert hc.resources.get(sid, "A").physical_resource_id != old
    updates = [(e.resource_status, e.resource_status_reason, e.physical_resource_id)
               for e in _events(hc, sid, "A") if e.resource_status.startswith("UPDATE_")]
    reason = {"property": "The Resource A requires replacement.",
              "requested": f'The Resource TestResource "A" [{old}] '
                           f'Stack "replace-events-{how}" [{sid}] requires replacement.'}[how]
    assert updates == [("UPDATE_IN_PROGRESS", "state changed", old),
                       ("UPDATE_COMPLETE", reason, old)]
    _delete(hc, sid)


@pytest.mark.parametrize("how", sorted(REPLACING))
def test_delete_after_a_cancelled_replacement(hc: Any, how: str) -> None:
    sid = _cancelled_replacement(hc, f"replace-cancel-{how}", how)
    values = {r.resource_name: r.resource_status for r in hc.resources.list(sid)}
    assert set(values) == {"A", "B"}
    _delete(hc, sid)
    assert _listed(hc, sid) == []


def test_delete_of_another_stack_after_a_cancelled_replacement(hc: Any) -> None:
    other = _create(hc, "replace-bystander", pair({"value": "x"}, "y"))
    rolled = _cancelled_replacement(hc, "replace-cancel-first", "requested")
    _delete(hc, other)
    assert _listed(hc, other) == []
    _delete(hc, rolled)
    assert _listed(hc, rolled) == []


def test_update_after_a_cancelled_replacement(hc: Any) -> None:
    sid = _cancelled_replacement(hc, "replace-cancel-again", "property")
    hc.stacks.update(sid, template=pair({"value": "a", "update_replace_value": "3"}, "b3"))
    assert wait_status(hc, sid, timeout=30).stack_status == "UPDATE_COMPLETE"
    _delete(hc, sid)
