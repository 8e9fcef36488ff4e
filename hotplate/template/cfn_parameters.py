"""CFN's ``Parameters`` section, parsed into the same ``ParameterSchema`` as HOT's.

A CFN declaration is flat: ``Type`` (String, Number, CommaDelimitedList,
Json, Boolean), ``Default``, ``NoEcho``, ``Description``, ``Label`` and the
constraints as keys (``MinValue``/``MaxValue``, ``MinLength``/``MaxLength``,
``AllowedValues``, ``AllowedPattern``) sharing one ``ConstraintDescription``.
Each type maps to HOT's, so values are then converted and checked by the
same code (``resolve_parameters``) for both formats. Checks, their order
and messages are Heat's (``heat/engine/parameters.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hotplate.template.coercion import BOOLEAN, JSON, LIST, NUMBER, STRING, str_to_num
from hotplate.template.constraints import AllowedPattern, AllowedValues, Constraint, Length, Range
from hotplate.template.errors import InvalidSchemaError, with_path
from hotplate.template.parameters import ParameterSchema, check_dict
from hotplate.template.versions import TemplateVersion

CFN_TYPES: Mapping[str, str] = {
    "String": STRING,
    "Number": NUMBER,
    "CommaDelimitedList": LIST,
    "Json": JSON,
    "Boolean": BOOLEAN,
}
"""CFN's type names and the HOT types they are."""


def parse_cfn_parameters(section: Any, version: TemplateVersion) -> dict[str, ParameterSchema]:
    """Every parameter of a CFN template, in template order.

    Raises:
        InvalidSchemaError: a declaration is invalid (the path names it).
    """
    if section is None:
        return {}
    name_of_section = version.spelling.parameters
    if not isinstance(section, dict):
        raise InvalidSchemaError(
            f'The "{name_of_section}" section must be a map', (name_of_section,)
        )
    schemas = {}
    for name, data in section.items():
        try:
            schemas[name] = _parse_one(name, data, version)
        except InvalidSchemaError as exc:
            raise with_path(exc, (name_of_section, name)) from None
    return schemas


def _parse_one(name: str, data: Any, version: TemplateVersion) -> ParameterSchema:
    check_dict(data, version.parameter_keys, f"parameter ({name})")
    if "Type" not in data:
        raise InvalidSchemaError(f"Missing parameter type for parameter: {name}")
    constraints = tuple(_constraints(data))
    declared = data["Type"]
    if not isinstance(declared, str) or declared not in CFN_TYPES:
        raise InvalidSchemaError(f"Invalid type ({declared})")
    schema = ParameterSchema(
        name=name,
        type=CFN_TYPES[declared],
        description=data.get("Description"),
        default=data.get("Default"),
        label=data.get("Label"),
        hidden=str(data.get("NoEcho", "false")).lower() == "true",
        constraints=constraints,
    )
    for constraint in constraints:
        if schema.type not in constraint.valid_types:
            raise InvalidSchemaError(
                f"Parameter '{name}' is invalid: "
                f"{constraint.kind} constraint invalid for {declared}"
            )
    return schema


def _constraints(data: Mapping[str, Any]) -> Iterator[Constraint]:
    """The constraints the keys express, in Heat's order; one description for all."""
    description = data.get("ConstraintDescription")
    if "MinValue" in data or "MaxValue" in data:
        yield Range(description, _number(data, "MinValue"), _number(data, "MaxValue"))
    if "MinLength" in data or "MaxLength" in data:
        yield Length(description, _number(data, "MinLength"), _number(data, "MaxLength"))
    if "AllowedValues" in data:
        yield AllowedValues.create(data["AllowedValues"], description)
    if "AllowedPattern" in data:
        yield AllowedPattern.create(data["AllowedPattern"], description)


def _number(data: Mapping[str, Any], key: str) -> Any:
    value = data.get(key)
    if value is None:
        return None
    try:
        return str_to_num(value)
    except (ValueError, TypeError) as exc:
        raise InvalidSchemaError(str(exc)) from None
