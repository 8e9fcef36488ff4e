"""What hotplate's engine will make of an imported tree, decided before anything is
written: can every resource be served here, and where a legacy stack's rows lack
what a traversal reads, what they depend on.

The tree's templates are read through the engine's own caches (the same
parsing, parameters, conditions and implicit dependencies as a running engine)
over the rows read from Heat, held in memory, so the answer is the engine's and
the write that follows is one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.convergence.migration import convert_rows
from hotplate.db.rows import to_resource, to_stack
from hotplate.engine.cache import EngineCaches
from hotplate.heat_import.source import HeatTree
from hotplate.heat_import.translate import HeatKey, environment
from hotplate.model.ids import StackId, TemplateId
from hotplate.model.records import RawTemplate, ResourceRecord, StackRecord


class _TreeSource:
    """The three reads the caches make, answered from a tree read from Heat (Heat's
    ids; hidden parameters in clear)."""

    def __init__(self, tree: HeatTree, heat: HeatKey, plain_box: Any) -> None:
        self._tree = tree
        self._heat = heat
        self._plain = plain_box
        self._stacks = {s["id"]: s for s in tree.stacks}

    def get_raw_template(self, template_id: TemplateId) -> RawTemplate | None:
        found = self._tree.templates.get(int(template_id))
        if found is None:
            return None
        env = environment(found["environment"], self._heat, self._plain,
                          what=f"template {template_id}")
        return RawTemplate(template_id, found["template"], found["files"], env)

    def get_stack(self, stack_id: StackId, include_deleted: bool = False) -> StackRecord | None:
        row = self._stacks.get(stack_id)
        return None if row is None else heat_stack_record(row)

    def list_resources(self, stack_id: StackId) -> list[ResourceRecord]:
        return [heat_resource_record(r, self._plain) for r in self._tree.resources
                if r["stack_id"] == stack_id]

    def get_stack_deps(self, stack_id: StackId) -> Any:
        return None


def heat_stack_record(row: Mapping[str, Any]) -> StackRecord:
    return to_stack({**row, "user_id": None})


def heat_resource_record(row: Mapping[str, Any], box: Any) -> ResourceRecord:
    return to_resource({**row, "type": "", "properties_data": None, "attr_data": None,
                        "requires": row.get("requires") or []}, secrets=box)


@dataclass(frozen=True)
class TreeAnalysis:
    unavailable: list[str]
    """One text per resource this hotplate cannot serve (``stack/resource: why``)."""
    legacy_requires: dict[int, tuple[int, ...]]
    """Heat row id -> the Heat row ids it depends on, for legacy stacks' live rows."""
    legacy_templates: dict[int, int]
    """Heat row id -> the Heat template id it is at (its stack's), for the same rows."""
    dropped: set[int]
    """Rows of legacy stacks no resource of their template names (not brought over)."""
    classes: dict[int, Any]
    """Heat row id -> the plugin serving it here, for rows its stack's template names:
    what puts Heat's stored properties (only those given) in hotplate's form (every
    property, defaults filled), so an update compares like with like."""


def analyse(tree: HeatTree, heat: HeatKey, types: Any, implicit: Any) -> TreeAnalysis:
    """Check every resource of every stack of ``tree`` against ``types`` and compute the
    legacy stacks' dependencies. ``implicit`` adds the types' implicit dependencies as
    the engine does (app.py), or is None."""
    from hotplate.db.crypt import SecretBox

    plain = SecretBox()  # parameters in clear: never used to encrypt anything stored
    caches = EngineCaches(_TreeSource(tree, heat, plain))  # type: ignore[arg-type]
    caches.implicit = implicit
    unavailable: list[str] = []
    requires: dict[int, tuple[int, ...]] = {}
    at: dict[int, int] = {}
    dropped: set[int] = set()
    classes: dict[int, Any] = {}
    for row in tree.stacks:
        stack = heat_stack_record(row)
        try:
            loaded = caches.template(stack.raw_template_id)
            decided = caches.for_stack(stack.raw_template_id, stack)
        except Exception as exc:  # the engine could not read it either
            unavailable.append(f"{stack.name}: its template cannot be read here: {exc}")
            continue
        served: dict[str, Any] = {}
        for name, defn in decided.resources.items():
            try:
                served[name] = types.for_resource(loaded.env, name, defn.type, loaded.files)
            except Exception as exc:
                unavailable.append(f"{stack.name}/{name}: type {defn.type}: {exc}")
        for resource in tree.resources:
            if resource["stack_id"] == row["id"] and resource["name"] in served:
                classes[resource["id"]] = served[resource["name"]]
        if stack.convergence:
            continue
        rows = [heat_resource_record(r, plain) for r in tree.resources
                if r["stack_id"] == row["id"]]
        found, gone = convert_rows(decided.dependencies(), rows, stack.raw_template_id)
        for row_id, needed in found.items():
            requires[int(row_id)] = tuple(int(i) for i in needed)
            at[int(row_id)] = int(stack.raw_template_id)
        dropped.update(int(i) for i in gone)
    return TreeAnalysis(unavailable, requires, at, dropped, classes)
