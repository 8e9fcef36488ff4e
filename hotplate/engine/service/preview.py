"""Dry runs: what a create would build. Nothing is written.

``preview_create`` is Heat's ``format_stack_preview``: the stack as it would
be shown (without status keys: it has none), with each resource as a fresh
INIT_COMPLETE resource and its properties resolved as far as they can be
before anything exists (``get_resource`` gives the resource's name,
``get_attr`` gives None).

The resolvers and the view of a resource not yet built are shared with the
update preview (``preview_stack`` sorts one stack's update,
``preview_update`` walks nested stacks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.views import iso, parameter_texts
from hotplate.model.errors import StackValidationFailed
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource
from hotplate.template import (
    ResourceDefinition,
    Template,
    parse_environment,
    resolve_parameters,
)


class Unbuilt:
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


class Stored:
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


Resolver = Unbuilt | Stored


def parameter_values(template: Template, environment: Mapping[str, Any],
                     pseudo: Mapping[str, Any]) -> dict[str, Any]:
    """The template's parameter values under ``environment``, pseudo parameters added."""
    values = resolve_parameters(template, environment.get("parameters") or {},
                                param_defaults=environment.get("parameter_defaults") or {})
    values.update(pseudo)
    return values


def known_parameter_values(template: Template, environment: Mapping[str, Any],
                           pseudo: Mapping[str, Any]) -> dict[str, Any]:
    """As ``parameter_values``, but a value that cannot be had yet is None, not an
    error: a nested stack's parameters come from its parent resource's properties,
    which may read attributes that only exist once the update has run."""
    try:
        return parameter_values(template, environment, pseudo)
    except StackValidationFailed:
        given = {**(environment.get("parameter_defaults") or {}),
                 **(environment.get("parameters") or {})}
        values = {name: given.get(name, schema.default)
                  for name, schema in template.parameters.items()}
        values.update(pseudo)
        return values


def new_resource(identity: Mapping[str, Any], defn: ResourceDefinition, cls: type[Resource],
                 required_by: Iterable[str], ctx: Resolver, *, with_props: bool,
                 parent: str | None = None) -> dict[str, Any]:
    """A resource that does not exist yet, as Heat's engine formats one; ``parent``
    is the resource whose nested stack holds it (``parent_resource``)."""
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
        "metadata": quietly(lambda: defn.resolve_metadata(ctx), {}),
        "attributes": dict.fromkeys(cls.attributes_schema),
    }
    if parent:
        view["parent_resource"] = parent
    if with_props:
        given = quietly(lambda: defn.resolve_properties(ctx), {})
        view["properties"] = {key: given.get(key, schema.default)
                              for key, schema in cls.properties_schema.items()}
    return view


def quietly(compute: Callable[[], Any], fallback: Any) -> Any:
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
    values = parameter_values(parsed, environment, pseudo)
    decided = parsed.with_parameters(values)
    graph = decided.dependencies()
    ctx = Unbuilt(values)
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
