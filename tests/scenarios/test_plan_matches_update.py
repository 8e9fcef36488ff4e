"""The plan and the update agree: for random pairs of templates, what ``plan_update_stack``
says of each resource, and of each member of a ResourceGroup, is what the update then
does to its row; the update's truth is read from the rows and the events (``happened``),
not from the plan's code.

The templates use Heat-native types whose outcome is decided by the template
alone (no resource reads another's id or attribute: a preview resolves those
from what is stored, as Heat's does, and cannot know the values an update will
produce). A parameter, sometimes hidden, feeds some properties, and ``depends_on``
links the resources; the second template changes values, metadata, types,
parameters, a group's count and member definition, and drops and adds resources.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import CTXT, Harness
from .templates import tmpl

MEMBER_TYPES = ("OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::RandomString",
                "OS::Heat::Value")
GROUP = "OS::Heat::ResourceGroup"
TYPES = (*MEMBER_TYPES, GROUP)
WORDS = ("a", "b")


@st.composite
def properties(draw: st.DrawFn, kind: str) -> dict[str, Any] | None:
    word = draw(st.sampled_from([*WORDS, {"get_param": "word"}]))
    if kind == "OS::Heat::TestResource":
        return {"value": word, "update_replace": draw(st.booleans())}
    if kind == "OS::Heat::RandomString":
        return {"length": draw(st.sampled_from([4, 5]))}
    if kind == "OS::Heat::Value":
        return {"value": word}
    if kind == GROUP:
        member = draw(st.sampled_from(MEMBER_TYPES))
        definition: dict[str, Any] = {"type": member}
        given = draw(properties(member))
        if given is not None:
            definition["properties"] = given
        return {"count": draw(st.integers(min_value=0, max_value=3)),
                "resource_def": definition}
    # None takes and ignores anything
    return {"anything": word} if draw(st.booleans()) else None


@st.composite
def resource(draw: st.DrawFn, earlier: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(TYPES))
    found: dict[str, Any] = {"type": kind}
    given = draw(properties(kind))
    if given is not None:
        found["properties"] = given
    if draw(st.booleans()):
        found["metadata"] = {"tag": draw(st.sampled_from(WORDS))}
    needs = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)
                 if earlier else st.just([]))
    if needs:
        found["depends_on"] = needs
    return found


def parameters(hidden: bool, word: str) -> dict[str, Any]:
    return {"word": {"type": "string", "default": word, "hidden": hidden}}


@st.composite
def template_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    count = draw(st.integers(min_value=1, max_value=6))
    names = [f"r{i}" for i in range(count)]
    first = {name: draw(resource(names[:i])) for i, name in enumerate(names)}
    second: dict[str, Any] = {}
    for name, before in first.items():
        fate = draw(st.sampled_from(["keep", "redraw", "drop"]))
        if fate == "keep":
            second[name] = dict(before)
        elif fate == "redraw":
            second[name] = draw(resource(list(second)))
        if name in second:  # what it depends on must still be there
            needs = [n for n in second[name].get("depends_on", []) if n in second]
            second[name].pop("depends_on", None)
            if needs:
                second[name]["depends_on"] = needs
    for extra in range(draw(st.integers(min_value=0, max_value=2))):
        second[f"new{extra}"] = draw(resource(list(second)))
    if not second:
        second["new9"] = {"type": "OS::Heat::None"}
    hidden = draw(st.booleans())
    words = draw(st.sampled_from([("a", "a"), ("a", "b")]))
    return (tmpl(first, parameters=parameters(hidden, words[0])),
            tmpl(second, parameters=parameters(hidden, words[1])))


Tree = list[tuple[str, str, Any]]
"""Resources as (name, what happens, the same for the resources of its nested stack),
sorted: the plan's detail and the update's outcome in one comparable form."""


def planned(entries: list[dict[str, Any]]) -> Tree:
    return sorted((e["resource_name"], e["change"], planned(e.get("nested", [])))
                  for e in entries)


@dataclass(frozen=True)
class Snapshot:
    """A stack's current rows, each with the snapshot of the stack it owns, and how
    many events the stack had."""

    stack_id: str
    rows: dict[str, tuple[Any, Snapshot | None]]
    events: int


def snapshot(h: Harness, stack_id: str) -> Snapshot:
    rows = [r for r in h.rows(stack_id) if r.replaced_by is None]
    assert len({r.name for r in rows}) == len(rows), rows  # one current row per name
    found: dict[str, tuple[Any, Snapshot | None]] = {}
    for row in rows:
        owned = row.resource_type == GROUP and row.physical_resource_id
        found[row.name] = (row, snapshot(h, row.physical_resource_id) if owned else None)
    return Snapshot(stack_id, found, len(h.events(stack_id)))


def _all(snap: Snapshot | None, change: str) -> Tree:
    """Every resource of a nested stack made or taken away with its parent."""
    if snap is None:
        return []
    return sorted((name, change, _all(child, change))
                  for name, (_, child) in snap.rows.items())


def happened(h: Harness, before: Snapshot, after: Snapshot) -> Tree:
    """What the update did, from the rows before and after and its events:

    * added: a row that was not there; deleted: a row that is gone;
    * replaced: a new row under the same name (a new physical resource);
    * updated: the same row, with an UPDATE event from this update;
    * unchanged: the same row, and no event from this update.

    A resource's nested stack: made or taken away whole with a new or a gone
    row; the same stack, compared in turn."""
    events = h.events(after.stack_id)[before.events:]
    acted = {e["resource_name"] for e in events if e["resource_action"] == "UPDATE"}
    tree: Tree = []
    for name in before.rows.keys() | after.rows.keys():
        old, old_child = before.rows.get(name, (None, None))
        new, new_child = after.rows.get(name, (None, None))
        if new is None:
            tree.append((name, "deleted", _all(old_child, "deleted")))
        elif old is None:
            tree.append((name, "added", _all(new_child, "added")))
        elif new.id != old.id:
            tree.append((name, "replaced", sorted(_all(old_child, "deleted")
                                                  + _all(new_child, "added"))))
        else:
            below = (happened(h, old_child, new_child)
                     if old_child is not None and new_child is not None else [])
            tree.append((name, "updated" if name in acted else "unchanged", below))
    return sorted(tree)


EXAMPLES = int(os.environ.get("HOTPLATE_PROPERTY_EXAMPLES", "20"))
"""Kept small for `make test`; raise it for a longer hunt."""


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pair=template_pairs(), seed=st.integers(0, 10_000))
def test_the_plan_is_what_the_update_does(pair: tuple[dict[str, Any], dict[str, Any]],
                                          seed: int) -> None:
    first, second = pair
    with tempfile.TemporaryDirectory() as tmp:
        h = Harness(Path(tmp), seed=seed)
        sid = h.create("planned", first)
        h.run()
        assert h.status(sid) == "CREATE_COMPLETE"
        before = snapshot(h, sid)

        plan = h.service.plan_update_stack(CTXT, sid, second, {"parameters": {}}, {}, {})
        detail = plan["resource_changes_detail"]
        by_lists = {r["resource_name"]: kind
                    for kind, listed in plan["resource_changes"].items() for r in listed}
        assert by_lists == {e["resource_name"]: e["change"] for e in detail}
        assert snapshot(h, sid) == before  # a plan changes nothing

        h.update(sid, second)
        h.run()
        assert h.status(sid) == "UPDATE_COMPLETE"
        assert happened(h, before, snapshot(h, sid)) == planned(detail), (first, second)
        if second["parameters"]["word"]["hidden"]:  # its values, old or new, never show
            secrets = {t["parameters"]["word"]["default"] for t in (first, second)}
            shown = [value for item in _flat(detail)
                     for prop in item.get("properties", []) for value in (prop["old"],
                                                                          prop["new"])]
            assert not secrets & set(map(str, shown)), shown


def _flat(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [found for e in entries for found in (e, *_flat(e.get("nested", [])))]
