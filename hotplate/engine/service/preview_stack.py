"""What an update would change in one stack: Heat's five lists. Nothing is written.

The resources are sorted as Heat's ``StackUpdate.preview`` sorts them::

    only in the new template              added      (shown as the new resource)
    only in the current template          deleted    (shown as stored)
    in both, another type, or FAILED      replaced   (new)
    in both, no change                    unchanged  (new)
    in both, change allowed in place      updated    (stored)
    in both, a stack-backed resource      updated    (stored: its child decides)
    in both, any other change             replaced   (new)
    in both, values only known later      updated    (stored)

The decision is the engine's own (``convergence.update_diff``, and a type
change replaces as ``convergence.node_plan`` does), on the stored properties
against the new ones resolved from what the resources stored. As in Heat, a
preview cannot promise what plugins decide at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.convergence.update_diff import UpdateKind, decide_update
from hotplate.engine.cache import FACADE, pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.service.preview import (
    Resolver,
    Stored,
    known_parameter_values,
    new_resource,
    quietly,
)
from hotplate.engine.stack_rows import owned_children
from hotplate.engine.views import format_resource, stack_identity
from hotplate.model.errors import StackValidationFailed
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource
from hotplate.resources.template_resource import TemplateResource
from hotplate.template import Environment, ResourceDefinition, Template, parse_environment

CHANGE_KINDS = ("added", "deleted", "replaced", "unchanged", "updated")

Changes = dict[str, list[dict[str, Any]]]

DEFAULT_FACADE: Mapping[str, Any] = {"metadata": {}, "deletion_policy": "Delete",
                                     "update_policy": {}}
"""``resource_facade`` of a nested stack whose template did not read it before."""


@dataclass(frozen=True, slots=True)
class Target:
    """A stack as the update would have it: what its resources' plugins are built from."""

    template: Template
    """Parameters decided."""
    env: Environment
    files: Mapping[str, Any]
    resolver: Resolver
    identity: Mapping[str, Any]
    parent: str | None
    """The resource whose nested stack this is (its resources' ``parent_resource``)."""
    stack: StackRecord | None
    """The stack the update changes; None for a stack it would create."""

    def plugin(self, deps: EngineDeps, name: str) -> type[Resource]:
        defn = self.template.resources[name]
        return deps.types.for_resource(self.env, name, defn.type, self.files)


class StackUpdatePreview:
    """One stack's update, sorted when built; the nested walk reads what it decided."""

    def __init__(self, deps: EngineDeps, stack: StackRecord, parsed: Template,
                 environment: Mapping[str, Any], files: Mapping[str, Any],
                 rows: Mapping[str, ResourceRecord]) -> None:
        self._deps = deps
        self.stack = stack
        self.rows = rows
        pseudo = pseudo_parameters(stack)
        old_values = deps.caches.parameters(stack.raw_template_id, stack.id, pseudo)
        values = known_parameter_values(parsed, environment, pseudo)
        if stack.owner_id is not None:
            values[FACADE] = old_values.get(FACADE, DEFAULT_FACADE)
        self.target = Target(parsed.with_parameters(values), parse_environment(environment),
                             files, Stored(values, rows), stack_identity(stack),
                             stack.parent_resource_name, stack)
        self.old_template = deps.caches.for_stack(stack.raw_template_id, stack)
        self._stored = deps.caches.template(stack.raw_template_id)
        self._old_ctx = Stored(old_values, rows)
        self.parameter_values = (old_values, values)
        """The parameters before and after: the plan hides the hidden ones' values."""
        self.children = owned_children(deps, stack)
        self.kinds: dict[str, str] = {}
        self.verdicts: dict[str, Verdict] = {}
        """Why each resource of the new template is sorted where it is."""
        self.changes = self._sort()

    def names(self, *kinds: str) -> list[str]:
        """The resources sorted under ``kinds``, in the order the lists show them."""
        return [name for kind in kinds for name, k in self.kinds.items() if k == kind]

    def current_child(self, name: str) -> StackRecord | None:
        """The nested stack the resource's stored row owns, if any."""
        row = self.rows.get(name)
        return self.children.get(row.physical_resource_id or "") if row is not None else None

    def _sort(self) -> Changes:
        changes: Changes = {kind: [] for kind in CHANGE_KINDS}
        new = self.target.template
        new_graph, old_graph = new.dependencies(), self.old_template.dependencies()
        for name, defn in new.resources.items():
            verdict = self._kind(name, defn)
            kind = self.kinds[name] = verdict.kind
            self.verdicts[name] = verdict
            row = self.rows.get(name)
            required_by = new_graph.required_by(name)
            if kind == "updated" and row is not None:
                view = stored_view(row, self.stack, required_by, self.current_child(name))
            else:
                view = new_resource(self.target.identity, defn,
                                    self.target.plugin(self._deps, name), required_by,
                                    self.target.resolver, with_props=False,
                                    parent=self.target.parent)
            changes[kind].append(view)
        for name, defn in self.old_template.resources.items():
            if name not in new.resources:
                self.kinds[name] = "deleted"
                changes["deleted"].append(self._deleted(name, defn,
                                                        old_graph.required_by(name)))
        return changes

    def _deleted(self, name: str, defn: ResourceDefinition,
                 required_by: Iterable[str]) -> dict[str, Any]:
        row = self.rows.get(name)
        if row is not None:
            return stored_view(row, self.stack, required_by, self.current_child(name))
        stored = self._stored
        cls = self._deps.types.for_resource(stored.env, name, defn.type, stored.files)
        return new_resource(self.target.identity, defn, cls, required_by, self._old_ctx,
                            with_props=False, parent=self.target.parent)

    def _kind(self, name: str, defn: ResourceDefinition) -> Verdict:
        if name not in self.old_template.resources:
            return Verdict("added")
        old_defn = self.old_template.resources[name]
        row = self.rows.get(name)
        cls = self.target.plugin(self._deps, name)
        stored = self._stored
        try:
            old_cls = self._deps.types.for_resource(stored.env, name, old_defn.type,
                                                    stored.files)
        except StackValidationFailed:  # its type is gone: only a new resource will do
            return Verdict("replaced", reason=f"the type {old_defn.type} is gone")
        old_type = row.resource_type if row is not None else old_defn.type
        if old_type != defn.type or _family(old_cls) is not _family(cls):
            return Verdict("replaced", reason=f"the type changes from {old_type} "
                                              f"to {defn.type}")
        return judge(cls, old_defn, defn, row, self._old_ctx, self.target.resolver)


def _family(cls: type[Resource]) -> type[Resource]:
    """What Heat compares to decide a replacement: the plugin's class, where every
    template resource is one class whatever its file says (a changed file updates)."""
    return TemplateResource if issubclass(cls, TemplateResource) else cls






def stored_view(row: ResourceRecord, stack: StackRecord, required_by: Iterable[str],
                nested: StackRecord | None = None) -> dict[str, Any]:
    """A resource as stored, as Heat's engine formats it (without properties)."""
    view = format_resource(row, stack, required_by=required_by, with_detail=True,
                           nested=nested)
    view.pop("properties", None)
    return view


@dataclass(frozen=True, slots=True)
class Verdict:
    """How an update would treat one resource, and what it compared to decide."""

    kind: str
    old: Mapping[str, Any] | None = None
    """The properties as stored (or as the old definition gives them, never built)."""
    new: Mapping[str, Any] | None = None
    """The new properties; None when they are known only at run time."""
    reason: str | None = None
    """Why a replacement is needed when no property forces it."""
    metadata_changed: bool = False


def judge(cls: type[Resource], old_defn: ResourceDefinition, defn: ResourceDefinition,
          row: ResourceRecord | None, old_ctx: Resolver, ctx: Resolver) -> Verdict:
    """replaced, updated or unchanged, for a resource of the same plugin in both
    templates, with what was compared (the plan's property detail shows it)."""
    if row is not None and row.status is Status.FAILED:
        # Heat replaces a failed resource on update
        return Verdict("replaced", reason=f"the resource is {row.action}_{row.status}")
    new_props = _properties(cls, defn, ctx)
    if row is not None and row.action is not Action.INIT:
        old_props: dict[str, Any] | None = row.properties_data or {}
        old_metadata = row.metadata or {}
    else:  # never built: compare the definitions, as Heat does
        old_props = _properties(cls, old_defn, old_ctx)
        old_metadata = quietly(lambda: old_defn.resolve_metadata(old_ctx), {})
    if new_props is None or old_props is None:
        # decided by what other resources supply at run time
        return Verdict("updated", old_props, None)
    metadata = quietly(lambda: defn.resolve_metadata(ctx), old_metadata)
    allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
    touched = metadata != old_metadata
    decision = decide_update(old_props, new_props, allowed, metadata_changed=touched)
    if decision.kind is UpdateKind.NO_CHANGE:
        # A built nested stack is updated whatever its properties: its resources decide.
        built = row is not None and row.physical_resource_id is not None
        kind = "updated" if cls.always_updates and built else "unchanged"
        return Verdict(kind, old_props, new_props)
    cls.check_immutable(old_props, new_props, name=defn.name, type_name=defn.type)
    if decision.kind is UpdateKind.REPLACE or cls.needs_replacement(old_props, new_props):
        return Verdict("replaced", old_props, new_props, metadata_changed=touched)
    return Verdict("updated", old_props, new_props, metadata_changed=touched)


def _properties(cls: type[Resource], defn: ResourceDefinition, ctx: Resolver,
                ) -> dict[str, Any] | None:
    """The validated properties; None when they depend on values other resources only
    supply at run time (a reference that cannot be resolved, or does not validate, yet)."""
    if not defn.references():
        return cls.validate(defn.resolve_properties(ctx), ("resources", defn.name,
                                                           "properties"))
    try:
        resolved = defn.resolve_properties(ctx)
    except Exception:
        return None
    try:
        return cls.validate(resolved, ("resources", defn.name, "properties"))
    except StackValidationFailed:
        return resolved


def plugin_properties(cls: type[Resource], defn: ResourceDefinition,
                      ctx: Resolver) -> dict[str, Any]:
    """The properties a plugin instance is built over for a preview: validated when
    they can be, else what resolves (a value known only at run time left out)."""
    try:
        return _properties(cls, defn, ctx) or {}
    except StackValidationFailed:
        resolved = quietly(lambda: defn.resolve_properties(ctx), {})
        return {k: v for k, v in resolved.items() if v is not None}
