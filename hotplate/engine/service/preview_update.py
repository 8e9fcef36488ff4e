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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
from hotplate.resources.stack_resource import StackResource
from hotplate.template import Environment, Template, parse_environment, parse_template


def preview_update(deps: EngineDeps, stack: StackRecord, parsed: Template,
                   environment: Mapping[str, Any], files: Mapping[str, Any],
                   rows: Mapping[str, ResourceRecord], *, show_nested: bool = False,
                   ) -> Changes:
    """What updating ``stack`` to ``parsed`` would do to each resource (Heat's five
    lists); with ``show_nested``, to the resources of its nested stacks too."""
    top = StackUpdatePreview(deps, stack, parsed, environment, files, rows)
    changes: Changes = {kind: list(top.changes[kind]) for kind in CHANGE_KINDS}
    if show_nested:
        _add_nested(deps, top, changes, stack.nested_depth)
    return changes


NO_ID = "None"
"""The id in the identity of a stack not stored: Heat's identifiers hold ``str(None)``."""


@dataclass(frozen=True, slots=True)
class ChildRequest:
    """What an update would send a resource's nested stack."""

    template: Template
    environment: dict[str, Any]
    files: Mapping[str, Any]
    parent: str


def _add_nested(deps: EngineDeps, preview: StackUpdatePreview, changes: Changes,
                depth: int) -> None:
    for name in preview.names("deleted", "replaced"):
        child = preview.current_child(name)
        if child is not None:
            changes["deleted"].extend(deleted_tree(deps, child))
    for name in preview.names("added", "replaced"):
        request = child_request(deps, preview.target, name, None)
        if request is not None:
            changes["added"].extend(added_tree(deps, preview.target, request, depth + 1))
    for name in preview.names("updated"):
        child = preview.current_child(name)
        if child is None:
            continue
        request = child_request(deps, preview.target, name, preview.rows.get(name))
        if request is None:
            continue
        nested = StackUpdatePreview(deps, child, request.template, request.environment,
                                    request.files, current_rows(deps, child))
        for kind in CHANGE_KINDS:
            changes[kind].extend(nested.changes[kind])
        _add_nested(deps, nested, changes, depth + 1)


def deleted_tree(deps: EngineDeps, stack: StackRecord) -> list[dict[str, Any]]:
    """Every resource of a stored nested stack and of the stacks under it, as stored."""
    rows = current_rows(deps, stack)
    graph = deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
    children = owned_children(deps, stack)
    views = [stored_view(row, stack, graph.required_by(name),
                         children.get(row.physical_resource_id or ""))
             for name, row in rows.items()]
    for row in rows.values():
        child = children.get(row.physical_resource_id or "")
        if child is not None:
            views.extend(deleted_tree(deps, child))
    return views


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


def added_tree(deps: EngineDeps, parent: Target, request: ChildRequest,
               depth: int) -> list[dict[str, Any]]:
    """Every resource of a nested stack the update would create, and of those under it."""
    target = child_target(parent, request)
    decided = target.template
    identity = target.identity
    graph = decided.dependencies()
    views = [new_resource(identity, defn, target.plugin(deps, name), graph.required_by(name),
                          target.resolver, with_props=False, parent=request.parent)
             for name, defn in decided.resources.items()]
    if depth < MAX_NESTED_DEPTH:
        for name in decided.resources:
            grand = child_request(deps, target, name, None)
            if grand is not None:
                views.extend(added_tree(deps, target, grand, depth + 1))
    return views


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
