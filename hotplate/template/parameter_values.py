"""From user input to validated parameter values, as Heat's ``Parameters.validate`` does.

Order, as in Heat: first refuse user parameters the template does not
declare; then, parameter by parameter in template order, check the
template's default against the constraints, pick the value (user value,
else the environment's ``parameter_defaults``, else the default), and
convert and check it. Every failure names the parameter:
``Parameter 'n' is invalid: 3 is out of range (min: 5, max: None)``.

An update also checks ``immutable: true`` parameters against the values the
stack has (``immutable_modified``): changing one refuses the whole update.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import (
    HotplateError,
    StackValidationFailed,
    UnknownUserParameter,
    UserParameterMissing,
)
from hotplate.template.coercion import BOOLEAN, JSON, LIST, NUMBER, bool_from_string, str_to_num
from hotplate.template.constraints import CustomConstraint
from hotplate.template.errors import InvalidSchemaError, with_path
from hotplate.template.parameters import ParameterSchema

if TYPE_CHECKING:
    from hotplate.template.template import Template


def resolve_parameters(
    template: Template,
    user_params: Mapping[str, Any],
    *,
    param_defaults: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The value of every template parameter, converted to its type.

    Pseudo parameters are not included: the engine knows their values.

    Raises:
        UnknownUserParameter: a user parameter the template does not declare.
        UserParameterMissing: a parameter with no value and no default.
        InvalidSchemaError: a default breaks the parameter's constraints.
        StackValidationFailed: a value is of the wrong type or breaks a constraint.
    """
    section = template.hot_version.spelling.parameters  # "Parameters" in CFN
    for name in user_params:
        if name not in template.parameters:
            raise with_path(UnknownUserParameter(name), (section, name))
    defaults = param_defaults or {}
    values: dict[str, Any] = {}
    for name, schema in template.parameters.items():
        path = (section, name)
        _check_default(schema, path)
        raw = user_params.get(name)
        if raw is None:
            raw = defaults.get(name)
        if raw is None:
            raw = schema.default
        if raw is None:
            raise with_path(UserParameterMissing(name), path)
        try:
            values[name] = coerce_value(schema, raw)
        except ValueError as exc:
            raise StackValidationFailed(f"Parameter '{name}' is invalid: {exc}") from None
    return values


class ImmutableParameterModified(HotplateError):
    """An update changes a parameter declared ``immutable: true`` (a 400, Heat's text)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__("The following parameters are immutable and may not be updated: "
                         + ", ".join(names))
        self.names = names


def immutable_modified(
    old_values: Mapping[str, Any], template: Template, new_values: Mapping[str, Any]
) -> list[str]:
    """The parameters an update may not change, in ``template``'s order.

    Heat's rule: a parameter both stacks have, declared immutable by the new
    template, whose new value differs from the stack's. Values are compared
    once converted to the parameter's type, so ``"5"`` for a number that is 5
    is no change.
    """
    return [name for name, schema in template.parameters.items()
            if schema.immutable and name in old_values and name in new_values
            and old_values[name] != new_values[name]]


def coerce_value(schema: ParameterSchema, raw: Any) -> Any:
    """``raw`` converted to the parameter's type and checked against its constraints.

    Raises:
        ValueError: with the message Heat gives for the problem.
    """
    value = _convert(schema.type, raw)
    # Numbers and booleans are checked in the form the user gave (Heat's
    # messages quote it); lists and JSON are checked once parsed.
    checked = raw if schema.type in (NUMBER, BOOLEAN) else value
    _check(schema, checked, skip_custom=False)
    return value


def _convert(param_type: str, raw: Any) -> Any:
    try:
        if param_type == NUMBER:
            number = str_to_num(raw)
            if isinstance(number, float) and not math.isfinite(number):
                raise ValueError(f'Value "{raw}" is invalid for data type "{param_type}".')
            return number
        if param_type == BOOLEAN:
            return bool_from_string(raw)
        if param_type == LIST:
            return parse_list(raw)
        if param_type == JSON:
            return parse_json(raw)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    return raw if isinstance(raw, str) else str(raw)


def parse_list(raw: Any) -> list[str]:
    """A comma_delimited_list from a list (items as text) or a string ('' is [])."""
    if isinstance(raw, list):
        return [str(item) for item in raw]
    if not isinstance(raw, str):
        message = f"'{type(raw).__name__}' object has no attribute 'split'"
        raise ValueError(f"Value must be a comma-delimited list string: {message}")
    return raw.split(",") if raw else []


def parse_json(raw: Any) -> Any:
    """A json parameter from JSON text or already-parsed data ('' stays '')."""
    text = raw if isinstance(raw, str) else json.dumps(raw)
    if not text:
        return raw
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"Value must be valid JSON: {exc}") from None


def _check(schema: ParameterSchema, value: Any, *, skip_custom: bool) -> None:
    for constraint in schema.constraints:
        if skip_custom and isinstance(constraint, CustomConstraint):
            continue
        try:
            constraint.check(value, schema.type)
        except TypeError as exc:
            raise ValueError(str(exc)) from None


def _check_default(schema: ParameterSchema, path: tuple[str, str]) -> None:
    """Heat checks the template's own default even when a value is given."""
    default = schema.default
    if default is None:
        return
    prefix = f"Parameter '{schema.name}' is invalid: "
    if schema.type == LIST:
        if isinstance(default, list):
            default = [str(item) for item in default]
        elif isinstance(default, str):
            default = default.split(",")
        else:
            raise InvalidSchemaError(
                f"{prefix}Default must be a comma-delimited list string: "
                f"'{type(default).__name__}' object has no attribute 'split'",
                path,
            )
    try:
        _check(schema, default, skip_custom=True)
    except ValueError as exc:
        raise InvalidSchemaError(
            f"{prefix}Invalid default {schema.default} ({exc})", path
        ) from None
