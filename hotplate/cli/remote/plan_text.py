"""An update's plan as text: ``stack update --dry-run``'s table output.

One line per resource the update touches, marked as Terraform marks a plan,
its changed properties under it and a stack-backed resource's own resources
indented under those; unchanged resources are only counted::

      ~ web (OS::Heat::TestResource) updated in place
          value: "a" -> "b"
    -/+ key (OS::Heat::RandomString) replaced, forced by length
          length: 8 -> 12  (forces replacement)
      + extra (OS::Heat::None) added
      - old (OS::Heat::None) deleted

    Plan: 1 to add, 1 to update in place, 1 to replace, 1 to delete, 3 unchanged.

The counts go down the nested stacks: they are the lengths of Heat's lists
with ``show_nested``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

MARKS = {"added": "+", "updated": "~", "replaced": "-/+", "deleted": "-"}
WORDS = {"added": "added", "updated": "updated in place", "replaced": "replaced",
         "deleted": "deleted"}
HIDDEN = "<hidden>"
INDENT = 4


def plan_lines(detail: Iterable[Mapping[str, Any]]) -> list[str]:
    """The plan's lines, the summary last."""
    entries = list(detail)
    lines: list[str] = []
    for item in entries:
        lines.extend(_resource(item, 0))
    counts = Counter(_kinds(entries))
    if lines:
        lines.append("")
    if not any(_changes(item) for item in entries):
        lines.append("No changes: every resource stays as it is.")
    lines.append(summary(counts))
    return lines


def summary(counts: Mapping[str, int]) -> str:
    return (f"Plan: {counts.get('added', 0)} to add, "
            f"{counts.get('updated', 0)} to update in place, "
            f"{counts.get('replaced', 0)} to replace, {counts.get('deleted', 0)} to delete, "
            f"{counts.get('unchanged', 0)} unchanged.")


def _kinds(entries: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    for item in entries:
        yield item["change"]
        yield from _kinds(item.get("nested") or ())


def _changes(item: Mapping[str, Any]) -> bool:
    """Whether the update changes anything of the resource or under it: a stack-backed
    resource is always "updated" (Heat's list), its stack deciding what happens."""
    if item["change"] == "unchanged":
        return False
    if item["change"] != "updated":
        return True
    return bool(item.get("properties") or item.get("properties_known") is False
                or item.get("metadata_changed")
                or any(_changes(below) for below in item.get("nested") or ()))


def _resource(item: Mapping[str, Any], depth: int) -> list[str]:
    change = item["change"]
    if change == "unchanged":
        return []
    pad = " " * (INDENT * depth)
    head = (f"{pad}{MARKS[change]:>3} {item['resource_name']} ({item['resource_type']}) "
            f"{WORDS[change]}")
    why = item.get("replacement") or {}
    if why.get("forced_by"):
        head += f", forced by {', '.join(why['forced_by'])}"
    elif why.get("reason"):
        head += f": {why['reason']}"
    elif not _changes(item):
        head += ": nothing in its stack changes"
    lines = [head]
    inner = pad + " " * (INDENT + 2)
    if item.get("properties_known") is False:
        lines.append(f"{inner}(the new properties are known only during the update)")
    for prop in item.get("properties") or ():
        line = f"{inner}{prop['name']}: {_value(prop['old'])} -> {_value(prop['new'])}"
        if prop.get("forces_replacement"):
            line += "  (forces replacement)"
        lines.append(line)
    if item.get("metadata_changed"):
        lines.append(f"{inner}(its metadata changes)")
    for below in item.get("nested") or ():
        lines.extend(_resource(below, depth + 1))
    return lines


def _value(value: Any) -> str:
    if value == HIDDEN:
        return HIDDEN
    return json.dumps(value, sort_keys=True, default=str)
