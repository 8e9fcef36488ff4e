"""Templates (HOT and CFN): parsing, functions, parameters, and what the engine asks of them.

Pure: no I/O, no clock, no ids. The engine's whole surface is below; the
modules behind it are private to this package.
"""

from hotplate.template.context import ResolveContext
from hotplate.template.definitions import OutputDefinition, ResourceDefinition
from hotplate.template.env_merge import merge_environments
from hotplate.template.environment import (
    Environment,
    ResourceOverrides,
    ResourceRegistry,
    parse_environment,
)
from hotplate.template.errors import InvalidSchemaError, InvalidTemplateReference
from hotplate.template.functions import ALL_ATTRIBUTES
from hotplate.template.parameter_values import resolve_parameters
from hotplate.template.parameters import PSEUDO_PARAMETERS, ParameterSchema
from hotplate.template.parser import parse_template
from hotplate.template.template import Template
from hotplate.template.versions import (
    TEMPLATE_VERSIONS,
    VERSIONS,
    HotVersion,
    TemplateVersion,
    version_key,
)

__all__ = [
    "ALL_ATTRIBUTES",
    "Environment",
    "PSEUDO_PARAMETERS",
    "TEMPLATE_VERSIONS",
    "VERSIONS",
    "HotVersion",
    "InvalidSchemaError",
    "InvalidTemplateReference",
    "OutputDefinition",
    "ParameterSchema",
    "ResourceOverrides",
    "ResourceRegistry",
    "ResolveContext",
    "ResourceDefinition",
    "Template",
    "TemplateVersion",
    "merge_environments",
    "parse_environment",
    "parse_template",
    "resolve_parameters",
    "version_key",
]
