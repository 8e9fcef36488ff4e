"""Validating resources and nested stacks with their parent, before anything is created.

A resource's properties are checked before the resources it reads exist:
the values that do not depend on them against the schema and the type's
own checks (``validate_resource``), as Heat's validation does.

Heat validates the whole tree when a stack is created or updated: a group's
member definition and a template resource's template are checked as stacks
of their own, so a bad member is a 400 at once, not a failed create later.
An error names where it was found the way Heat's does:
``resources.group<nested_stack>.resources.0<provider.yaml>.resources.random: : ...``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.nested import MAX_NESTED_DEPTH
from hotplate.engine.service.type_access import TypeAccess
from hotplate.model.errors import PropertyError, ResourceTypeUnavailable, StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.heat_stack import HeatStack
from hotplate.resources.remote_heat import RemoteHeat
from hotplate.resources.stack_resource import StackResource
from hotplate.resources.template_resource import TemplateResource
from hotplate.template import parse_environment, parse_template, resolve_parameters
from hotplate.template.definitions import ResourceDefinition
from hotplate.template.environment import parse_registry
from hotplate.template.functions import GetParam, Node, iter_functions
from hotplate.template.functions.base import OMITTED
from hotplate.template.yaml_loader import load_text

NO_RESOURCE = "\0"
"""A resource name no template can use: resolving a type under it sees only the
registry's global mappings."""

GROUP_URL = "nested_stack"
"""Heat's placeholder for the location of a child template built by the plugin."""


class NoResources:
    """Resolution context for validation: resources do not exist yet."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self._params = params

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        return None

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None


def validate_resource(cls: type[Resource], defn: ResourceDefinition, ctx: NoResources,
                      stack_resources: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    """Validate what is known of one resource's properties before any resource exists.

    A property whose value reads another resource (get_resource, get_attr) is
    pending: as in Heat, it must be one the type declares, but its value is
    neither coerced nor checked against constraints, nor missing when it
    resolves to nothing. Every other property is checked against the schema,
    and the type's own checks (``check_properties``) run on the known values.
    A type that checks its values against the stack's other resources (an
    access policy's allowed resources) says so with a ``check_in_stack``
    classmethod, given ``stack_resources``, the names of the stack's resources.

    Returns:
        The validated properties when every value was known (the child stack
        can then be validated too), else None.

    Raises:
        StackValidationFailed: naming the property (``resources.<name>.properties...``).
    """
    path = ("resources", defn.name, "properties")
    if not _reads_resources(defn.properties_node):
        with _resolving(path):
            resolved = defn.resolve_properties(ctx)
        props = cls.validate(resolved, path)
        in_stack = getattr(cls, "check_in_stack", None)
        if callable(in_stack):
            in_stack(props, path, stack_resources)
        return props
    entries = defn.properties_node.as_mapping()
    if entries is None:
        return None  # the whole section is computed from other resources
    pending = frozenset(key for key, node in entries.items() if _reads_resources(node))
    with _resolving(path):
        known = {key: node.resolve(ctx) for key, node in entries.items() if key not in pending}
    raw = {key: value for key, value in known.items() if value is not OMITTED}
    raw.update(dict.fromkeys(pending))  # present, so an unknown name is still refused
    cls.validate_known(raw, pending, path)
    for key in sorted(pending):
        _check_parameter_names(entries[key], ctx, (*path, key))
    return None


@contextmanager
def _resolving(path: tuple[str, ...]) -> Iterator[None]:
    """Heat resolves each property as it validates it: a function failing there is a
    Property error that names the property, not the function within it."""
    try:
        yield
    except PropertyError:
        raise
    except StackValidationFailed as exc:
        where = exc.path
        if len(where) <= len(path) or tuple(where[:len(path)]) != path:
            raise
        raise PropertyError(exc.detail, (*path, where[len(path)])) from None


def _check_parameter_names(node: Node, ctx: NoResources, where: tuple[str, ...]) -> None:
    """A ``get_param`` whose name comes from a resource not built yet.

    Heat resolves it at validation with every attribute and reference still
    null, so the name it sees is null (``Function "get_param" must have
    arguments``), or whatever the argument makes of nulls; that is a Property
    error, refused before anything is created.
    """
    for fn in iter_functions(node):
        if isinstance(fn, GetParam) and fn.name is None and _reads_resources(fn.args):
            try:
                fn.resolve(ctx)
            except StackValidationFailed as exc:
                raise PropertyError(exc.detail, where) from None
            except Exception as exc:  # Heat words any failure of the value the same way
                raise PropertyError(str(exc), where) from None


def _reads_resources(node: Node) -> bool:
    return any(tuple(fn.resources_needed()) for fn in iter_functions(node))


TOO_DEEP = f"Request limit exceeded: Recursion depth exceeds {MAX_NESTED_DEPTH}."
"""Heat's refusal of a stack nested deeper than ``max_nested_stack_depth``."""


def validate_child(deps: EngineDeps, cls: type[Resource], name: str,
                   props: Mapping[str, Any], environment: Mapping[str, Any],
                   files: Mapping[str, Any], depth: int = 1,
                   access: TypeAccess | None = None) -> None:
    """Validate the child stack of resource ``name`` (if its type has one), its types
    against the root caller's ``access`` (policy, catalog).

    Raises:
        StackValidationFailed: naming the resource and its child's template.
    """
    if not issubclass(cls, StackResource):
        return
    if issubclass(cls, HeatStack):
        if depth <= MAX_NESTED_DEPTH:
            _validate_heat_stack(deps, props, environment, files, depth, access)
        return
    if issubclass(cls, TemplateResource):
        template: Any = cls.template_source
        url = cls.template_name
        params = cls(name, props, None).child_parameters()  # type: ignore[arg-type]
    else:
        template = cls.validation_template(props)
        url, params = GROUP_URL, {}
    if template is None:
        return
    if depth > MAX_NESTED_DEPTH:  # Heat refuses the tree before making any of it
        raise _within(StackValidationFailed(TOO_DEEP), name, url)
    given = dict(environment.get("resource_registry") or {})
    registry = {key: target for key, target in given.items()
                if key != "resources" and target != url}
    inherited = parse_registry(given, "environment").child_resources(name)
    if inherited:  # resources.<name>.<child>, as the child stack will have them
        registry["resources"] = inherited
    child_env = {"parameters": params,
                 "parameter_defaults": environment.get("parameter_defaults") or {},
                 "resource_registry": registry}
    try:
        _validate_stack(deps, template, child_env, files, depth, access)
    except StackValidationFailed as exc:
        if isinstance(exc, ResourceTypeUnavailable) and exc.error_code is not None:
            raise  # Heat's E99001 keeps its class and text, nested or not
        raise _within(exc, name, url) from None


def _validate_heat_stack(deps: EngineDeps, props: Mapping[str, Any],
                         environment: Mapping[str, Any], files: Mapping[str, Any],
                         depth: int, access: TypeAccess | None) -> None:
    """OS::Heat::Stack as Heat's RemoteStack validates itself: the orchestration
    endpoint of its region must be in the catalog, and its template must pass that
    endpoint's template validation (another region's Heat is asked; this engine's own
    validation stands for its own region's); either failure is worded as Heat words it,
    naming the region."""
    region = (props.get("context") or {}).get("region_name")
    if region and access is not None:
        missing = access.region_endpoint("heat", "orchestration", str(region))
        if missing is not None:
            raise StackValidationFailed(
                f'Cannot establish connection to Heat endpoint at region "{region}" due '
                f'to "{missing}"')
    where = region or (access.region if access is not None else None)
    child_env = {"parameters": dict(props.get("parameters") or {}),
                 "parameter_defaults": environment.get("parameter_defaults") or {},
                 "resource_registry": {
                     key: target for key, target in
                     dict(environment.get("resource_registry") or {}).items()
                     if key != "resources"}}
    template = props.get("template")
    own = deps.clouds.settings.region_name_for_services
    remote = region and own and str(region) != own  # as HeatStack.remote_region decides
    if remote and access is not None and access.has_credentials and isinstance(template, str):
        _validate_remotely(access, str(region), template, child_env, files)
        return
    try:
        _validate_stack(deps, template, child_env, files, depth, access)
    except StackValidationFailed as exc:
        raise StackValidationFailed(
            f'Failed validating stack template using Heat endpoint at region "{where}" '
            f'due to "ERROR: {exc}"') from None


def _validate_remotely(access: TypeAccess, region: str, template: str,
                       environment: Mapping[str, Any], files: Mapping[str, Any]) -> None:
    """A stack another region's Heat is to make is validated there, as Heat's RemoteStack
    validates it: that endpoint's answer, in heatclient's words, is the reason."""
    remote = RemoteHeat(access.cloud, region)
    try:
        remote.validate({"template": load_text(template), "files": dict(files),
                         "environment": dict(environment)})
    except Exception as exc:
        raise StackValidationFailed(
            f'Failed validating stack template using Heat endpoint at region "{region}" '
            f'due to "{exc}"') from None


def _validate_stack(deps: EngineDeps, template: Any, environment: Mapping[str, Any],
                    files: Mapping[str, Any], depth: int,
                    access: TypeAccess | None = None) -> None:
    parsed = parse_template(template, files=files)
    if access is not None:
        access.check_policy(sorted({defn.type for defn in parsed.resources.values()}))
    env = parse_environment(environment)
    params = resolve_parameters(parsed, environment.get("parameters") or {},
                                param_defaults=environment.get("parameter_defaults") or {})
    params.update({"OS::stack_name": "", "OS::stack_id": "", "OS::project_id": "",
                   "OS::resource_facade": {"metadata": {}, "deletion_policy": "Delete",
                                           "update_policy": {}}})
    decided = parsed.with_parameters(params)
    decided.dependencies()
    ctx = NoResources(params)
    names = frozenset(decided.resources)
    for name, defn in decided.resources.items():
        try:
            cls = deps.types.for_resource(env, name, defn.type, files)
            if access is not None:
                access.check_available(defn.type, cls)
        except ResourceTypeUnavailable as exc:
            refusal = access.unimplemented(exc) if access is not None else None
            if exc.error_code is not None or refusal is not None:
                raise refusal or exc from None
            raise StackValidationFailed(exc.detail, ("resources", name, "type")) from None
        except StackValidationFailed as exc:
            raise StackValidationFailed(exc.detail, ("resources", name, "type")) from None
        props = validate_resource(cls, defn, ctx, names)
        if props is not None:
            validate_child(deps, cls, name, props, environment, files, depth + 1, access)


def _within(exc: StackValidationFailed, name: str, url: str) -> StackValidationFailed:
    """The child's error as the parent's, with Heat's ``name<url>`` step in its path."""
    path = exc.path
    detail = exc.detail
    if len(path) > 2 and path[0] == "resources" and path[2] == "properties":
        path, detail = path[:2], f": {detail}"  # Heat names the member, then the error
    return StackValidationFailed(detail, ("resources", f"{name}<{url}>", *path))


def check_facade(deps: EngineDeps, env: Any, name: str, type_name: str,
                 cls: type[Resource], files: Mapping[str, Any]) -> None:
    """A provider template standing in for a type must offer what the type offers.

    When the registry maps this resource's type to a template for this
    resource only, the type as mapped for everyone else is its facade: the
    provider must take the facade's required properties, require none the
    facade lacks, and have every attribute it has (Heat's texts, no path).

    Raises:
        StackValidationFailed: the provider does not fit the facade.
    """
    if not issubclass(cls, TemplateResource):
        return
    try:
        facade = deps.types.for_resource(env, NO_RESOURCE, type_name, files)
    except StackValidationFailed:
        return  # no type stands behind it: nothing to compare with
    if facade is cls:
        return
    provider = cls.properties_schema
    for key, schema in facade.properties_schema.items():
        if schema.required and key not in provider:
            raise StackValidationFailed(
                f"Required property {key} for facade {type_name} missing in provider")
    for key, schema in provider.items():
        if schema.required and key not in facade.properties_schema:
            raise StackValidationFailed(
                f"Provider requires property {key} unknown in facade {type_name}")
    for attribute in facade.attributes_schema:
        if attribute not in cls.attributes_schema:
            raise StackValidationFailed(
                f"Attribute {attribute} for facade {type_name} missing in provider")
