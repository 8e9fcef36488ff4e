"""The update preview, nested stacks included when asked (``show_nested``), as Heat's.

Each stack's own resources are sorted by ``preview_stack``. With
``show_nested`` the lists also hold the resources of the nested stacks the
update would touch, each naming its ``parent_resource``, in Heat's order:

* a resource deleted or replaced takes its whole stored nested tree with it:
  every resource under it is listed as ``deleted`` (shown as stored);
* a resource added or replaced brings a new nested tree: every resource of
  the child template its new definition gives is ``added``;
* a stack-backed resource ``updated`` in place has its child previewed in
  turn, with the template and parameters the update would send it (a
  template resource's file and properties, a group's generated members),
  and the child's five lists are merged into the parent's.

What a child would be sent is the plugin's own answer
(``StackResource.preview_child``), built over the new properties with a
context that keeps no writes (``preview_context``). Nothing is stored.

``plan_update`` walks the same way, in the same order, and builds beside
Heat's lists the plan's detail (``preview_detail``): one entry per resource
with what changes in it, its nested stack's entries under it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from hotplate.engine.cache import FACADE
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.adopt import visible_files
from hotplate.engine.hosting.nested import MAX_NESTED_DEPTH
from hotplate.engine.hosting.row_plugins import row_context
from hotplate.engine.service.preview import (
    Unbuilt,
    known_parameter_values,
    new_resource,
    quietly,
)
from hotplate.engine.service.preview_context import DryRunContext
from hotplate.engine.service.preview_detail import (
    EVERY_PROPERTY,
    Masks,
    derived_from_hidden,
    entry,
    hidden_parameters,
    property_changes,
    replacement,
    secret_texts,
)
from hotplate.engine.service.preview_stack import (
    CHANGE_KINDS,
    DEFAULT_FACADE,
    Changes,
    StackUpdatePreview,
    Target,
    plugin_properties,
    stored_view,
)
from hotplate.engine.stack_rows import current_rows, owned_children
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.resources.base import Resource
from hotplate.resources.stack_resource import StackResource
from hotplate.resources.template_resource import TemplateResource
from hotplate.template import Environment, Template, parse_environment, parse_template


def preview_update(deps: EngineDeps, stack: StackRecord, parsed: Template,
                   environment: Mapping[str, Any], files: Mapping[str, Any],
                   rows: Mapping[str, ResourceRecord], *, show_nested: bool = False,
                   ) -> Changes:
    """What updating ``stack`` to ``parsed`` would do to each resource (Heat's five
    lists); with ``show_nested``, to the resources of its nested stacks too."""
    if show_nested:
        return plan_update(deps, stack, parsed, environment, files, rows,
                           show_nested=True).changes
    top = StackUpdatePreview(deps, stack, parsed, environment, files, rows)
    return {kind: list(top.changes[kind]) for kind in CHANGE_KINDS}


@dataclass(frozen=True, slots=True)
class Plan:
    """Heat's five lists, and the plan's detail: each resource with its changed
    properties and, for a stack-backed one, its nested stack's resources under it."""

    changes: Changes
    detail: list[dict[str, Any]]


def plan_update(deps: EngineDeps, stack: StackRecord, parsed: Template,
                environment: Mapping[str, Any], files: Mapping[str, Any],
                rows: Mapping[str, ResourceRecord], *, show_nested: bool) -> Plan:
    """``preview_update`` with the detail; the detail always goes down the nested
    stacks, Heat's lists only with ``show_nested``."""
    top = StackUpdatePreview(deps, stack, parsed, environment, files, rows)
    changes: Changes = {kind: list(top.changes[kind]) for kind in CHANGE_KINDS}
    walk = _Walk(deps, changes if show_nested else None)
    detail = walk.stack(top, stack.nested_depth, stack_masks(top, frozenset(), frozenset()))
    return Plan(changes, detail)


NO_ID = "None"
"""The id in the identity of a stack not stored: Heat's identifiers hold ``str(None)``."""


@dataclass(frozen=True, slots=True)
class ChildRequest:
    """What an update would send a resource's nested stack."""

    template: Template
    environment: dict[str, Any]
    files: Mapping[str, Any]
    parent: str


def stack_masks(preview: StackUpdatePreview, given_hidden: frozenset[str],
                inherited: frozenset[str]) -> Masks:
    """What one stack's plan hides: its hidden parameters (and those its parent fed
    from hidden values, ``given_hidden``), what derives from them in the old and the
    new template, and the hidden values seen above it (``inherited``)."""
    new, old = preview.target.template, preview.old_template
    hidden_new = hidden_parameters(new) | given_hidden
    hidden_old = hidden_parameters(old) | given_hidden
    derived = derived_from_hidden(new, hidden_new)
    for name, keys in derived_from_hidden(old, hidden_old).items():
        derived[name] = derived.get(name, frozenset()) | keys
    secrets = inherited | secret_texts(hidden_new | hidden_old, *preview.parameter_values)
    return Masks(derived, secrets)


class _Walk:
    """One plan's walk down the stacks; Heat's lists grow as it goes, when asked."""

    def __init__(self, deps: EngineDeps, changes: Changes | None) -> None:
        self._deps = deps
        self._changes = changes

    def _list(self, kind: str, views: list[dict[str, Any]]) -> None:
        if self._changes is not None:
            self._changes[kind].extend(views)

    def stack(self, preview: StackUpdatePreview, depth: int,
              masks: Masks) -> list[dict[str, Any]]:
        """The detail of each of the stack's resources, in the new template's order and
        then the deleted ones. The nested stacks are walked in Heat's order (every tree
        taken away, then every tree brought in, then each one updated in place), which
        is the order their resources join Heat's lists."""
        nested: dict[str, list[dict[str, Any]]] = {}
        for name in preview.names("deleted", "replaced"):
            nested[name] = self._below(partial(self._gone, preview, name))
        for name in preview.names("added", "replaced"):
            nested[name] = nested.get(name, []) + self._below(
                partial(self._new, preview.target, name, depth))
        for name in preview.names("updated"):
            nested[name] = self._below(partial(self._updated, preview, name, depth, masks))
        return [self._resource(preview, name, kind, masks, nested.get(name, []))
                for name, kind in preview.kinds.items()]

    def _below(self, walk: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """A nested stack's detail. Only Heat's lists with ``show_nested`` fail when a
        child cannot be worked out (as they did before the detail existed); the detail
        alone shows what it can, the resource without what is under it."""
        if self._changes is not None:
            return walk()
        found: list[dict[str, Any]] = quietly(walk, [])
        return found

    def _resource(self, preview: StackUpdatePreview, name: str, kind: str, masks: Masks,
                  nested: list[dict[str, Any]]) -> dict[str, Any]:
        target = preview.target
        if kind == "deleted":
            type_name = preview.old_template.resources[name].type
            return entry(name, type_name, kind, nested=nested)
        type_name = target.template.resources[name].type
        if kind == "added":
            return entry(name, type_name, kind, nested=nested)
        verdict = preview.verdicts[name]
        cls = target.plugin(self._deps, name)
        known = verdict.old is not None and verdict.new is not None
        props = (property_changes(cls, name, verdict.old or {}, verdict.new or {}, masks)
                 if known and kind != "unchanged" else None)
        if kind == "replaced":
            why = ({"forced_by": [], "reason": verdict.reason} if verdict.reason
                   else replacement(cls, verdict.old, verdict.new))
            return entry(name, type_name, kind, properties=props, replacement=why,
                         metadata_changed=verdict.metadata_changed or None, nested=nested)
        return entry(name, type_name, kind, properties=props, nested=nested,
                     properties_known=None if known or kind == "unchanged" else False,
                     metadata_changed=verdict.metadata_changed or None)

    def _gone(self, preview: StackUpdatePreview, name: str) -> list[dict[str, Any]]:
        child = preview.current_child(name)
        if child is None:
            return []
        views, entries = deleted_tree(self._deps, child)
        self._list("deleted", views)
        return entries

    def _new(self, target: Target, name: str, depth: int) -> list[dict[str, Any]]:
        request = child_request(self._deps, target, name, None)
        if request is None:
            return []
        views, entries = added_tree(self._deps, target, request, depth + 1)
        self._list("added", views)
        return entries

    def _updated(self, preview: StackUpdatePreview, name: str, depth: int,
                 masks: Masks) -> list[dict[str, Any]]:
        child = preview.current_child(name)
        if child is None:
            return []
        request = child_request(self._deps, preview.target, name, preview.rows.get(name))
        if request is None:
            return []
        nested = StackUpdatePreview(self._deps, child, request.template, request.environment,
                                    request.files, current_rows(self._deps, child))
        for kind in CHANGE_KINDS:
            self._list(kind, nested.changes[kind])
        fed = _fed_from_hidden(preview.target.plugin(self._deps, name), name, masks,
                               request.template)
        return self.stack(nested, depth + 1, stack_masks(nested, fed, masks.secrets))


def _fed_from_hidden(cls: type[Resource], name: str, masks: Masks,
                     child: Template) -> frozenset[str]:
    """The child's parameters a template resource fills from hidden values (each
    property is the parameter of the same name); a group's members get literal
    values, which the hidden values themselves catch."""
    if not issubclass(cls, TemplateResource):
        return frozenset()
    derived = masks.derived.get(name, frozenset())
    if EVERY_PROPERTY in derived:
        return frozenset(child.parameters)
    return derived & frozenset(child.parameters)


def deleted_tree(deps: EngineDeps, stack: StackRecord,
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every resource of a stored nested stack and of the stacks under it, as stored
    (Heat's flat list), and the same as the plan's nested detail."""
    rows = current_rows(deps, stack)
    graph = deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
    children = owned_children(deps, stack)
    views = [stored_view(row, stack, graph.required_by(name),
                         children.get(row.physical_resource_id or ""))
             for name, row in rows.items()]
    entries = []
    for name, row in rows.items():
        child = children.get(row.physical_resource_id or "")
        nested: list[dict[str, Any]] = []
        if child is not None:
            below, nested = deleted_tree(deps, child)
            views.extend(below)
        entries.append(entry(name, row.resource_type, "deleted", nested=nested))
    return views, entries


def child_target(parent: Target, request: ChildRequest) -> Target:
    """The nested stack a resource would create, named as Heat names it
    (``<stack>-<resource>``), before anything of it exists."""
    identity = {"stack_name": f"{parent.identity['stack_name']}-{request.parent}",
                "stack_id": NO_ID, "tenant": parent.identity["tenant"], "path": ""}
    pseudo = {"OS::stack_name": identity["stack_name"], "OS::stack_id": "None",
              "OS::project_id": identity["tenant"], FACADE: dict(DEFAULT_FACADE)}
    values = known_parameter_values(request.template, request.environment, pseudo)
    return Target(request.template.with_parameters(values),
                  parse_environment(request.environment), request.files, Unbuilt(values),
                  identity, request.parent, None)


def created_tree(deps: EngineDeps, target: Target, depth: int) -> list[Any]:
    """A create preview's resources (Heat's ``preview_resources``): each one as it would
    be made, with its properties, except that a stack-backed one is replaced by the list
    of its nested stack's own, recursively, as Heat's StackResource previews itself."""
    graph = target.template.dependencies()
    views: list[Any] = []
    for name, defn in target.template.resources.items():
        request = _quiet_child(deps, target, name) if depth < MAX_NESTED_DEPTH else None
        if request is not None:
            views.append(created_tree(deps, child_target(target, request), depth + 1))
            continue
        views.append(new_resource(target.identity, defn, target.plugin(deps, name),
                                  graph.required_by(name), target.resolver, with_props=True,
                                  parent=target.parent))
    return views


def _quiet_child(deps: EngineDeps, target: Target, name: str) -> ChildRequest | None:
    """A child that cannot be worked out before anything exists is shown as its parent
    resource: a preview shows what it can."""
    found: ChildRequest | None = quietly(lambda: child_request(deps, target, name, None), None)
    return found


def added_tree(deps: EngineDeps, parent: Target, request: ChildRequest, depth: int,
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every resource of a nested stack the update would create, and of those under it
    (Heat's flat list), and the same as the plan's nested detail."""
    target = child_target(parent, request)
    decided = target.template
    identity = target.identity
    graph = decided.dependencies()
    views = [new_resource(identity, defn, target.plugin(deps, name), graph.required_by(name),
                          target.resolver, with_props=False, parent=request.parent)
             for name, defn in decided.resources.items()]
    entries = []
    for name, defn in decided.resources.items():
        grand = child_request(deps, target, name, None) if depth < MAX_NESTED_DEPTH else None
        nested: list[dict[str, Any]] = []
        if grand is not None:
            below, nested = added_tree(deps, target, grand, depth + 1)
            views.extend(below)
        entries.append(entry(name, defn.type, "added", nested=nested))
    return views, entries


def child_request(deps: EngineDeps, target: Target, name: str,
                  row: ResourceRecord | None) -> ChildRequest | None:
    """The nested stack an update of ``name`` to its new definition would send, worked
    out by its plugin without writing anything; None for a resource with no child of
    its stack's own. ``row``: the resource as stored, when it is updated in place."""
    defn = target.template.resources[name]
    cls = target.plugin(deps, name)
    if not issubclass(cls, StackResource):
        return None
    inner = (row_context(deps, row, target.stack)
             if row is not None and target.stack is not None else None)
    ctx = DryRunContext(inner, resource_name=name, stack_name=target.identity["stack_name"],
                        project_id=target.identity["tenant"], clock=deps.clock)
    instance = cls(name, plugin_properties(cls, defn, target.resolver), ctx,
                   resource_id=row.physical_resource_id if row is not None else None)
    try:
        sent = instance.preview_child()
    except NotImplementedError:  # a type that cannot say: shown as a plain resource
        return None
    if sent is None:
        return None
    template, parameters = sent
    files = visible_files(target.files)
    registry_target = target.env.resource_registry.resolve_type(name, defn.type,
                                                                is_known=deps.types.exists)
    own_file = registry_target if registry_target != defn.type else None
    return ChildRequest(parse_template(template, files=files),
                        child_environment(target.env, parameters, own_file), files, name)


def child_environment(env: Environment, parameters: Mapping[str, Any],
                      template_name: str | None) -> dict[str, Any]:
    """The nested stack's environment, as the engine gives one (``engine.nested``):
    the parent's parameter_defaults and registry, minus the per-resource entries and
    the mappings onto the child's own template, which would recurse."""
    parent = env.to_dict()
    registry = {key: value for key, value in (parent.get("resource_registry") or {}).items()
                if key != "resources" and (template_name is None or value != template_name)}
    return {"parameters": dict(parameters),
            "parameter_defaults": parent.get("parameter_defaults") or {},
            "resource_registry": registry}
