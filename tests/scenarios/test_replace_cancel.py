"""A replacement cancelled part-way, rolled back, then updated again or deleted.

An update replaces ``a`` while its dependant ``b`` still has to update; the
update is cancelled (with rollback) once the new ``a`` exists. The rollback
deletes the new row and deletes the template it rolled back from, and on
SQLite the next template stored takes that template's id again: a delete
that then sees the old parse under its empty template's id either waits
for ever or updates the stack instead of deleting it.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import Harness
from .templates import res, tmpl

CANCEL = {"project_id": "demo"}


def pair(a_value: str, b_value: str, **a_props: Any) -> dict[str, Any]:
    return tmpl({"a": res(a_value, **a_props),
                 "b": res(b_value, depends_on="a", action_wait_secs={"update": 5})})


REPLACING = {
    "property": (pair("a", "b1", update_replace_value="1"),
                 pair("a", "b2", update_replace_value="2")),
    "requested": (pair("a1", "b1", update_replace=True),
                  pair("a2", "b2", update_replace=True)),
}


def cancelled_replacement(h: Harness, name: str, how: str) -> str:
    """Create, start the replacing update, cancel it once the new ``a`` is created."""
    before, after = REPLACING[how]
    sid = h.create(name, before, disable_rollback=False)
    h.run()
    old_a = next(r for r in h.rows(sid) if r.name == "a")
    b_id = next(r.id for r in h.rows(sid) if r.name == "b")

    def b_update(message: Any) -> bool:
        return (message.method == "check_resource"
                and message.kwargs["resource_id"] == int(b_id))

    h.transport.hold(b_update)
    h.update(sid, after)
    h.run()
    new_a = [r for r in h.rows(sid) if r.name == "a" and r.id != old_a.id]
    assert [(r.action, r.status, r.replaces) for r in new_a] == [
        ("CREATE", "COMPLETE", old_a.id)]
    assert h.status(sid) == "UPDATE_IN_PROGRESS"
    h.service.stack_cancel_update(CANCEL, sid, cancel_with_rollback=True)
    h.transport.release(b_update)
    h.run()
    assert h.status(sid) == "ROLLBACK_COMPLETE"
    rows = h.rows(sid)
    assert [r.id for r in rows if r.name == "a"] == [old_a.id]
    assert {r.name: r.properties_data["value"] for r in rows}["b"] == "b1"
    return sid


@pytest.mark.parametrize("how", sorted(REPLACING))
def test_delete_after_a_cancelled_replacement(tmp_path, how) -> None:
    h = Harness(tmp_path, seed=3)
    sid = cancelled_replacement(h, "rb", how)
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    assert h.rows(sid) == []
    assert h.resources(sid) == {}


def test_delete_of_another_stack_after_a_cancelled_replacement(tmp_path) -> None:
    h = Harness(tmp_path, seed=4)
    other = h.create("other", tmpl({"a": res("x")}))
    h.run()
    cancelled_replacement(h, "rb", "requested")
    h.delete(other)
    h.run()
    assert h.status(other) == "DELETE_COMPLETE"
    assert h.rows(other) == []


@pytest.mark.parametrize("how", sorted(REPLACING))
def test_update_after_a_cancelled_replacement(tmp_path, how) -> None:
    h = Harness(tmp_path, seed=5)
    sid = cancelled_replacement(h, "ru", how)
    [kept] = [r for r in h.rows(sid) if r.name == "a"]
    assert kept.replaced_by is None  # the rollback took the old row back
    h.update(sid, pair("a9", "b9"))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert {r.name: r.properties_data["value"] for r in h.rows(sid)} == {"a": "a9", "b": "b9"}


def test_manual_rollback_after_a_failed_replacement_keeps_the_original(tmp_path) -> None:
    # Heat's test_stack_update_replace_manual_rollback: the replacement fails, and
    # an update back to the first template takes the original row back.
    h = Harness(tmp_path, seed=6)
    first = tmpl({"test1": res("v", update_replace_value="1")})
    sid = h.create("manual", first)
    h.run()
    original = h.resources(sid)["test1"]["physical_resource_id"]
    h.update(sid, tmpl({"test1": res("v", update_replace_value="2", fail=True)}),
             disable_rollback=True)
    h.run()
    assert h.status(sid) == "UPDATE_FAILED"
    h.update(sid, first)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert h.resources(sid)["test1"]["physical_resource_id"] == original
    assert [(r.physical_resource_id, r.replaced_by) for r in h.rows(sid)] == [(original, None)]


def resource_events(h: Harness, sid: str, name: str) -> list[tuple[str, str, str, str]]:
    return [(e["resource_action"], e["resource_status"], e["resource_status_reason"],
             e["physical_resource_id"]) for e in h.events(sid) if e["resource_name"] == name]


@pytest.mark.parametrize("how", sorted(REPLACING))
def test_the_replaced_resource_records_that_it_needs_replacement(tmp_path, how) -> None:
    h = Harness(tmp_path, seed=7)
    before, after = REPLACING[how]
    sid = h.create("ev", before)
    h.run()
    old = h.resources(sid)["a"]["physical_resource_id"]
    h.update(sid, after)
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    new = h.resources(sid)["a"]["physical_resource_id"]
    # Heat names the resource alone when a property cannot be updated, and prints
    # the resource when the type's needs_replace_with_prop_diff asks for it.
    reason = {"property": "The Resource a requires replacement.",
              "requested": f'The Resource TestResource "a" [{old}] Stack "ev" [{sid}] '
                           "requires replacement."}[how]
    assert resource_events(h, sid, "a") == [
        ("CREATE", "IN_PROGRESS", "state changed", ""),
        ("CREATE", "COMPLETE", "state changed", old),
        ("UPDATE", "IN_PROGRESS", "state changed", old),
        ("UPDATE", "COMPLETE", reason, old),
        ("CREATE", "IN_PROGRESS", "state changed", ""),
        ("CREATE", "COMPLETE", "state changed", new),
        ("DELETE", "IN_PROGRESS", "state changed", old),
        ("DELETE", "COMPLETE", "state changed", old),
    ]


def test_a_failed_row_is_replaced_without_an_update_event(tmp_path) -> None:
    # Heat replaces a FAILED resource before recording any update of it.
    h = Harness(tmp_path, seed=8)
    sid = h.create("failed", tmpl({"a": res("v", fail=True)}))
    h.run()
    assert h.status(sid) == "CREATE_FAILED"
    h.update(sid, tmpl({"a": res("v")}))
    h.run()
    assert h.status(sid) == "UPDATE_COMPLETE"
    assert [(action, status) for action, status, _, _ in resource_events(h, sid, "a")] == [
        ("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED"),
        ("CREATE", "IN_PROGRESS"), ("CREATE", "COMPLETE"),
        ("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE"),
    ]
