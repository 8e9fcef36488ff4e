"""Whole-request validation before anything is stored: limits, template, parameters, types.

Checks run in Heat's order: the template's size, its structure, the number
of resources it declares (``max_resources_per_stack``), the caller's right
to each type it names (Heat's ``resource_types:<type>`` policy), parameter
groups, then parameters (their custom constraints too), each type's service
in the caller's catalog, the calls of template functions
(``validate_functions``: references, attribute names, what Heat validates
before a create) and each resource (its properties' cloud constraints too).
A template error names its path; when the template came as text,
``located_in`` adds where in the text ("... at line 12, column 5"). A
property's error is a Property error in the words heat-api shows for a
refused create or update (``PropertyError.request_text``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from hotplate.engine.cache import FACADE
from hotplate.engine.deps import EngineDeps
from hotplate.engine.implicit_graph import with_implicit
from hotplate.engine.options import UNLIMITED, EngineOptions
from hotplate.engine.service import constraint_checks
from hotplate.engine.service.nested_validation import (
    NoResources,
    check_facade,
    validate_child,
    validate_resource,
)
from hotplate.engine.service.type_access import TypeAccess
from hotplate.engine.worker.traversal import root_stack_id
from hotplate.model.errors import (
    PropertyError,
    RequestLimitExceeded,
    ResourceTypeUnavailable,
    StackValidationFailed,
)
from hotplate.model.records import StackRecord
from hotplate.resources.base import Resource
from hotplate.template import (
    Environment,
    Template,
    parse_environment,
    parse_template,
    resolve_parameters,
)
from hotplate.template.errors import ProviderOutputsInvalid
from hotplate.template.positions import locate
from hotplate.template.validation import validate_functions

_STACK_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]*$")
_RESOURCE_SECTIONS = ("resources", "Resources")
MIN_LOCATED_STEPS = 2
"""A partial match must reach inside a section (``resources.web``) to be worth citing:
a section alone (say, for a parameter the user gave but the template lacks) misleads."""


def check_stack_name(stack_name: Any) -> None:
    if (
        not isinstance(stack_name, str)
        or not _STACK_NAME.match(stack_name)
        or len(stack_name) > 255
    ):
        raise StackValidationFailed(
            f'Invalid stack name {stack_name} must contain only alphanumeric or "_-." '
            "characters, must start with alpha and must be 255 characters or less."
        )


def check_template_size(options: EngineOptions, template: Any) -> None:
    """Heat's ``max_template_size``, measured on the text (or on the mapping's text form,
    as heat-api measures a template that arrived already parsed)."""
    size = len(template) if isinstance(template, str) else len(str(template))
    if size > options.max_template_size:
        raise RequestLimitExceeded(
            f"Template size ({size} bytes) exceeds maximum allowed size "
            f"({options.max_template_size} bytes).")


def check_resource_count(options: EngineOptions, template: Any, parsed: Template) -> None:
    """Heat's ``max_resources_per_stack``: every resource the template declares counts,
    whatever its condition."""
    limit = options.max_resources_per_stack
    if limit == UNLIMITED:
        return
    if isinstance(template, Mapping):
        declared = template
    else:  # text: count what was read from it
        declared = parsed.to_dict()
    count = 0
    for key in _RESOURCE_SECTIONS:
        section = declared.get(key)
        if isinstance(section, Mapping):
            count = len(section)
            break
    if count > limit:
        raise RequestLimitExceeded("Maximum resources per stack exceeded.")


def check_tree_size(deps: EngineDeps, parent: StackRecord, parsed: Template,
                    replacing: int = 0) -> None:
    """Heat's ``max_resources_per_stack`` for a nested stack: its resources and those
    already in the whole tree under the top stack (less the ``replacing`` rows an
    update of it takes the place of) must stay within the limit."""
    limit = deps.options.max_resources_per_stack
    if limit == UNLIMITED:
        return
    root = root_stack_id(deps, parent)
    total = deps.store.count_resources_in_tree(root) + len(parsed.resources) - replacing
    if total > limit:
        raise RequestLimitExceeded("Maximum resources per stack exceeded.")


def parse_checked(deps: EngineDeps, template: Any, files: Mapping[str, Any]) -> Template:
    """The template parsed, within the size and resource-count limits."""
    check_template_size(deps.options, template)
    if isinstance(template, str):
        parsed = deps.caches.parsed_text(template, files)
    else:
        parsed = parse_template(template, files=files)
    check_resource_count(deps.options, template, parsed)
    return parsed


def validate_stack_request(
    deps: EngineDeps,
    template: Any,
    environment: Mapping[str, Any],
    files: Mapping[str, Any],
    *,
    stack_name: str,
    nested: bool = False,
    existing: bool = False,
    access: TypeAccess | None = None,
) -> Template:
    """Parse and check a stack request; raises StackValidationFailed naming the path,
    or RequestLimitExceeded.

    ``existing`` (a PATCH): parameters the template does not declare are dropped,
    not refused, as the stored ones a new template no longer takes are in Heat.
    ``access``: the caller's (policy, catalog, cloud); None for the engine's own
    nested stacks, whose tree the root's request validated already.

    Raises:
        Forbidden: a type only admins may use (Heat's 403).
        ResourceTypeUnavailable: a type whose service the catalog lacks (HEAT-E99001).
    """
    check_stack_name(stack_name)
    parsed = parse_checked(deps, template, files)
    if access is not None:
        access.check_policy(sorted({defn.type for defn in parsed.resources.values()}))
    env = parse_environment(environment)
    given = dict(environment.get("parameters") or {})
    if existing:
        given = {k: v for k, v in given.items() if k in parsed.parameters}
    params = resolve_parameters(
        parsed,
        given,
        param_defaults=environment.get("parameter_defaults") or {},
    )
    if access is not None and parsed.parameters:
        constraint_checks.check_parameters(
            parsed, params, access.check_context(deps.clock.now()))
    params.update({"OS::stack_name": stack_name, "OS::stack_id": "", "OS::project_id": ""})
    if nested:  # the parent resource's facade is known once the stack exists
        params[FACADE] = {"metadata": {}, "deletion_policy": "Delete", "update_policy": {}}
    decided = parsed.with_parameters(params)
    decided.dependencies()
    classes = resource_classes(deps, env, decided, files, access)
    with_implicit(deps.types, env, files, decided, params).dependencies()  # their cycles
    for name, cls in classes.items():  # resources first, then what reads them (Heat's order)
        check_facade(deps, env, name, decided.resources[name].type, cls, files)
    validate_functions(decided, attribute_names(classes))
    ctx = NoResources(params)
    seen: dict[Any, Any] = {}
    names = frozenset(decided.resources)
    for name, defn in decided.resources.items():
        cls = classes[name]
        try:  # None: some values await other resources
            props = validate_resource(cls, defn, ctx, names)
        except PropertyError as exc:
            if nested:  # the parent words its child's errors
                raise
            raise exc.worded(exc.request_text()) from None
        if props is not None and access is not None and \
                constraint_checks.has_cloud_constraints(cls.properties_schema):
            constraint_checks.check_properties(
                cls.properties_schema, props, ("resources", name, "properties"),
                access.check_context(deps.clock.now()))
        if props is not None and access is not None and access.has_credentials:
            cls.check_with_cloud(props, ("resources", name, "properties"), access.cloud, seen)
        if props is not None and not nested:  # the root validates the whole tree, as Heat's
            validate_child(deps, cls, name, props, environment, files, access=access)
    return parsed


def resource_classes(deps: EngineDeps, env: Environment, template: Template,
                     files: Mapping[str, Any], access: TypeAccess | None = None,
                     ignorable: frozenset[str] = frozenset()) -> dict[str, type[Resource]]:
    """Each enabled resource's plugin class; an unknown type fails at its ``type``.

    With the caller's ``access``, a type whose service its catalog lacks (or that Heat
    has and no plugin here implements) is Heat's ResourceTypeUnavailable, unless its
    code is ``ignorable`` (the resource is then left out).
    """
    classes = {}
    available: set[tuple[str, type[Resource]]] = set()  # checked once per type, not per use
    for name, defn in template.resources.items():
        try:
            cls = deps.types.for_resource(env, name, defn.type, files)
            if access is not None and (defn.type, cls) not in available:
                access.check_available(defn.type, cls)
                available.add((defn.type, cls))
            classes[name] = cls
        except ResourceTypeUnavailable as exc:
            if exc.error_code is not None and exc.error_code in ignorable:
                continue
            if exc.error_code is not None:
                raise
            unimplemented = access.unimplemented(exc) if access is not None else None
            if unimplemented is not None:
                if unimplemented.error_code in ignorable:
                    continue
                raise unimplemented from None
            raise StackValidationFailed(exc.detail, ("resources", name, "type")) from None
        except ProviderOutputsInvalid as exc:  # Heat's names no path
            raise StackValidationFailed(exc.detail) from None
        except StackValidationFailed as exc:
            raise StackValidationFailed(exc.detail, ("resources", name, "type")) from None
    return classes



def attribute_names(classes: Mapping[str, type[Resource]]) -> dict[str, frozenset[str]]:
    """What ``get_attr`` may read of each resource: its type's attributes and ``show``.

    A type that answers attributes itself (a group mirrors its members') is left
    out: any name may be read of it, as Heat allows when ``get_attribute`` is overridden.
    """
    return {name: frozenset(cls.all_attributes()) for name, cls in classes.items()
            if cls.get_attribute is Resource.get_attribute}


def position_text(message: str, line: int, column: int) -> str:
    """``message`` with where it applies; a final full stop stays last."""
    where = f" at line {line}, column {column}"
    if message.endswith("."):
        return f"{message[:-1]}{where}."
    return f"{message}{where}"


@contextmanager
def located_in(template: Any) -> Iterator[None]:
    """Re-raise a template error with its line and column when ``template`` is text.

    The error keeps its class, path and Heat's wording; only the position is
    appended, and only when the path leads into the text (a mapping template
    has no lines to cite).
    """
    try:
        yield
    except StackValidationFailed as exc:
        if isinstance(template, str) and exc.path:
            found = locate(template, exc.path)
            if found is not None and (found.complete or found.matched >= MIN_LOCATED_STEPS):
                exc.message = position_text(exc.message, found.line, found.column)
                exc.args = (exc.message,)
        raise


def hidden_parameters(template: Template) -> frozenset[str]:
    """The template's hidden parameters (``hidden: true``, CFN's ``NoEcho``): the
    store encrypts their values with ``encrypt_parameters_and_properties``."""
    return frozenset(name for name, schema in template.parameters.items() if schema.hidden)
