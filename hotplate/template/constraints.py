"""Parameter constraints: range, length, modulo, allowed_values, allowed_pattern, custom.

Each constraint is a frozen value built once at parse time (patterns are
compiled then) and asked ``check(value, param_type)`` per stack. Heat's
messages are kept, including their quirks (the stray ")" of the modulo
message, "None" for a missing bound), because users match on them; a
constraint's ``description``, when given, replaces the message as in Heat.

Custom constraints (``custom_constraint: nova.flavor``) name checks that
need a cloud; they are parsed and kept here and checked by whoever has one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hotplate.template.coercion import (
    BOOLEAN,
    JSON,
    LIST,
    NUMBER,
    STRING,
    str_to_num,
    to_schema_type,
)
from hotplate.template.errors import InvalidSchemaError


@dataclass(frozen=True, slots=True)
class Constraint:
    description: str | None
    kind: ClassVar[str] = "Constraint"
    """Heat's class name, used in "Range constraint invalid for string"."""
    valid_types: ClassVar[frozenset[str]] = frozenset()

    def check(self, value: Any, param_type: str) -> None:
        """Raise ValueError with the user-facing message if ``value`` breaks the rule."""
        if not self.is_valid(value, param_type):
            raise ValueError(self.description or self.message(value))

    def is_valid(self, value: Any, param_type: str) -> bool:
        raise NotImplementedError

    def message(self, value: Any) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Range(Constraint):
    min: int | float | None = None
    max: int | float | None = None
    kind: ClassVar[str] = "Range"
    valid_types: ClassVar[frozenset[str]] = frozenset({NUMBER})

    def __post_init__(self) -> None:
        for bound in (self.min, self.max):
            if not isinstance(bound, int | float | None):
                raise InvalidSchemaError("min/max must be numeric")
        if self.min is None and self.max is None:
            raise InvalidSchemaError(
                "A range constraint must have a min value and/or a max value specified."
            )

    def in_bounds(self, number: Any) -> bool:
        if self.min is not None and number < self.min:
            return False
        return not (self.max is not None and number > self.max)

    def is_valid(self, value: Any, param_type: str) -> bool:
        return self.in_bounds(str_to_num(value))

    def message(self, value: Any) -> str:
        return f"{value} is out of range (min: {self.min}, max: {self.max})"


@dataclass(frozen=True, slots=True)
class Length(Range):
    kind: ClassVar[str] = "Length"
    valid_types: ClassVar[frozenset[str]] = frozenset({STRING, LIST, JSON})

    def __post_init__(self) -> None:
        if self.min is None and self.max is None:
            raise InvalidSchemaError(
                "A length constraint must have a min value and/or a max value specified."
            )
        Range.__post_init__(self)
        for bound in (self.min, self.max):
            if isinstance(bound, float):
                raise InvalidSchemaError("min/max length must be integral")

    def is_valid(self, value: Any, param_type: str) -> bool:
        return self.in_bounds(len(value))

    def message(self, value: Any) -> str:
        return f"length ({len(value)}) is out of range (min: {self.min}, max: {self.max})"


@dataclass(frozen=True, slots=True)
class Modulo(Constraint):
    step: int = 0
    offset: int = 0
    kind: ClassVar[str] = "Modulo"
    valid_types: ClassVar[frozenset[str]] = frozenset({NUMBER})

    @classmethod
    def create(cls, step: Any, offset: Any, description: str | None) -> Modulo:
        """Validate the declaration the way Heat does, in Heat's order."""
        if step is None or offset is None:
            raise InvalidSchemaError(
                "A modulo constraint must have a step value and an offset value specified."
            )
        for value in (step, offset):
            if not isinstance(value, int | float):
                raise InvalidSchemaError("step/offset must be numeric")
            if int(value) != value:
                raise InvalidSchemaError("step/offset must be integer")
        step, offset = int(step), int(offset)
        if step == 0:
            raise InvalidSchemaError("step cannot be 0.")
        if abs(offset) >= abs(step):
            raise InvalidSchemaError("offset must be smaller (by absolute value) than step.")
        if step * offset < 0:
            raise InvalidSchemaError("step and offset must be both positive or both negative.")
        return cls(description, step, offset)

    def is_valid(self, value: Any, param_type: str) -> bool:
        return bool(str_to_num(value) % self.step == self.offset)

    def message(self, value: Any) -> str:
        return f"{value} is not a multiple of {self.step} with an offset of {self.offset})"


@dataclass(frozen=True, slots=True)
class AllowedValues(Constraint):
    allowed: tuple[Any, ...] = ()
    kind: ClassVar[str] = "AllowedValues"
    valid_types: ClassVar[frozenset[str]] = frozenset({STRING, NUMBER, BOOLEAN, LIST})

    @classmethod
    def create(cls, allowed: Any, description: str | None) -> AllowedValues:
        if not isinstance(allowed, Sequence) or isinstance(allowed, str):
            raise InvalidSchemaError("AllowedValues must be a list")
        return cls(description, tuple(allowed))

    def is_valid(self, value: Any, param_type: str) -> bool:
        if isinstance(value, list):
            return all(v in self.allowed for v in value)
        allowed = tuple(to_schema_type(v, param_type) for v in self.allowed)
        return to_schema_type(value, param_type) in allowed

    def message(self, value: Any) -> str:
        return allowed_values_error(value, self.allowed)


def allowed_values_error(value: Any, allowed: Sequence[Any]) -> str:
    """Heat's AllowedValues failure, for parameters and properties alike.

    Heat writes the value and each allowed one as JSON (``"c" is not an allowed
    value ["a", "b"]``, ``3 is not an allowed value [1, 2]``): scripts match on
    it, so the quoting follows the value's type exactly as JSON spells it.
    """
    listed = ", ".join(_as_json(item) for item in allowed)
    return f"{_as_json(value)} is not an allowed value [{listed}]"


def _as_json(value: Any) -> str:
    # Values come from JSON or YAML; anything else is shown as text, never raised.
    return json.dumps(value, default=str)


@dataclass(frozen=True, slots=True)
class AllowedPattern(Constraint):
    pattern: str = ""
    compiled: re.Pattern[str] = field(default=re.compile(""), compare=False, repr=False)
    kind: ClassVar[str] = "AllowedPattern"
    valid_types: ClassVar[frozenset[str]] = frozenset({STRING})

    @classmethod
    def create(cls, pattern: Any, description: str | None) -> AllowedPattern:
        if not isinstance(pattern, str):
            raise InvalidSchemaError("AllowedPattern must be a string")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise InvalidSchemaError(f'Invalid allowed_pattern "{pattern}": {exc}') from None
        return cls(description, pattern, compiled)

    def is_valid(self, value: Any, param_type: str) -> bool:
        match = self.compiled.match(value)
        return match is not None and match.end() == len(value)

    def message(self, value: Any) -> str:
        return f'"{value}" does not match pattern "{self.pattern}"'


@dataclass(frozen=True, slots=True)
class CustomConstraint(Constraint):
    name: Any = None
    kind: ClassVar[str] = "CustomConstraint"
    valid_types: ClassVar[frozenset[str]] = frozenset({STRING, NUMBER, BOOLEAN, LIST})

    def is_valid(self, value: Any, param_type: str) -> bool:
        return True  # needs a cloud to check; see the module docstring
