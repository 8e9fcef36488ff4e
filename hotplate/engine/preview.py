"""Dry runs: what a create would build, and what an update would change. Nothing is written.

``preview_create`` is Heat's ``format_stack_preview``: the stack as it would
be shown (without status keys: it has none), with each resource as a fresh
INIT_COMPLETE resource and its properties resolved as far as they can be
before anything exists (``get_resource`` gives the resource's name,
``get_attr`` gives None).

``preview_update`` sorts the resources as Heat's ``StackUpdate.preview``
does::

    only in the new template            added      (shown as the new resource)
    only in the current template        deleted    (shown as stored)
    in both, another plugin, or FAILED  replaced   (new)
    in both, no change                  unchanged  (new)
    in both, change allowed in place    updated    (stored)
    in both, any other change           replaced   (new)
    in both, values only known later    updated    (stored)

The decision is the engine's own (``convergence.update_diff``), on the
stored properties against the new ones resolved from what the resources
stored. As in Heat, a preview cannot promise what plugins decide at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotplate.convergence.update_diff import UpdateKind, decide_update
from hotplate.engine.cache import pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.views import format_resource, iso, parameter_texts, stack_identity
from hotplate.model.errors import StackValidationFailed
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource
from hotplate.template import (
    ResourceDefinition,
    Template,
    parse_environment,
    resolve_parameters,
)

CHANGE_KINDS = ("added", "deleted", "replaced", "unchanged", "updated")


class _Unbuilt:
    """Resolution before anything exists: a reference is the resource's name (Heat's
    reference id of a resource without a physical id), an attribute is None."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self._params = params

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        return name

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None


class _Stored:
    """Resolution against what the stack's resources stored (physical ids, attributes)."""

    def __init__(self, params: Mapping[str, Any], rows: Mapping[str, ResourceRecord]) -> None:
        self._params = params
        self._rows = rows

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        row = self._rows.get(name)
        if row is None:
            return name
        return row.physical_resource_id or name

    def resource_attribute(self, name: str, attribute: str) -> Any:
        row = self._rows.get(name)
        return (row.attr_data or {}).get(attribute) if row is not None else None


def _values(template: Template, environment: Mapping[str, Any],
            pseudo: Mapping[str, Any]) -> dict[str, Any]:
    values = resolve_parameters(template, environment.get("parameters") or {},
                                param_defaults=environment.get("parameter_defaults") or {})
    values.update(pseudo)
    return values


def new_resource(identity: Mapping[str, Any], defn: ResourceDefinition, cls: type[Resource],
                 required_by: Iterable[str], ctx: Any, *, with_props: bool) -> dict[str, Any]:
    """A resource that does not exist yet, as Heat's engine formats one."""
    view: dict[str, Any] = {
        "resource_identity": {**identity, "path": f"/resources/{defn.name}"},
        "stack_identity": dict(identity),
        "stack_name": identity["stack_name"],
        "resource_name": defn.name,
        "description": defn.description,
        "physical_resource_id": "",
        "resource_action": str(Action.INIT),
        "resource_status": str(Status.COMPLETE),
        "resource_status_reason": "",
        "resource_type": defn.type,
        "creation_time": None,
        "updated_time": None,
        "required_by": sorted(required_by),
        "metadata": _quietly(lambda: defn.resolve_metadata(ctx), {}),
        "attributes": dict.fromkeys(cls.attributes_schema),
    }
    if with_props:
        given = _quietly(lambda: defn.resolve_properties(ctx), {})
        view["properties"] = {key: given.get(key, schema.default)
                              for key, schema in cls.properties_schema.items()}
    return view


def _quietly(compute: Callable[[], Any], fallback: Any) -> Any:
    """A preview shows what it can: a value that cannot be known yet is left out."""
    try:
        return compute()
    except Exception:
        return fallback


def preview_create(deps: EngineDeps, parsed: Template, environment: Mapping[str, Any],
                   files: Mapping[str, Any], *, identity: Mapping[str, Any],
                   stack: Mapping[str, Any]) -> dict[str, Any]:
    """Heat's preview of a new stack; ``stack`` holds the view's stack-level keys."""
    env = parse_environment(environment)
    pseudo = {"OS::stack_name": identity["stack_name"], "OS::stack_id": "None",
              "OS::project_id": identity["tenant"]}
    values = _values(parsed, environment, pseudo)
    decided = parsed.with_parameters(values)
    graph = decided.dependencies()
    ctx = _Unbuilt(values)
    resources = [
        new_resource(identity, defn, deps.types.for_resource(env, name, defn.type, files),
                     graph.required_by(name), ctx, with_props=True)
        for name, defn in decided.resources.items()
    ]
    outputs = []
    for name, out in decided.outputs.items():
        view: dict[str, Any] = {"output_key": name, "description": out.description}
        try:
            view["output_value"] = out.resolve(ctx)
        except Exception as exc:
            view["output_value"] = None
            view["output_error"] = str(exc)
        outputs.append(view)
    return {
        **stack,
        "stack_name": identity["stack_name"],
        "stack_identity": dict(identity),
        "creation_time": iso(deps.clock.now()),
        "updated_time": None,
        "deletion_time": None,
        "notification_topics": [],
        "parameters": parameter_texts(decided.parameters, values),
        "description": decided.description,
        "template_description": decided.description,
        "capabilities": [],
        "outputs": outputs,
        "resources": resources,
    }


def preview_update(deps: EngineDeps, stack: StackRecord, parsed: Template,
                   environment: Mapping[str, Any], files: Mapping[str, Any],
                   rows: Mapping[str, ResourceRecord]) -> dict[str, list[dict[str, Any]]]:
    """What updating ``stack`` to ``parsed`` would do to each resource (Heat's five lists)."""
    new_values = _values(parsed, environment, pseudo_parameters(stack))
    new = parsed.with_parameters(new_values)
    old = deps.caches.for_stack(stack.raw_template_id, stack)
    stored = deps.caches.template(stack.raw_template_id)
    old_env, old_files = stored.env, stored.files
    new_env = parse_environment(environment)
    new_graph, old_graph = new.dependencies(), old.dependencies()
    identity = stack_identity(stack)
    ctx = _Stored(new_values, rows)
    old_ctx = _Stored(deps.caches.parameters(stack.raw_template_id, stack.id,
                                             pseudo_parameters(stack)), rows)
    changes: dict[str, list[dict[str, Any]]] = {kind: [] for kind in CHANGE_KINDS}
    for name, defn in new.resources.items():
        cls = deps.types.for_resource(new_env, name, defn.type, files)
        required_by = new_graph.required_by(name)
        if name not in old.resources:
            kind = "added"
        else:
            old_defn = old.resources[name]
            old_cls = deps.types.for_resource(old_env, name, old_defn.type, old_files)
            if old_cls is not cls:
                kind = "replaced"
            else:
                kind = _change(cls, old_defn, defn, rows.get(name), old_ctx, ctx)
        if kind == "updated":
            row = rows.get(name)
            view = (_stored_view(row, stack, required_by) if row is not None else
                    new_resource(identity, defn, cls, required_by, ctx, with_props=False))
        else:
            view = new_resource(identity, defn, cls, required_by, ctx, with_props=False)
        changes[kind].append(view)
    for name, defn in old.resources.items():
        if name in new.resources:
            continue
        row = rows.get(name)
        if row is not None:
            changes["deleted"].append(_stored_view(row, stack, old_graph.required_by(name)))
        else:
            cls = deps.types.for_resource(old_env, name, defn.type, old_files)
            changes["deleted"].append(new_resource(identity, defn, cls,
                                                   old_graph.required_by(name), ctx,
                                                   with_props=False))
    return changes


def _stored_view(row: ResourceRecord, stack: StackRecord, required_by: Iterable[str],
                 ) -> dict[str, Any]:
    view = format_resource(row, stack, required_by=required_by, with_detail=True)
    view.pop("properties", None)
    return view


def _change(cls: type[Resource], old_defn: ResourceDefinition, defn: ResourceDefinition,
            row: ResourceRecord | None, old_ctx: _Stored, ctx: _Stored) -> str:
    """replaced, updated or unchanged, for a resource of the same plugin in both templates."""
    if row is not None and row.status is Status.FAILED:
        return "replaced"  # Heat replaces a failed resource on update
    new_props = _properties(cls, defn, ctx)
    if row is not None and row.action is not Action.INIT:
        old_props: dict[str, Any] | None = row.properties_data or {}
        old_metadata = row.metadata or {}
    else:  # never built: compare the definitions, as Heat does
        old_props = _properties(cls, old_defn, old_ctx)
        old_metadata = _quietly(lambda: old_defn.resolve_metadata(old_ctx), {})
    if new_props is None or old_props is None:
        return "updated"  # decided by what other resources supply at run time
    metadata = _quietly(lambda: defn.resolve_metadata(ctx), old_metadata)
    allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
    decision = decide_update(old_props, new_props, allowed,
                             metadata_changed=metadata != old_metadata)
    if decision.kind is UpdateKind.NO_CHANGE:
        return "unchanged"
    cls.check_immutable(old_props, new_props, name=defn.name, type_name=defn.type)
    if decision.kind is UpdateKind.REPLACE or cls.needs_replacement(old_props, new_props):
        return "replaced"
    return "updated"


def _properties(cls: type[Resource], defn: ResourceDefinition, ctx: _Stored,
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
