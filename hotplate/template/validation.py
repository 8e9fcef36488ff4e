"""``validate_functions``: the checks Heat makes of a template's calls before a create.

Heat checks a function in three phases, and users see each at its time:
building it when the template is parsed (its arguments' shape), validating
it before a create (``Function.validate``: references, attribute names,
removed functions, ``repeat``'s ``for_each``, ``make_url``, ``yaql``
expressions), and computing it when it is resolved. This module is the
middle phase, in Heat's order (``Stack.validate``):

1. each resource's references (``depends_on``, ``get_resource``,
   ``get_attr``) name a resource of the template;
2. each enabled resource's properties and metadata, in name order;
3. each enabled output's value.

As in Heat, a call is validated after the calls in its arguments, and an
error inside a call's arguments is reported at the call, with the inner
path in its text: ``resources.r.properties.value.str_replace:
params.x.get_attr: The Referenced Attribute (db nope) is incorrect.``
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from hotplate.model.errors import StackValidationFailed
from hotplate.template.errors import InvalidTemplateReference
from hotplate.template.functions import Function, Node, iter_functions
from hotplate.template.functions.references import ResourceRead
from hotplate.template.paths import Path, index_path, key_path
from hotplate.template.template import Template


@dataclass(frozen=True, slots=True)
class ValidationScope:
    """What a call's ``validate`` may read."""

    enabled: frozenset[str]
    attributes: Mapping[str, Collection[str]]
    """Per resource, its type's attribute names (``show`` included); a resource
    missing here (a type not known) has its attribute names left unchecked."""


def validate_functions(
    template: Template, attributes: Mapping[str, Collection[str]] | None = None
) -> None:
    """Heat's pre-create checks of every call (see the module docstring).

    Args:
        template: parsed, with conditions decided when parameter values are known.
        attributes: each resource's attribute names, by resource name.

    Raises:
        StackValidationFailed: the first problem, in Heat's order and words.
    """
    _check_references(template)
    scope = ValidationScope(frozenset(template.resources), attributes or {})
    names = template.hot_version.spelling
    for name in sorted(template.resources):
        definition = template.resources[name]
        base = (names.resources, name)
        validate_node(definition.properties_node, (*base, names.properties), scope)
        validate_node(definition.metadata_node, (*base, names.metadata), scope)
    for name, output in template.outputs.items():
        if output.enabled:
            validate_node(output.value_node, (names.outputs, name, names.value), scope)


def _check_references(template: Template) -> None:
    """Heat's dependencies of each resource: ``depends_on`` may name a resource a
    condition leaves out, a call may not (the stack it looks in has only the others)."""
    declared = template.declared_resources
    for name, definition in template.resources.items():
        for dependency in definition.depends_on:
            if dependency not in declared:
                raise InvalidTemplateReference(dependency, name)
        for node in (definition.properties_node, definition.metadata_node):
            for function in iter_functions(node):
                if isinstance(function, ResourceRead):
                    function.check_dependency(template.resources.keys())


def validate_node(node: Node, path: Path, scope: ValidationScope) -> None:
    """Validate every call in ``node``, which sits at ``path`` (Heat's ``function.validate``)."""
    if isinstance(node, Function):
        try:
            validate_node(node.call_args, (), scope)
            node.validate(scope)
        except StackValidationFailed as exc:
            # A call's complaint about itself carries its own path: said once, here.
            message = exc.detail if exc.path == node.path else str(exc)
            raise StackValidationFailed(message, (*path, node.fn_name)) from None
        return
    entries = node.as_mapping()
    if entries is not None:
        for key, child in entries.items():
            if not child.is_static:
                validate_node(child, key_path(path, key), scope)
        return
    items = node.as_list()
    for i, child in enumerate(items or ()):
        if not child.is_static:
            validate_node(child, index_path(path, i), scope)
