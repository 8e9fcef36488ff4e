"""The ``parameters`` section: each declaration parsed once into a ``ParameterSchema``.

Checks and messages follow Heat's HOT parameter schema, in Heat's order:
allowed keys, a type, tags, then each constraint, then the type's name, and
last whether each constraint suits the type. Only defaults and values are
left for ``resolve_parameters``, since ``parameter_defaults`` can change the
default per stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.template.coercion import TYPES, str_to_num
from hotplate.template.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)
from hotplate.template.errors import InvalidSchemaError, with_path
from hotplate.template.versions import HOT_PSEUDO_PARAMETERS, TemplateVersion

PSEUDO_PARAMETERS = HOT_PSEUDO_PARAMETERS
"""Supplied by the engine for every stack; ``get_param`` may always name them."""

_CONSTRAINT_KEYS = (
    "description", "length", "range", "modulo", "allowed_values", "allowed_pattern",
    "custom_constraint",
)


@dataclass(frozen=True, slots=True)
class ParameterSchema:
    """One parameter as declared. ``default`` is None when there is none (as in Heat)."""

    name: str
    type: str
    description: str | None = None
    default: Any = None
    label: str | None = None
    hidden: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    constraints: tuple[Constraint, ...] = ()

    @property
    def has_default(self) -> bool:
        return self.default is not None


def parse_parameters(section: Any, version: TemplateVersion) -> dict[str, ParameterSchema]:
    """Every parameter of the template, in template order.

    Raises:
        InvalidSchemaError: a declaration is invalid (the path names it).
    """
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise InvalidSchemaError('The "parameters" section must be a map', ("parameters",))
    schemas = {}
    for name, data in section.items():
        try:
            schemas[name] = _parse_one(name, data, version)
        except InvalidSchemaError as exc:
            raise with_path(exc, ("parameters", name)) from None
    return schemas


def _parse_one(name: str, data: Any, version: TemplateVersion) -> ParameterSchema:
    entity = f"parameter ({name})"
    check_dict(data, version.parameter_keys, entity)
    if "type" not in data:
        raise InvalidSchemaError(f"Missing parameter type for parameter: {name}")
    tags = data.get("tags", [])
    if not isinstance(tags, list):
        raise InvalidSchemaError(f"Tags property should be a list for parameter: {name}")
    constraints = tuple(_constraints(name, data.get("constraints"), version))
    if data["type"] not in TYPES:
        raise InvalidSchemaError(f"Invalid type ({data['type']})")
    schema = ParameterSchema(
        name=name,
        type=data["type"],
        description=data.get("description"),
        default=data.get("default"),
        label=data.get("label"),
        hidden=bool(data.get("hidden", False)),
        immutable=bool(data.get("immutable", False)),
        tags=tuple(str(t) for t in tags),
        constraints=constraints,
    )
    for constraint in constraints:
        if schema.type not in constraint.valid_types:
            raise InvalidSchemaError(
                f"Parameter '{name}' is invalid: "
                f"{constraint.kind} constraint invalid for {schema.type}"
            )
    return schema


def check_dict(data: Any, allowed: tuple[str, ...], entity: str) -> None:
    """Refuse a declaration that is not a mapping or has a key not in ``allowed``."""
    if not isinstance(data, dict):
        raise InvalidSchemaError(f"Invalid {entity}, expected a mapping")
    for key in data:
        if key not in allowed:
            raise InvalidSchemaError(f"Invalid key '{key}' for {entity}")


def _constraints(name: str, declared: Any, version: TemplateVersion) -> list[Constraint]:
    if declared is None:
        return []
    if not isinstance(declared, list):
        raise InvalidSchemaError(
            f"Invalid parameter constraints for parameter {name}, expected a list"
        )
    result = []
    for item in declared:
        check_dict(item, _CONSTRAINT_KEYS, "parameter constraints")
        result.append(_constraint(item, version))
    return result


def _constraint(item: Mapping[str, Any], version: TemplateVersion) -> Constraint:
    description = item.get("description")
    if version.modulo_constraint and "modulo" in item:
        bounds = _bounds(item["modulo"], ("step", "offset"), "modulo constraint")
        return Modulo.create(bounds["step"], bounds["offset"], description)
    if "range" in item:
        bounds = _bounds(item["range"], ("min", "max"), "range constraint")
        return Range(description, bounds["min"], bounds["max"])
    if "length" in item:
        bounds = _bounds(item["length"], ("min", "max"), "length constraint")
        return Length(description, bounds["min"], bounds["max"])
    if "allowed_values" in item:
        return AllowedValues.create(item["allowed_values"], description)
    if "allowed_pattern" in item:
        return AllowedPattern.create(item["allowed_pattern"], description)
    if "custom_constraint" in item:
        return CustomConstraint(description, item["custom_constraint"])
    raise InvalidSchemaError("No constraint expressed")


def _bounds(data: Any, keys: tuple[str, str], entity: str) -> dict[str, Any]:
    check_dict(data, keys, entity)
    bounds: dict[str, Any] = {}
    for key in keys:
        value = data.get(key)
        try:
            bounds[key] = None if value is None else str_to_num(value)
        except (ValueError, TypeError):
            noun = "step/offset" if entity.startswith("modulo") else "min/max"
            raise InvalidSchemaError(f"{noun} must be numeric") from None
    return bounds
