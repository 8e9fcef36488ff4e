"""The ``conditions`` section and the ``condition`` of resources and outputs.

A condition is evaluated per stack: its functions read parameters. Parsed
without parameter values, a template uses what the template alone decides
(a literal ``false``, or a condition defined as a literal boolean) and keeps
every other resource; ``Template.with_parameters`` parses it again with
the values, which decides every condition.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.errors import with_path
from hotplate.template.functions import Node, ParseScope, Static, compile_condition, truth
from hotplate.template.paths import Path
from hotplate.template.spelling import HOT_SPELLING, Spelling


def parse_conditions(section: Any, names: Spelling = HOT_SPELLING) -> dict[str, Any]:
    """The condition definitions, by name (``compile_conditions`` checks each)."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise with_path(StackValidationFailed(
            "Conditions validation error: Condition definitions must be a map. "
            f"Found a {type(section).__name__} instead"), (names.conditions,))
    return dict(section)


def check_condition_type(
    condition: Any, owner: str, path: Path, names: Spelling = HOT_SPELLING
) -> None:
    """A ``condition`` field must be a name, a boolean or a condition function."""
    if not isinstance(condition, str | bool) and not _looks_like_function(condition):
        raise with_path(StackValidationFailed(
            f"Resource {owner} {names.condition} type must be {names.condition_typename}"),
            tuple(str(p) for p in path))


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


def decide(
    condition: Any, conditions: dict[str, Any], scope: ParseScope, path: Path
) -> bool | None:
    """A ``condition`` field's value; None when it needs parameter values not given."""
    if scope.parameter_values is None:
        return known_value(condition, conditions, path)
    if condition is None:
        return True
    node = compile_condition(condition, scope, path)
    ctx = scope.parameter_values
    return truth(node.resolve(ctx), scope.conditions, ctx, path)


def deferred(condition: Any, scope: ParseScope, path: Path) -> Node | None:
    """The parsed condition of an output whose value is decided when resolving."""
    if condition is None or isinstance(condition, bool):
        return None
    node = compile_condition(condition, scope, path)
    return None if isinstance(node, Static) and node.value is True else node
