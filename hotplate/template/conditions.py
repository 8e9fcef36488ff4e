"""The ``conditions`` section, read only as far as is possible without a stack.

A condition is evaluated per stack (its functions read parameters), which
is a later step. What can be known from the template alone is used now: a
resource or output whose condition is ``false`` (literally, or a condition
defined as a literal boolean) is left out; any other condition is kept as
written and the resource stays in.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.paths import Path


def parse_conditions(section: Any) -> dict[str, Any]:
    """The condition definitions, by name (each a boolean or a function's data)."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise StackValidationFailed(
            f"Condition definitions must be a map. Found a {type(section).__name__} instead",
            ("conditions",),
        )
    for name, definition in section.items():
        if not isinstance(definition, bool) and not _looks_like_function(definition):
            raise StackValidationFailed(
                f'The definition of condition "{name}" is invalid: {definition}',
                ("conditions", name),
            )
    return dict(section)


def check_condition_type(condition: Any, owner: str, path: Path) -> None:
    """A ``condition`` field must be a name, a boolean or a condition function."""
    if not isinstance(condition, str | bool) and not _looks_like_function(condition):
        raise StackValidationFailed(
            f"Resource {owner} condition type must be string_or_boolean", path
        )


def known_value(condition: Any, conditions: dict[str, Any], path: Path) -> bool | None:
    """True or False when the template alone decides it; None when the stack does.

    Raises:
        StackValidationFailed: the condition names no defined condition (Heat's text).
    """
    if condition is None:
        return True
    if isinstance(condition, bool):
        return condition
    if isinstance(condition, str):
        if condition not in conditions:
            raise StackValidationFailed(f'Invalid condition "{condition}"', path)
        definition = conditions[condition]
        return definition if isinstance(definition, bool) else None
    return None


def _looks_like_function(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1
