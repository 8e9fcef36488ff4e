"""The ``resources`` and ``outputs`` sections, parsed into definitions.

Two passes over resources. The first checks each entry's shape (Heat checks
entries in name order, so the first error reported is the same one Heat
reports) and decides which resources a plainly-false condition leaves out.
The second parses properties and metadata, which needs every resource's name
to check references. Messages are Heat's: about a resource, they name it
in the text and carry their path only in ``.path`` (for positions in a
text template); about an output, they are Heat's "Output validation
error: <path>: ...".

HOT and CFN share all of it but the spelling of keys (``version.spelling``)
and the first shape check: HOT refuses unknown keys and checks entries in
name order, CFN (as Heat) ignores unknown keys and checks in template order.
An output's unknown keys are ignored in both; only a provider template's
outputs refuse them (``check_provider_outputs``), as Heat reads those
another way.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.conditions import check_condition_type, decide, deferred
from hotplate.template.definitions import (
    DEFAULT_OUTPUT_DESCRIPTION,
    OutputDefinition,
    ResourceDefinition,
)
from hotplate.template.document import copy_data
from hotplate.template.errors import ProviderOutputsInvalid, with_path
from hotplate.template.functions import (
    Function,
    Node,
    ParseScope,
    Static,
    compile_snippet,
    iter_functions,
)
from hotplate.template.paths import Path
from hotplate.template.versions import TemplateVersion

ResourceData = dict[str, dict[str, Any]]


def check_resources(section: Any, version: TemplateVersion) -> ResourceData:
    """Every resource entry, each checked to be a mapping with a type (and known keys in HOT)."""
    if section is None:
        return {}
    names = version.spelling
    if not isinstance(section, dict):
        raise StackValidationFailed(
            f'The "{names.resources}" section must be a map', (names.resources,)
        )
    if not version.strict_keys:
        for name, data in section.items():
            _check_cfn_shape(name, data, names.resources)
        return section
    for name in sorted(section):
        _check_shape(name, section[name], version)
    return section


def _check_cfn_shape(name: str, data: Any, section: str) -> None:
    path = (section, name)
    if not data:
        raise _located("Each Resource must contain a Type key.", path)
    if not isinstance(data, dict):
        raise _located(f"Resources must contain Resource. Found a [{type(data)}] instead", path)
    if not data.get("Type"):
        raise _located("Each Resource must contain a Type key.", path)


def _check_shape(name: str, data: Any, version: TemplateVersion) -> None:
    path = ("resources", name)
    if not data:
        raise _located("Each resource must contain a type key.", path)
    if not isinstance(data, dict):
        raise _located(
            f'"resources" must contain a map of resource maps. Found a [{type(data)}] instead',
            path,
        )
    for key in data:
        if key not in version.resource_keys:
            raise _located(f'"{key}" is not a valid keyword inside a resource definition', path)
    if "type" not in data:
        raise _located("Each resource must contain a type key.", path)


def _located(message: str, path: Path) -> StackValidationFailed:
    """Heat's text about a resource (it names the resource), its path kept aside."""
    return with_path(StackValidationFailed(message), tuple(str(p) for p in path))


def _output_error(message: str, path: Path) -> StackValidationFailed:
    where = ".".join(str(p) for p in path)
    return with_path(StackValidationFailed(f"Output validation error: {where}: {message}"),
                     tuple(str(p) for p in path))


def enabled_resources(
    resources: ResourceData,
    conditions: dict[str, Any],
    scope: ParseScope,
    version: TemplateVersion,
) -> frozenset[str]:
    """Names of resources not left out by a false condition (see ``conditions.decide``)."""
    names = version.spelling
    if names.condition not in version.resource_keys:
        return frozenset(resources)
    enabled = set()
    for name, data in resources.items():
        path = (names.resources, name, names.condition)
        condition = data.get(names.condition)
        if condition is not None:
            check_condition_type(condition, name, path, names)
        if decide(condition, conditions, scope, path) is not False:
            enabled.add(name)
    return frozenset(enabled)


def parse_resource(
    name: str, data: dict[str, Any], version: TemplateVersion, scope: ParseScope
) -> ResourceDefinition:
    """One resource's definition, with its properties and metadata parsed."""
    fields = _Fields(name, data, version)
    keys = version.spelling
    resource_type = data[keys.type]
    if not isinstance(resource_type, str):
        raise fields.type_error(keys.type, "string")
    depends_on = _depends_on(fields, scope)
    properties = fields.snippet(keys.properties, scope)
    metadata = fields.snippet(keys.metadata, scope)
    fields.snippet(keys.update_policy, scope)  # checked here, kept as written
    required, reads = _reads(properties, metadata)
    required.update(dict.fromkeys(d for d in depends_on if d in scope.enabled))
    return ResourceDefinition(
        name=name,
        type=resource_type,
        depends_on=depends_on,
        deletion_policy=_deletion_policy(fields, version),
        update_policy=MappingProxyType(copy_data(data.get(keys.update_policy) or {})),
        description=fields.typed(keys.resource_description, str, "string") or "",
        external_id=fields.literal(keys.external_id),
        condition=fields.condition(),
        properties_node=properties,
        metadata_node=metadata,
        required=frozenset(required),
        reads=reads,
        spelling=keys,
    )


class _Fields:
    """Reads one resource's fields, raising Heat's type errors with their path."""

    def __init__(self, name: str, data: dict[str, Any], version: TemplateVersion) -> None:
        self.name = name
        self.data = data
        self.version = version
        self.keys = version.spelling

    def path(self, key: str) -> Path:
        return (self.keys.resources, self.name, key)

    def get(self, key: str) -> Any:
        """The field's value; None for a key the version does not have (CFN ignores them)."""
        if key not in self.version.resource_keys:
            return None
        return self.data.get(key)

    def type_error(self, key: str, typename: str) -> StackValidationFailed:
        return _located(f"Resource {self.name} {key} type must be {typename}", self.path(key))

    def typed(self, key: str, kind: type, typename: str) -> Any:
        value = self.get(key)
        if value is not None and not isinstance(value, kind):
            raise self.type_error(key, typename)
        return value

    def is_function(self, value: Any) -> bool:
        return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in (
            self.version.functions
        )

    def snippet(self, key: str, scope: ParseScope) -> Node:
        """A mapping field (properties, metadata, update_policy), parsed."""
        value = self.get(key)
        if value is None:
            return Static({})
        node = compile_snippet(value, scope, self.path(key))
        if node.as_mapping() is None and not isinstance(node, Function):
            raise self.type_error(key, "object")
        return node

    def literal(self, key: str) -> str | None:
        """A string field whose value must be known before any stack exists."""
        value = self.get(key)
        if self.is_function(value):
            raise StackValidationFailed(
                f"Functions in {key} are not supported yet; give a literal string",
                self.path(key),
            )
        if value is not None and not isinstance(value, str):
            raise self.type_error(key, "string")
        return value

    def condition(self) -> Any:
        key = self.keys.condition
        condition = self.get(key)
        if condition is not None:
            check_condition_type(condition, self.name, self.path(key), self.keys)
        return condition


def _depends_on(fields: _Fields, scope: ParseScope) -> tuple[str, ...]:
    key = fields.keys.depends_on
    value = fields.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise fields.type_error(key, "list or string")
    if not all(isinstance(dep, str) for dep in value):
        raise _located(f"Resource {fields.name} {key} must be a list of strings", fields.path(key))
    return tuple(dict.fromkeys(value))  # names are checked by validate_functions


def _deletion_policy(fields: _Fields, version: TemplateVersion) -> str:
    key = fields.keys.deletion_policy
    policy = fields.literal(key)
    if policy is None:
        return "Delete"
    if policy not in version.deletion_policies:
        raise _located(f'Invalid deletion policy "{policy}"', fields.path(key))
    return version.deletion_policies[policy]


def _reads(*nodes: Node) -> tuple[dict[str, None], frozenset[tuple[str, str]]]:
    """The resources and the (resource, attribute) pairs the trees read, in one walk."""
    required: dict[str, None] = {}
    reads: set[tuple[str, str]] = set()
    for node in nodes:
        for function in iter_functions(node):
            required.update(dict.fromkeys(function.resources_needed()))
            reads.update(function.attributes_read())
    return required, frozenset(reads)


def parse_outputs(
    section: Any, version: TemplateVersion, scope: ParseScope, conditions: dict[str, Any]
) -> dict[str, OutputDefinition]:
    """Every output, in template order; a plainly-false condition leaves its value unparsed."""
    if section is None:
        return {}
    outputs = version.spelling.outputs
    if not isinstance(section, dict):
        raise StackValidationFailed(f'The "{outputs}" section must be a map', (outputs,))
    return {
        name: _output(name, data, version, scope, conditions) for name, data in section.items()
    }


def check_provider_outputs(section: Any, version: TemplateVersion) -> None:
    """The outputs of a template used as a resource type, as Heat reads them for the
    type's attributes: only the version's output keys, and a value in each.

    A stack's own outputs ignore other keys (Heat reads them another way); a
    provider template's are checked as HOT spells them (CFN's are not), in
    name order, the error naming no path.

    Raises:
        ProviderOutputsInvalid: in Heat's words.
    """
    if not version.strict_keys or not isinstance(section, Mapping):
        return
    for name in sorted(section):
        data = section[name]
        if not data or not isinstance(data, Mapping):
            continue  # the template's own parse says what is wrong with it
        for key in data:
            if key not in version.output_keys:
                raise ProviderOutputsInvalid(
                    f'"{key}" is not a valid keyword inside a output definition')


def _output(
    name: str, data: Any, version: TemplateVersion, scope: ParseScope, conditions: dict[str, Any]
) -> OutputDefinition:
    keys = version.spelling
    path = (keys.outputs, name)
    if not isinstance(data, Mapping):
        raise _output_error(
            f"Output definitions must be a map. Found a {type(data).__name__} instead", path)
    if keys.value not in data:
        raise _output_error(f"Each output definition must contain a {keys.value} key.", path)
    description = data.get(keys.output_description)
    description = DEFAULT_OUTPUT_DESCRIPTION if description is None else str(description)
    has_condition = keys.condition in version.output_keys
    condition = data.get(keys.condition) if has_condition else None
    condition_path = (*path, keys.condition)
    decided = decide(condition, conditions, scope, condition_path)
    if decided is False:
        return OutputDefinition(name, description, condition, enabled=False, spelling=keys)
    value = compile_snippet(data[keys.value], scope, (*path, keys.value))
    required, reads = _reads(value)
    return OutputDefinition(
        name, description, condition, True, value, frozenset(required), reads,
        condition_node=None if decided else deferred(condition, scope, condition_path),
        conditions=scope.conditions,
        spelling=keys,
    )
