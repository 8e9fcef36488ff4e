"""Constraints on property values, with Heat's error texts.

::

    Constraint
    ├── Range           Integer, Number          '0 is out of range (min: 1, max: 512)'
    │   └── Length      String, List, Map        'length (0) is out of range (min: 1, max: None)'
    ├── Modulo          Integer, Number          '5 is not a multiple of 2 with an offset of 0)'
    ├── AllowedValues   String, Integer, Number, Boolean, List
    │                                            '"x" is not an allowed value ["a", "b"]'
    ├── AllowedPattern  String                   '"x" does not match pattern "[a-z]+1"'
    └── CustomConstraint  String, Integer, Number, Boolean, List
                                                 "Error validating value 'x': Invalid IP address"

Users see these texts in stack errors and scripts match on them, so they are
Heat's, byte for byte (including Modulo's unbalanced parenthesis). A
constraint given a ``description`` reports that instead, as in Heat.

A constraint that cannot work (no bounds, a bad pattern) is a plugin bug and
raises ``InvalidSchemaError`` when the schema is declared, never at run time.

A ``CustomConstraint`` names one of Heat's registered checks
(``custom_constraints``): the pure ones (``ip_addr``...) are checked with the
others; the ones that ask a cloud (``nova.flavor``...) are skipped here and
checked by the engine, which has the caller's cloud (``cloud_checks``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from hotplate.resources import custom_constraints
from hotplate.template.coercion import str_to_num  # Heat's one number rule
from hotplate.template.constraints import allowed_values_error

__all__ = [
    "AllowedPattern",
    "AllowedValues",
    "Constraint",
    "CustomConstraint",
    "InvalidSchemaError",
    "Length",
    "Modulo",
    "Range",
    "str_to_num",
]


class InvalidSchemaError(Exception):
    """A property or attribute schema is declared wrongly (a plugin bug, not user error)."""


_STRICT_TRUE = frozenset({"1", "t", "true", "on", "y", "yes"})
_STRICT_FALSE = frozenset({"0", "f", "false", "off", "n", "no"})


def _to_schema_type(value: Any, schema_type: str | None) -> Any:
    """How AllowedValues compares: both sides in the property's type (Heat's to_schema_type)."""
    try:
        if schema_type in ("Integer", "Number"):
            return str_to_num(value)
        if schema_type == "String":
            return str(value)
        if schema_type == "Boolean":
            text = str(value).strip().lower()
            if text in _STRICT_TRUE:
                return True
            if text in _STRICT_FALSE:
                return False
            raise ValueError(text)
    except (ValueError, TypeError):
        raise ValueError(f'Value "{value}" is invalid for data type "{schema_type}".')
    return value


@dataclass(frozen=True)
class Constraint:
    """One rule a value must satisfy; ``check`` returns the error text or None."""

    valid_types: ClassVar[frozenset[str]] = frozenset()
    name: ClassVar[str] = ""

    def check(self, value: Any, schema_type: str | None = None) -> str | None:
        """None when ``value`` satisfies the constraint, else the message users see."""
        if self._is_valid(value, schema_type):
            return None
        description: str | None = getattr(self, "description", None)
        return description or self._err_msg(value)

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        raise NotImplementedError

    def _err_msg(self, value: Any) -> str:
        raise NotImplementedError

    def as_dict(self) -> dict[str, Any]:
        """The HOT form (``{'range': {'min': 1}, 'description': ...}``) for schema listings."""
        out: dict[str, Any] = {self.name: self._body()}
        description = getattr(self, "description", None)
        if description is not None:
            out["description"] = description
        return out

    def _body(self) -> Any:
        raise NotImplementedError


def _is_num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Range(Constraint):
    """min <= value <= max; either bound may be omitted."""

    min: float | None = None
    max: float | None = None
    description: str | None = None

    valid_types: ClassVar[frozenset[str]] = frozenset({"Integer", "Number"})
    name: ClassVar[str] = "range"

    def __post_init__(self) -> None:
        for bound in (self.min, self.max):
            if bound is not None and not _is_num(bound):
                raise InvalidSchemaError("min/max must be numeric")
        if self.min is None and self.max is None:
            raise InvalidSchemaError(
                "A range constraint must have a min value and/or a max value specified."
            )

    def _in_bounds(self, number: Any) -> bool:
        if self.min is not None and number < self.min:
            return False
        return not (self.max is not None and number > self.max)

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        return self._in_bounds(str_to_num(value))

    def _err_msg(self, value: Any) -> str:
        return f"{value} is out of range (min: {self.min}, max: {self.max})"

    def _body(self) -> Any:
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


@dataclass(frozen=True)
class Length(Range):
    """min <= len(value) <= max, for strings, lists and maps."""

    valid_types: ClassVar[frozenset[str]] = frozenset({"String", "List", "Map"})
    name: ClassVar[str] = "length"

    def __post_init__(self) -> None:
        if self.min is None and self.max is None:
            raise InvalidSchemaError(
                "A length constraint must have a min value and/or a max value specified."
            )
        for bound in (self.min, self.max):
            if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool)):
                raise InvalidSchemaError("min/max length must be integral")

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        return self._in_bounds(len(value))

    def _err_msg(self, value: Any) -> str:
        return f"length ({len(value)}) is out of range (min: {self.min}, max: {self.max})"


@dataclass(frozen=True)
class Modulo(Constraint):
    """value % step == offset (both integers, same sign, |offset| < |step|)."""

    step: int = 0
    offset: int = 0
    description: str | None = None

    valid_types: ClassVar[frozenset[str]] = frozenset({"Integer", "Number"})
    name: ClassVar[str] = "modulo"

    def __post_init__(self) -> None:
        for param in (self.step, self.offset):
            if not _is_num(param):
                raise InvalidSchemaError("step/offset must be numeric")
            if int(param) != param:
                raise InvalidSchemaError("step/offset must be integer")
        if self.step == 0:
            raise InvalidSchemaError("step cannot be 0.")
        if abs(self.offset) >= abs(self.step):
            raise InvalidSchemaError("offset must be smaller (by absolute value) than step.")
        if self.step * self.offset < 0:
            raise InvalidSchemaError("step and offset must be both positive or both negative.")

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        return bool(str_to_num(value) % self.step == self.offset)

    def _err_msg(self, value: Any) -> str:
        # The stray ')' is Heat's; the text is kept identical on purpose.
        return f"{value} is not a multiple of {self.step} with an offset of {self.offset})"

    def _body(self) -> Any:
        return {"step": self.step, "offset": self.offset}


@dataclass(frozen=True)
class AllowedValues(Constraint):
    """The value (or every item of a list value) is one of ``allowed``."""

    allowed: tuple[Any, ...] = field(default=())
    description: str | None = None

    valid_types: ClassVar[frozenset[str]] = frozenset(
        {"String", "Integer", "Number", "Boolean", "List"}
    )
    name: ClassVar[str] = "allowed_values"

    def __post_init__(self) -> None:
        if not isinstance(self.allowed, Sequence) or isinstance(self.allowed, str):
            raise InvalidSchemaError("AllowedValues must be a list")
        object.__setattr__(self, "allowed", tuple(self.allowed))

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        if isinstance(value, list):
            return all(item in self.allowed for item in value)
        if schema_type is None or schema_type == "List":
            return value in self.allowed
        try:
            allowed = [_to_schema_type(item, schema_type) for item in self.allowed]
            return _to_schema_type(value, schema_type) in allowed
        except ValueError:
            return False

    def _err_msg(self, value: Any) -> str:
        return allowed_values_error(value, self.allowed)

    def _body(self) -> Any:
        return list(self.allowed)


@dataclass(frozen=True)
class AllowedPattern(Constraint):
    """The whole string matches ``pattern`` (anchored at both ends, as Heat does)."""

    pattern: str = ""
    description: str | None = None

    valid_types: ClassVar[frozenset[str]] = frozenset({"String"})
    name: ClassVar[str] = "allowed_pattern"

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise InvalidSchemaError("AllowedPattern must be a string")
        try:
            re.compile(self.pattern)
        except re.error as exc:
            raise InvalidSchemaError(f"Invalid AllowedPattern {self.pattern!r}: {exc}")

    def _is_valid(self, value: Any, schema_type: str | None) -> bool:
        match = re.match(self.pattern, value)
        return match is not None and match.end() == len(value)

    def _err_msg(self, value: Any) -> str:
        return f'"{value}" does not match pattern "{self.pattern}"'

    def _body(self) -> Any:
        return self.pattern


@dataclass(frozen=True)
class CustomConstraint(Constraint):
    """One of Heat's registered checks, by name (``CustomConstraint("ip_addr")``).

    ``check`` runs the pure ones; a cloud one passes here (``needs_cloud``) and
    is checked by ``check_with`` when the engine has a cloud to ask.
    """

    constraint: str = ""
    description: str | None = None

    valid_types: ClassVar[frozenset[str]] = frozenset(
        {"String", "Integer", "Number", "Boolean", "List"})
    name: ClassVar[str] = "custom_constraint"

    @property
    def needs_cloud(self) -> bool:
        return not custom_constraints.is_pure(self.constraint)

    def check(self, value: Any, schema_type: str | None = None) -> str | None:
        if self.needs_cloud:
            return None
        return self.check_with(value, custom_constraints.CheckContext(datetime.now(UTC)))

    def check_with(self, value: Any, ctx: custom_constraints.CheckContext) -> str | None:
        """The check with a cloud (and a clock) to ask; None when ``value`` passes."""
        message = custom_constraints.check_custom(self.constraint, value, ctx)
        if message is None:
            return None
        return self.description or message

    def _body(self) -> Any:
        return self.constraint
