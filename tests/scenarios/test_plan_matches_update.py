"""The plan and the update agree: for random pairs of templates, what ``plan_update_stack``
says of each resource is what the update then does to its row.

The update's truth is read from the rows and the events, not from the plan's code:

* added: a row that was not there; deleted: a row that is gone;
* replaced: a new row under the same name (a new physical resource);
* updated: the same row, with an UPDATE event from this update;
* unchanged: the same row, and no event from this update.

The templates use Heat-native types whose outcome is decided by the template
alone (no resource reads another's id or attribute: a preview resolves those
from what is stored, as Heat's does, and cannot know the values an update will
produce). A parameter, sometimes hidden, feeds some properties, and ``depends_on``
links the resources; the second template changes values, types, parameters,
and drops and adds resources.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import CTXT, Harness
from .templates import tmpl

TYPES = ("OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::RandomString",
         "OS::Heat::Value")
WORDS = ("a", "b")


@st.composite
def resource(draw: st.DrawFn, earlier: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(TYPES))
    found: dict[str, Any] = {"type": kind}
    word = draw(st.sampled_from([*WORDS, {"get_param": "word"}]))
    if kind == "OS::Heat::TestResource":
        found["properties"] = {"value": word,
                               "update_replace": draw(st.booleans())}
    elif kind == "OS::Heat::RandomString":
        found["properties"] = {"length": draw(st.sampled_from([4, 5]))}
    elif kind == "OS::Heat::Value":
        found["properties"] = {"value": word}
    elif draw(st.booleans()):
        found["properties"] = {"anything": word}  # None takes and ignores anything
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


def _what_happened(before: dict[str, Any], after: dict[str, Any],
                   events: list[dict[str, Any]]) -> dict[str, str]:
    """Each resource's fate, from the rows before and after and the update's events."""
    acted = {e["resource_name"] for e in events if e["resource_action"] == "UPDATE"}
    fate: dict[str, str] = {}
    for name in before.keys() | after.keys():
        if name not in after:
            fate[name] = "deleted"
        elif name not in before:
            fate[name] = "added"
        elif after[name].id != before[name].id:
            fate[name] = "replaced"
        else:
            fate[name] = "updated" if name in acted else "unchanged"
    return fate


def _current_rows(h: Harness, stack_id: str) -> dict[str, Any]:
    rows = [r for r in h.rows(stack_id) if r.replaced_by is None]
    by_name: dict[str, Any] = {}
    for row in rows:
        by_name[row.name] = row
    assert len(by_name) == len(rows), rows  # one current row per name
    return by_name


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
        before = _current_rows(h, sid)
        seen = len(h.events(sid))

        plan = h.service.plan_update_stack(CTXT, sid, second, {"parameters": {}}, {}, {})
        by_detail = {e["resource_name"]: e["change"] for e in plan["resource_changes_detail"]}
        by_lists = {r["resource_name"]: kind
                    for kind, listed in plan["resource_changes"].items() for r in listed}
        assert by_lists == by_detail
        assert _current_rows(h, sid) == before  # a plan changes nothing

        h.update(sid, second)
        h.run()
        assert h.status(sid) == "UPDATE_COMPLETE"
        after = _current_rows(h, sid)
        happened = _what_happened(before, after, h.events(sid)[seen:])
        assert happened == by_detail, (first, second)
        if second["parameters"]["word"]["hidden"]:  # its values, old or new, never show
            secrets = {t["parameters"]["word"]["default"] for t in (first, second)}
            shown = [value for item in plan["resource_changes_detail"]
                     for prop in item.get("properties", []) for value in (prop["old"],
                                                                          prop["new"])]
            assert not secrets & set(map(str, shown)), shown
