"""Resource types as Heat's catalogue shows them: listings, schemas, generated templates.

- ``list_resource_types``: names (or ``{resource_type, description}``),
  filtered by a name regular expression (matched at the start, as Heat
  matches), a support status and a version; HIDDEN types never appear.
- ``resource_schema``: properties and attributes (HIDDEN ones left out,
  ``show`` included) and the type's ``support_status``.
- ``generate_template``: a template that exposes every property as a
  parameter and every attribute as an output, in HOT or CFN form.

An unknown type is Heat's 404 "The Resource Type (X) could not be found.";
a HIDDEN one is "X is not supported." (400). With the caller's ``TypeAccess``,
Heat's gates apply too: a type the caller may not use (admin-only) or whose
service its catalog lacks is not listed, and showing it is Heat's 403 or
``HEAT-E99001 ... reason: Service endpoint not in service catalog.``; a type
Heat has and no plugin here implements yet is refused the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import ResourceTypes
from hotplate.engine.errors import Invalid
from hotplate.engine.service.type_access import TypeAccess
from hotplate.model.errors import EntityNotFound, NotSupported, ResourceTypeUnavailable
from hotplate.resources import (
    AllowedPattern,
    AllowedValues,
    Length,
    PropertyType,
    Range,
    Resource,
    Schema,
    Status,
)
from hotplate.resources.heat_types import HEAT_TYPES

NO_DESCRIPTION = "No description available"
HOT_GENERATED_VERSION = "2016-10-14"
CFN_GENERATED_VERSION = "2012-12-12"
_BOOLEAN_VALUES = ["True", "true", "False", "false"]
_HOT_TYPES = {
    PropertyType.INTEGER: "number", PropertyType.NUMBER: "number",
    PropertyType.STRING: "string", PropertyType.BOOLEAN: "boolean",
    PropertyType.MAP: "json", PropertyType.LIST: "comma_delimited_list",
    PropertyType.ANY: "json",
}
_CFN_TYPES = {
    PropertyType.INTEGER: "Number", PropertyType.NUMBER: "Number",
    PropertyType.STRING: "String", PropertyType.BOOLEAN: "Boolean",
    PropertyType.MAP: "Json", PropertyType.LIST: "CommaDelimitedList",
    PropertyType.ANY: "Json",
}


def description_of(cls: type[Resource]) -> str:
    return cls.type_description() or NO_DESCRIPTION


def list_resource_types(types: ResourceTypes, *, support_status: str | None = None,
                        type_name: str | None = None, heat_version: str | None = None,
                        with_description: bool = False, access: TypeAccess | None = None,
                        ) -> list[Any]:
    """The registered types that match every filter given, sorted by name.

    Raises:
        Invalid: ``support_status`` is not one of Heat's statuses.
    """
    if support_status is not None and support_status not in set(Status):
        statuses = tuple(str(s) for s in Status)
        raise Invalid(f"Invalid support status and should be one of {statuses}")
    try:
        pattern = re.compile(type_name) if type_name is not None else None
    except re.error:
        return []  # Heat answers an unusable expression with an empty list
    listed: list[Any] = []
    for name in types.names():
        if pattern is not None and not pattern.match(name):
            continue
        try:
            cls = types.get(name)
        except ResourceTypeUnavailable:
            continue  # a plugin that fails to load is not offered
        status = cls.support_status
        if status.status is Status.HIDDEN:
            continue
        if support_status is not None and status.status != support_status:
            continue
        if heat_version is not None and status.version != heat_version:
            continue
        if access is not None and not access.listed(name, cls):
            continue
        listed.append({"resource_type": name, "description": description_of(cls)}
                      if with_description else name)
    return listed


def _plugin(types: ResourceTypes, type_name: str, access: TypeAccess | None = None,
            ) -> type[Resource]:
    """The type's plugin, after Heat's checks in Heat's order: policy, known, hidden,
    service available."""
    if access is not None:
        access.check_policy((type_name,))
    try:
        cls: type[Resource] | None = types.get(type_name)
    except ResourceTypeUnavailable:
        cls = None
    known = HEAT_TYPES.get(type_name)
    if cls is not None:
        status = cls.support_status.status
    elif known is not None and access is not None:
        status = known.status
    else:
        raise EntityNotFound("Resource Type", type_name)
    if status is Status.HIDDEN:
        raise NotSupported(f"{type_name} is not supported.")
    if access is not None:
        access.check_available(type_name, cls, show=True)
    assert cls is not None  # an unimplemented type is never available
    return cls


def _visible_properties(cls: type[Resource]) -> dict[str, Schema]:
    return {name: schema for name, schema in cls.properties_schema.items()
            if schema.support_status.status is not Status.HIDDEN}


def resource_schema(types: ResourceTypes, type_name: str, with_description: bool = False,
                    access: TypeAccess | None = None) -> dict[str, Any]:
    """Heat's schema view of one type (``openstack orchestration resource type show``)."""
    cls = _plugin(types, type_name, access)
    result: dict[str, Any] = {
        "resource_type": type_name,
        "properties": {name: schema.as_dict()
                       for name, schema in _visible_properties(cls).items()},
        "attributes": {name: attribute.as_dict()
                       for name, attribute in cls.all_attributes().items()
                       if attribute.support_status.status is not Status.HIDDEN},
        "support_status": cls.support_status.as_dict(),
    }
    if with_description:
        result["description"] = description_of(cls)
    return result


def generate_template(types: ResourceTypes, type_name: str, template_type: str = "cfn",
                      access: TypeAccess | None = None) -> dict[str, Any]:
    """A template mirroring the type: a parameter per property, an output per attribute.

    The resource is named after the plugin class, as Heat names it.
    """
    cls = _plugin(types, type_name, access)
    props = _visible_properties(cls)
    attributes = {name: attribute for name, attribute in cls.all_attributes().items()
                  if attribute.support_status.status is not Status.HIDDEN}
    res_name = cls.__name__
    description = f"Initial template of {res_name}"
    if template_type == "hot":
        return {
            "heat_template_version": HOT_GENERATED_VERSION,
            "description": description,
            "parameters": {name: _hot_parameter(s) for name, s in props.items()},
            "resources": {res_name: {"type": type_name, "properties": {
                name: {"get_param": name} for name in props}}},
            "outputs": {name: {"description": a.description,
                               "value": {"get_attr": [res_name, name]}}
                        for name, a in attributes.items()},
        }
    return {
        "HeatTemplateFormatVersion": CFN_GENERATED_VERSION,
        "Description": description,
        "Parameters": {name: _cfn_parameter(s) for name, s in props.items()},
        "Resources": {res_name: {"Type": type_name, "Properties": {
            name: _cfn_property(name, s) for name, s in props.items()}}},
        "Outputs": {name: {"Description": a.description,
                           "Value": {"Fn::GetAtt": [res_name, name]}}
                    for name, a in attributes.items()},
    }


def _hot_parameter(schema: Schema) -> dict[str, Any]:
    param: dict[str, Any] = {"type": _HOT_TYPES[PropertyType(schema.type)]}
    if schema.description:
        param["description"] = schema.description
    if schema.default is not None:
        param["default"] = schema.default
    constraints = []
    for constraint in schema.constraints:
        if isinstance(constraint, Range | AllowedValues | AllowedPattern):
            entry = dict(constraint.as_dict())
            entry.pop("description", None)
            constraints.append(entry)
    if schema.type is PropertyType.BOOLEAN:
        constraints.append({"allowed_values": list(_BOOLEAN_VALUES)})
    if constraints:
        param["constraints"] = constraints
    return param


def _cfn_parameter(schema: Schema) -> dict[str, Any]:
    param: dict[str, Any] = {"Type": _CFN_TYPES[PropertyType(schema.type)]}
    if schema.description:
        param["Description"] = schema.description
    if schema.default is not None:
        param["Default"] = schema.default
    for constraint in schema.constraints:
        if isinstance(constraint, Range):  # Length is a Range too
            noun = "Length" if isinstance(constraint, Length) else "Value"
            if constraint.min is not None:
                param[f"Min{noun}"] = constraint.min
            if constraint.max is not None:
                param[f"Max{noun}"] = constraint.max
        elif isinstance(constraint, AllowedValues):
            param["AllowedValues"] = list(constraint.allowed)
        elif isinstance(constraint, AllowedPattern):
            param["AllowedPattern"] = constraint.pattern
    if schema.type is PropertyType.BOOLEAN:
        param["AllowedValues"] = list(_BOOLEAN_VALUES)
    return param


def _cfn_property(name: str, schema: Schema) -> Mapping[str, Any]:
    """A list property takes its comma-delimited parameter split back into a list."""
    if schema.type is PropertyType.LIST:
        return {"Fn::Split": [",", {"Ref": name}]}
    return {"Ref": name}
