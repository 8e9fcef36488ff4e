"""``parse_template``: text or mapping in, ``Template`` out, every check done once.

HOT and CFN templates go through the same steps; the version says how its
format spells sections and keys and which checks differ (CFN's parameter
schema, its ``Mappings``, ignored unknown keys). Steps, in the order Heat
reports problems:

1. text to data (JSON, then YAML) and the document bounds;
2. the version, by date or release name;
3. the top-level sections the version allows;
4. parameter declarations;
5. conditions, and which resources a false condition leaves out (only a
   literally false one unless parameter values are given, see
   ``Template.with_parameters``);
6. each resource's shape (entries in name order, as Heat checks them);
7. each resource's properties and metadata, then outputs, parsed into
   nodes, which checks function arguments (what Heat checks when building
   a call; references and the rest are ``validation.validate_functions``'s);
8. the dependency graph and the attributes read, derived from step 7.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from hotplate.model.errors import (
    InvalidTemplateSection,
    InvalidTemplateVersion,
    StackValidationFailed,
)
from hotplate.template.cfn_parameters import parse_cfn_parameters
from hotplate.template.conditions import parse_conditions
from hotplate.template.context import ResolveContext
from hotplate.template.document import normalize
from hotplate.template.errors import with_path
from hotplate.template.functions import (
    ConditionTable,
    ParseScope,
    compile_conditions,
    iter_functions,
)
from hotplate.template.functions.references import ResourceRead
from hotplate.template.parameter_groups import check_parameter_groups
from hotplate.template.parameters import ParameterSchema, parse_parameters
from hotplate.template.references import (
    attributes_read,
    computed_attribute_targets,
    dependency_graph,
)
from hotplate.template.resource_parser import (
    check_resources,
    enabled_resources,
    parse_outputs,
    parse_resource,
)
from hotplate.template.template import Template
from hotplate.template.versions import CFN, VERSION_KEYS, TemplateVersion, find_version
from hotplate.template.yaml_loader import NOT_A_MAPPING, load_text

DEFAULT_DESCRIPTION = "No description"


def parse_template(
    source: str | Mapping[str, Any], *, files: Mapping[str, str] | None = None
) -> Template:
    """Parse and check a template; the result is immutable and thread-safe.

    Args:
        source: template text (JSON or YAML) or an already-loaded mapping.
        files: contents for ``get_file``, by the name the template uses.

    Raises:
        StackValidationFailed: or a subclass, naming what is wrong and where.
    """
    return parse_data(_load(source), files or {}, None)


def parse_data(
    data: dict[str, Any], files: Mapping[str, Any], values: ResolveContext | None
) -> Template:
    """Parse normalized template data; ``values`` decides conditions when given."""
    version = find_version(data)
    names = version.spelling
    for key in data:
        if key not in version.sections:
            raise with_path(
                InvalidTemplateSection(f"The template section is invalid: {key}"), (key,)
            )
    parameters = _parameters(data.get(names.parameters), version)
    if "parameter_groups" in version.sections:
        check_parameter_groups(data.get("parameter_groups"),
                               {*parameters, *version.pseudo_parameters})
    conditions = parse_conditions(data.get(names.conditions), names)
    resource_data = check_resources(data.get(names.resources), version)
    scope = ParseScope(
        functions=version.functions,
        parameters=frozenset(parameters) | frozenset(version.pseudo_parameters),
        resources=frozenset(resource_data),
        enabled=frozenset(resource_data),
        files=MappingProxyType(dict(files)),
        condition_functions=version.condition_functions,
        conditions=ConditionTable(section=names.conditions),
        parameter_values=values,
        mappings=data.get("Mappings") if "Mappings" in version.sections else None,
    )
    compile_conditions(conditions, scope)
    enabled = enabled_resources(resource_data, conditions, scope, version)
    scope = replace(scope, enabled=enabled)
    # Every resource is parsed, as Heat parses them all before it looks at
    # their conditions; only the enabled ones are kept.
    parsed = {name: parse_resource(name, entry, version, scope)
              for name, entry in resource_data.items()}
    resources = {name: defn for name, defn in parsed.items() if name in scope.enabled}
    outputs = parse_outputs(data.get(names.outputs), version, scope, conditions)
    graph = dependency_graph(resources)
    computed = _computed_names(resources, outputs)
    description = data.get(names.description)
    return Template(
        version=version.date,
        description=str(description) if description else DEFAULT_DESCRIPTION,
        parameters=MappingProxyType(parameters),
        resources=MappingProxyType(resources),
        outputs=MappingProxyType(outputs),
        conditions=MappingProxyType(conditions),
        parameter_groups=data.get("parameter_groups"),
        hot_version=version,
        _source=data,
        _graph=graph,
        _cycle=graph.find_cycle(),
        _attributes=MappingProxyType(attributes_read(resources, outputs)),
        _files=scope.files,
        conditions_decided=values is not None,
        declared_resources=frozenset(resource_data),
        computed_names=computed,
        computed_attribute_reads=(computed_attribute_targets(resources, outputs)
                                  if computed else frozenset()),
    )


def _computed_names(resources: Mapping[str, Any], outputs: Mapping[str, Any]) -> bool:
    """Whether a get_resource or get_attr computes its names (parameter values fix them)."""
    nodes = [n for d in resources.values() for n in (d.properties_node, d.metadata_node)]
    nodes += [o.value_node for o in outputs.values()]
    return any(isinstance(f, ResourceRead) and f.computed
               for node in nodes for f in iter_functions(node))


def _parameters(section: Any, version: TemplateVersion) -> dict[str, ParameterSchema]:
    if version.kind == CFN:
        return parse_cfn_parameters(section, version)
    return parse_parameters(section, version)


def _load(source: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(source, str):
        data = load_text(source)
        if not any(key in data for key in VERSION_KEYS):
            raise InvalidTemplateVersion("Template format version not found.")
        return data
    if isinstance(source, Mapping):
        return normalize(source)
    raise StackValidationFailed(NOT_A_MAPPING)
