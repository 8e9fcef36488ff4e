"""Property schemas and the validation that turns a template's raw values into properties.

A plugin declares ``properties_schema = {"length": Schema(Schema.INTEGER, ...)}``;
``validate_properties`` then checks raw values against it the way Heat does:

1. unknown keys are refused:             ``<container>: Unknown Property foo``
2. each declared property in schema order:
   - absent or None: its default (coerced like a given value), else
     ``<container>: Property length not assigned`` if required, else None;
   - given: coerced to its type (Heat's rules below), nested maps and list
     items validated recursively, then its constraints checked; a failure
     names the property: ``<container>.length: Value 'x' is not an integer``.

``<container>`` is the ``path`` the caller passes (``('resources', 'web',
'properties')``), extended with keys and list indices for nested values;
it is carried by ``PropertyError.path`` (a ``StackValidationFailed``). Missing and unknown
properties name the container, not the key, exactly as Heat does.

Coercion (Heat's ``Property.get_value``):

==========  =============================================================
String      str kept; int and bool become str; anything else refused
Integer     ``int(value)`` ("5" -> 5; like Heat, 5.7 -> 5)
Number      numbers kept; strings -> int if possible, else float
Boolean     bool kept; "true"/"false" in any case; anything else refused
Map         a mapping; with a nested schema, validated as properties
List        a non-string sequence; with an item schema, each item validated
Any         kept as given
==========  =============================================================

The result holds every declared key (None when unset), so plugins index it
without ``get``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from hotplate.model.errors import PropertyError, StackValidationFailed
from hotplate.resources.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    InvalidSchemaError,
    Length,
    Modulo,
    Range,
    str_to_num,
)
from hotplate.resources.support import SupportStatus

__all__ = [
    "AllowedPattern",
    "AllowedValues",
    "Constraint",
    "InvalidSchemaError",
    "Length",
    "Modulo",
    "PropertyPath",
    "PropertyType",
    "Range",
    "Schema",
    "coerce_value",
    "with_defaults",
    "validate_properties",
]

PropertyPath = tuple[str | int, ...]


class PropertyType(StrEnum):
    """Property types under Heat's names (what resource type schemas show, lowercased)."""

    STRING = "String"
    INTEGER = "Integer"
    NUMBER = "Number"
    BOOLEAN = "Boolean"
    MAP = "Map"
    LIST = "List"
    ANY = "Any"


_BY_LOWER = {t.value.lower(): t for t in PropertyType}


@dataclass(frozen=True)
class Schema:
    """One property's declaration.

    ``schema`` nests: for a Map, a mapping of key -> Schema (the map's keys
    are then validated like properties); for a List, one Schema every item
    must satisfy. ``update_allowed`` properties change in place on update;
    a change to any other property replaces the resource. ``immutable``
    properties may not change at all.
    """

    type: PropertyType | str
    description: str = ""
    default: Any = None
    required: bool = False
    constraints: Sequence[Constraint] = ()
    update_allowed: bool = False
    immutable: bool = False
    schema: Mapping[str, Schema] | Schema | None = None
    support_status: SupportStatus = field(default_factory=SupportStatus)

    STRING: ClassVar[PropertyType] = PropertyType.STRING
    INTEGER: ClassVar[PropertyType] = PropertyType.INTEGER
    NUMBER: ClassVar[PropertyType] = PropertyType.NUMBER
    BOOLEAN: ClassVar[PropertyType] = PropertyType.BOOLEAN
    MAP: ClassVar[PropertyType] = PropertyType.MAP
    LIST: ClassVar[PropertyType] = PropertyType.LIST
    ANY: ClassVar[PropertyType] = PropertyType.ANY

    def __post_init__(self) -> None:
        kind = _BY_LOWER.get(str(self.type).lower())
        if kind is None:
            raise InvalidSchemaError(f"Invalid type ({self.type})")
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "constraints", tuple(self.constraints))
        if self.update_allowed and self.immutable:
            raise InvalidSchemaError("Options UpdateAllowed and Immutable cannot both be True")
        self._check_nested(kind)
        for constraint in self.constraints:
            if kind not in constraint.valid_types:
                raise InvalidSchemaError(
                    f"{type(constraint).__name__} constraint invalid for {kind}"
                )
        if self.default is not None:
            try:
                coerce_value(self, self.default, ())
            except StackValidationFailed as exc:
                raise InvalidSchemaError(f"Invalid default {self.default} ({exc.detail})")

    def _check_nested(self, kind: PropertyType) -> None:
        if self.schema is None:
            return
        if isinstance(self.schema, Schema):
            if kind is not PropertyType.LIST:
                raise InvalidSchemaError(f"Single schema valid only for List, not {kind}")
        elif kind is not PropertyType.MAP:
            raise InvalidSchemaError(f"Schema valid only for List or Map, not {kind}")

    def as_dict(self) -> dict[str, Any]:
        """Heat's resource-type view of this property (``openstack orchestration resource
        type show``)."""
        out: dict[str, Any] = {
            "type": str(self.type).lower(),
            "required": self.required,
            "update_allowed": self.update_allowed,
            "immutable": self.immutable,
        }
        if self.description:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = self.default
        if self.constraints:
            out["constraints"] = [c.as_dict() for c in self.constraints]
        if isinstance(self.schema, Schema):
            out["schema"] = {"*": self.schema.as_dict()}
        elif self.schema is not None:
            out["schema"] = {k: s.as_dict() for k, s in self.schema.items()}
        return out


def validate_properties(
    schema: Mapping[str, Schema],
    raw: Mapping[str, Any] | None,
    path: Sequence[str | int] = ("properties",),
) -> dict[str, Any]:
    """Check ``raw`` against ``schema``; return every declared key with its final value.

    Raises:
        PropertyError: with Heat's message and ``path`` naming where
            (the container for unknown and missing properties, the property
            itself for a bad value).
    """
    where: PropertyPath = tuple(path)
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise PropertyError(f'"{raw}" is not a map', where)
    for key in raw:
        if key not in schema:
            raise PropertyError(f"Unknown Property {key}", where)
    return {key: _value_or_default(key, prop, raw.get(key), where)
            for key, prop in schema.items()}


def with_defaults(schema: Mapping[str, Schema], props: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` plus every declared key it lacks, set to its default (or None).

    For properties that were stored rather than just validated: a row whose
    create failed early, or one written before its type gained a property,
    still gives the plugin every key it indexes. Nothing is re-validated.
    """
    filled = dict(props)
    for key, prop in schema.items():
        if key in filled:
            continue
        default = copy.deepcopy(prop.default)
        filled[key] = None if default is None else coerce_value(prop, default, ())
    return filled


def _value_or_default(key: str | int, prop: Schema, value: Any, where: PropertyPath) -> Any:
    if value is None:
        if prop.default is not None:
            value = copy.deepcopy(prop.default)
        elif prop.required:
            raise PropertyError(f"Property {key} not assigned", where)
        else:
            return None
    return coerce_value(prop, value, (*where, key))


def coerce_value(prop: Schema, value: Any, path: Sequence[str | int]) -> Any:
    """Coerce one given (non-None) value to ``prop``'s type and check its constraints.

    ``path`` names the value itself; nested errors extend it.
    """
    where: PropertyPath = tuple(path)
    try:
        result = _convert(prop, value, where)
    except (ValueError, TypeError, OverflowError) as exc:
        raise PropertyError(str(exc), where)
    for constraint in prop.constraints:
        try:
            message = constraint.check(result, str(prop.type))
        except (ValueError, TypeError) as exc:
            message = str(exc)
        if message is not None:
            raise PropertyError(message, where)
    return result


def _convert(prop: Schema, value: Any, where: PropertyPath) -> Any:
    kind = prop.type
    if kind is PropertyType.STRING:
        return _to_string(value)
    if kind is PropertyType.INTEGER:
        return _to_integer(value)
    if kind is PropertyType.NUMBER:
        return str_to_num(value)
    if kind is PropertyType.BOOLEAN:
        return _to_boolean(value)
    if kind is PropertyType.MAP:
        return _to_map(prop, value, where)
    if kind is PropertyType.LIST:
        return _to_list(prop, value, where)
    return value


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int):
        return str(value)
    raise ValueError(f"Value must be a string; got {value!r}")


def _to_integer(value: Any) -> int:
    try:
        return int(value)
    except (ValueError, TypeError, OverflowError):
        raise TypeError(f"Value '{value}' is not an integer")


def _to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        normalised = value.lower()
        if normalised not in ("true", "false"):
            raise ValueError(f'"{normalised}" is not a valid boolean')
        return normalised == "true"
    raise TypeError(f'"{value}" is not a valid boolean')


def _to_map(prop: Schema, value: Any, where: PropertyPath) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f'"{value}" is not a map')
    if isinstance(prop.schema, Mapping):
        return validate_properties(prop.schema, value, where)
    return dict(value)


def _to_list(prop: Schema, value: Any, where: PropertyPath) -> list[Any]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise TypeError(f'"{value!r}" is not a list')
    item = prop.schema
    if isinstance(item, Schema):
        return [_value_or_default(i, item, v, where) for i, v in enumerate(value)]
    return list(value)
