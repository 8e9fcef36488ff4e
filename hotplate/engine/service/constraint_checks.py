"""Custom constraints checked when Heat checks them: a stack's validation on create,
update and preview (not ``template validate``, which checks no values).

- A parameter's ``custom_constraint``, on its value:
  ``Parameter 'ip' is invalid: Error validating value 'not-an-ip': Invalid IP address``.
- A property's cloud constraints (``CustomConstraint("nova.flavor")`` in a plugin's
  schema), on the values known before any resource exists; the pure ones are
  checked with the schema (``resources.properties``), here and again when the
  resource is created.

Cloud constraints ask the caller's cloud; one whose service the catalog lacks
raises the client layer's error, as Heat's client does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.custom_constraints import CheckContext, check_custom
from hotplate.resources.properties import PropertyType, Schema
from hotplate.template import Template
from hotplate.template.constraints import CustomConstraint as ParameterConstraint

__all__ = ["check_parameters", "check_properties", "has_cloud_constraints"]


def check_parameters(template: Template, values: Mapping[str, Any], ctx: CheckContext) -> None:
    """Each parameter's custom constraints, in template order.

    Raises:
        StackValidationFailed: Heat's ``Parameter 'x' is invalid: ...`` (no path).
    """
    for name, schema in template.parameters.items():
        for constraint in schema.constraints:
            if not isinstance(constraint, ParameterConstraint) or name not in values:
                continue
            message = check_custom(constraint.name, values[name], ctx)
            if message is not None:
                raise StackValidationFailed(
                    f"Parameter '{name}' is invalid: {constraint.description or message}")


def has_cloud_constraints(schema: Mapping[str, Schema]) -> bool:
    """Whether any property (nested ones too) declares a constraint that asks a cloud."""
    return any(_needs_cloud(prop) for prop in schema.values())


def _needs_cloud(prop: Schema) -> bool:
    if any(isinstance(c, CustomConstraint) and c.needs_cloud for c in prop.constraints):
        return True
    nested = prop.schema
    if isinstance(nested, Schema):
        return _needs_cloud(nested)
    if isinstance(nested, Mapping):
        return has_cloud_constraints(nested)
    return False


def check_properties(schema: Mapping[str, Schema], props: Mapping[str, Any],
                     path: Sequence[str | int], ctx: CheckContext) -> None:
    """The cloud constraints of ``schema`` over validated ``props`` (None values skipped).

    Raises:
        StackValidationFailed: the constraint's message, naming the property.
    """
    for key, prop in schema.items():
        value = props.get(key)
        if value is not None:
            _check_value(prop, value, (*path, key), ctx)


def _check_value(prop: Schema, value: Any, path: tuple[str | int, ...],
                 ctx: CheckContext) -> None:
    for constraint in prop.constraints:
        if isinstance(constraint, CustomConstraint) and constraint.needs_cloud:
            message = constraint.check_with(value, ctx)
            if message is not None:
                raise StackValidationFailed(message, path)
    nested = prop.schema
    if prop.type is PropertyType.MAP and isinstance(nested, Mapping) and isinstance(
            value, Mapping):
        check_properties(nested, value, path, ctx)
    elif prop.type is PropertyType.LIST and isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(nested, Schema) and item is not None:
                _check_value(nested, item, (*path, index), ctx)
            elif isinstance(nested, Mapping) and isinstance(item, Mapping):
                check_properties(nested, item, (*path, index), ctx)


def now_of(clock: Any) -> datetime:
    """The engine clock's time, for ``expiration``."""
    current: datetime = clock.now()
    return current
