"""``validate_template``: Heat's lenient check of a template, and its parameter view.

Heat validates here without parameter values (``strict_validate=False``):
a form is usually built from this answer before the user has filled it in.
So what is checked is the template itself, its size and resource count,
its environment, that user parameters are declared, that defaults obey
their constraints, the dependency graph, parameter groups, each resource's
type and its property *names* (for plugins that validate by their schema);
values are not.

The answer's ``Parameters`` is Heat's view of each declared parameter
(``Type``, ``Description``, ``Default``, ``NoEcho``, ``Label``, constraint
keys); hidden parameters show their default and value too (only ``NoEcho``
tells them apart), as Heat's ``format_validate_parameter`` does.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.event_sinks import check_environment as check_event_sinks
from hotplate.engine.hosting.nested import MAX_NESTED_DEPTH
from hotplate.engine.service.type_access import TypeAccess
from hotplate.engine.service.validation import (
    attribute_names,
    located_in,
    parse_checked,
    resource_classes,
)
from hotplate.model.errors import (
    HotplateError,
    PropertyError,
    ResourceTypeUnavailable,
    UnknownUserParameter,
)
from hotplate.resources.base import Resource
from hotplate.resources.template_resource import TemplateResource
from hotplate.template import (
    Environment,
    InvalidSchemaError,
    ParameterSchema,
    Template,
    parse_environment,
    parse_template,
)
from hotplate.template.constraints import (
    AllowedPattern,
    AllowedValues,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)
from hotplate.template.validation import validate_functions

IGNORABLE_ERROR_CODES = frozenset({"99001"})
"""Heat's error codes (ERROR_CODE_MAP): 99001, a service not available for a type."""

API_TYPES = {"string": "String", "number": "Number", "comma_delimited_list": "CommaDelimitedList",
             "json": "Json", "boolean": "Boolean"}


def validate_template(deps: EngineDeps, template: Any, environment: Mapping[str, Any],
                      files: Mapping[str, Any], ignorable_errors: Any = None,
                      show_nested: bool = False, access: TypeAccess | None = None,
                      ) -> dict[str, Any]:
    """Heat's answer: the template's description, parameters, groups and environment,
    or ``{"Error": message}`` (which heat-api turns into a 400).

    With the caller's ``access``, a type whose service its catalog lacks is refused
    with Heat's ResourceTypeUnavailable (raised: heat-api answers it as a 400 of that
    class), unless ``ignorable_errors`` holds its code, 99001.

    Raises:
        ResourceTypeUnavailable: HEAT-E99001.
    """
    if template is None:
        return {"Error": "No Template provided."}
    invalid = sorted(set(ignorable_errors or ()) - IGNORABLE_ERROR_CODES)
    if invalid:
        return {"Error": f"Invalid codes in ignore_errors : {invalid}"}
    try:
        with located_in(template):
            parsed, env = _check(deps, template, environment, files, access,
                                 frozenset(ignorable_errors or ()))
    except ResourceTypeUnavailable as exc:
        if exc.error_code is not None:
            raise
        return {"Error": str(exc)}
    except HotplateError as exc:  # template errors and request limits alike
        return {"Error": str(exc)}
    result: dict[str, Any] = {
        "Description": parsed.description,
        "Parameters": {name: parameter_view(schema, env) for name, schema
                       in parsed.parameters.items()},
    }
    if parsed.parameter_groups:
        result["ParameterGroups"] = parsed.parameter_groups
    if show_nested:
        nested = _nested_parameters(deps, parsed, env, files, depth=1)
        if nested:
            result["NestedParameters"] = nested
    result["Environment"] = env.user_dict()
    return result


def _nested_parameters(deps: EngineDeps, parsed: Template, env: Environment,
                       files: Mapping[str, Any], depth: int) -> dict[str, Any]:
    """Heat's ``NestedParameters``: per template resource, its template's parameters
    (with the values its properties give literally), recursively."""
    found: dict[str, Any] = {}
    if depth > MAX_NESTED_DEPTH:
        return found
    for name, defn in parsed.resources.items():
        try:
            cls = deps.types.for_resource(env, name, defn.type, files)
        except ResourceTypeUnavailable:  # a type left out (ignorable_errors)
            continue
        if not issubclass(cls, TemplateResource):
            continue
        child = parse_template(cls.template_source, files=files)
        raw = _raw_properties(parsed, name)
        child_env = parse_environment({"parameters": {
            k: v for k, v in raw.items() if k in child.parameters and _is_literal(v)}})
        view: dict[str, Any] = {
            "Type": defn.type,
            "Description": child.description,
            "Parameters": {p: parameter_view(schema, child_env)
                           for p, schema in child.parameters.items()},
        }
        if child.parameter_groups:
            view["ParameterGroups"] = child.parameter_groups
        deeper = _nested_parameters(deps, child, env, files, depth + 1)
        if deeper:
            view["NestedParameters"] = deeper
        found[name] = view
    return found


def _check(deps: EngineDeps, template: Any, environment: Mapping[str, Any],
           files: Mapping[str, Any], access: TypeAccess | None = None,
           ignorable: frozenset[str] = frozenset()) -> tuple[Template, Environment]:
    parsed = parse_checked(deps, template, files)
    env = parse_environment(environment)
    check_event_sinks(deps.event_sinks, env)
    for name in env.parameters:
        if name not in parsed.parameters:
            error = UnknownUserParameter(name)
            error.path = ("parameters", name)
            raise error
    for schema in parsed.parameters.values():
        _check_default(schema)
    parsed.dependencies()
    classes = resource_classes(deps, env, parsed, files, access, ignorable)
    validate_functions(parsed, attribute_names(classes))
    data = parsed.to_dict()
    raw = data.get("resources") or data.get("Resources") or {}
    for name in parsed.resources:
        if name not in classes:
            continue  # its type's error was ignorable
        cls = classes[name]
        if _checks_own_properties(cls):
            continue
        entry = raw.get(name) or {}
        props = entry.get("properties", entry.get("Properties"))
        if isinstance(props, Mapping):  # a function's result has no names to check yet
            for key in props:
                if key not in cls.properties_schema:
                    unknown = PropertyError(f"Unknown Property {key}",
                                            ("resources", name, "properties"))
                    raise unknown.worded(unknown.validate_text())
    return parsed, env


def _raw_properties(parsed: Template, name: str) -> Mapping[str, Any]:
    data = parsed.to_dict()
    entry = (data.get("resources") or data.get("Resources") or {}).get(name) or {}
    props = entry.get("properties", entry.get("Properties"))
    return props if isinstance(props, Mapping) else {}


def _is_literal(value: Any) -> bool:
    """Plain data, no function call anywhere in it (only such values are known here)."""
    if isinstance(value, Mapping):
        return False  # a map may be a function call; Heat shows no value for it either
    if isinstance(value, list):
        return all(_is_literal(item) for item in value)
    return value is not None


def _checks_own_properties(cls: type[Resource]) -> bool:
    """A plugin with no properties schema that validates in its own way decides what it
    accepts (OS::Heat::None takes anything); every other plugin's names are checked."""
    overridden = inspect.getattr_static(cls, "validate") is not inspect.getattr_static(
        Resource, "validate")
    return overridden and not cls.properties_schema


def _check_default(schema: ParameterSchema) -> None:
    """A template default must obey the parameter's constraints (custom ones need a
    cloud and are skipped), as Heat checks each parameter's schema."""
    default = schema.default
    if default is None:
        return
    if schema.type == "comma_delimited_list":
        if isinstance(default, list):
            default = [str(item) for item in default]
        elif isinstance(default, str):
            default = default.split(",")
    for constraint in schema.constraints:
        if isinstance(constraint, CustomConstraint):
            continue
        try:
            constraint.check(default, schema.type)
        except (ValueError, TypeError) as exc:
            raise InvalidSchemaError(
                f"Parameter '{schema.name}' is invalid: Invalid default {schema.default} "
                f"({exc})", ("parameters", schema.name)) from None


def parameter_view(schema: ParameterSchema, env: Environment) -> dict[str, Any]:
    """One parameter as Heat's validate shows it (``format_validate_parameter``)."""
    view: dict[str, Any] = {
        "Type": API_TYPES.get(schema.type, schema.type),
        "Description": schema.description or "",
        "NoEcho": "true" if schema.hidden else "false",
        "Label": schema.label or schema.name,
    }
    default = env.parameter_defaults.get(schema.name)
    if default is None:
        default = schema.default
    if default is not None:
        view["Default"] = default
    value = env.parameters.get(schema.name)
    if value:
        view["Value"] = value
    if schema.tags:
        view["Tags"] = list(schema.tags)
    view.update(constraint_view(schema))
    return view


def constraint_view(schema: ParameterSchema) -> dict[str, Any]:
    """The CFN-style constraint keys (MinLength, AllowedValues...) and their joint
    ConstraintDescription."""
    view: dict[str, Any] = {}
    descriptions = []
    for constraint in schema.constraints:
        if isinstance(constraint, Length):
            _bounds(view, "Length", constraint)
        elif isinstance(constraint, Range):
            _bounds(view, "Value", constraint)
        elif isinstance(constraint, Modulo):
            view["Step"] = constraint.step
            view["Offset"] = constraint.offset
        elif isinstance(constraint, AllowedValues):
            view["AllowedValues"] = list(constraint.allowed)
        elif isinstance(constraint, AllowedPattern):
            view["AllowedPattern"] = constraint.pattern
        elif isinstance(constraint, CustomConstraint):
            view["CustomConstraint"] = constraint.name
        if constraint.description:
            descriptions.append(constraint.description)
    if descriptions:
        view["ConstraintDescription"] = " ".join(descriptions)
    return view


def _bounds(view: dict[str, Any], noun: str, constraint: Range) -> None:
    if constraint.min is not None:
        view[f"Min{noun}"] = constraint.min
    if constraint.max is not None:
        view[f"Max{noun}"] = constraint.max
