"""What a dry run shows of a resource not built yet, and the resolvers it reads.

A resource of a preview has its properties resolved as far as they can be
before anything exists (``get_resource`` gives the resource's name,
``get_attr`` gives None). Shared by the create preview (``preview_create``)
and the update preview (``preview_stack`` sorts one stack's update,
``preview_update`` walks nested stacks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource
from hotplate.template import (
    ResourceDefinition,
    Template,
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
