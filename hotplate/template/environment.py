"""Heat environments: parameter values, the resource registry, and how files combine.

An environment is YAML or JSON with at most these sections (Heat's
``environment_format``): ``parameters``, ``parameter_defaults``,
``resource_registry``, ``event_sinks``, ``encrypted_param_names`` and
``parameter_merge_strategies``. Anything else is refused with Heat's text.

The resource registry maps resource types to other types, in three ways
Heat knows:

* ``"My::Type": "OS::Heat::None"``: an alias; aliases chain;
* ``"OS::Networking::*": "OS::Neutron::*"``: a wildcard, the rest of the
  name carried over (or many-to-one when the target has no ``*``);
* ``resources: {web: {"OS::Nova::Server": "My::Server"}}``: for one
  resource only (looked up by exact name, as Heat does). Under
  ``resources`` a name pattern (fnmatch: ``web*``) may also carry
  ``hooks`` and ``restricted_actions``, and a mapping per resource of its
  nested stack (``resources: {group: {"0": {hooks: pre-create}}}``), which
  that stack gets as its own ``resources``.

A target ending in ``.yaml`` or ``.template`` names a provider template
and ends the chain.

``merge_environments`` combines several environments in order the way Heat
combines ``environment_files``: parameters by their merge strategy, every
other section shallowly, the later file winning.
"""

from __future__ import annotations

import copy
import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.document import normalize, text_budget
from hotplate.template.errors import with_path
from hotplate.template.yaml_loader import parse_text

if TYPE_CHECKING:
    pass

SECTIONS = (
    PARAMETERS, RESOURCE_REGISTRY, PARAMETER_DEFAULTS,
    ENCRYPTED_PARAM_NAMES, EVENT_SINKS, PARAMETER_MERGE_STRATEGIES,
) = (
    "parameters", "resource_registry", "parameter_defaults",
    "encrypted_param_names", "event_sinks", "parameter_merge_strategies",
)

HOOK_TYPES = (
    "pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete",
)
RESTRICTED_ACTIONS = ("update", "replace")
MERGE_STRATEGIES = (OVERWRITE, MERGE, DEEP_MERGE) = ("overwrite", "merge", "deep_merge")
TEMPLATE_SUFFIXES = (".yaml", ".template")
RESOURCES = "resources"
HOOKS = "hooks"
RESTRICTED = "restricted_actions"

NOT_A_MAPPING = "The environment is not a valid YAML mapping data type."
MAX_CHAIN = 50
"""Longest chain of type mappings followed (wildcards can grow a name forever)."""

MAX_RESOLVED = 20_000
"""Type answers a registry keeps."""

Path = tuple[str, ...]


def frozen_mapping(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(data))


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


def _is_template(type_name: str) -> bool:
    return type_name.endswith(TEMPLATE_SUFFIXES)


# -- the registry -----------------------------------------------------------------


@dataclass(frozen=True)
class ResourceOverrides:
    """``resource_registry.resources.<name or pattern>``."""

    types: Mapping[str, str] = field(default_factory=_empty)
    hooks: frozenset[str] = frozenset()
    restricted_actions: frozenset[str] = frozenset()
    children: Mapping[str, ResourceOverrides] = field(default_factory=_empty)
    """``resources.<this>.<child>``: entries for the resources of this resource's
    nested stack, which gets them as its own ``resources`` (``child_resources``)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.types)
        out.update((name, child.to_dict()) for name, child in self.children.items())
        if self.hooks:
            out[HOOKS] = [h for h in HOOK_TYPES if h in self.hooks]
        if self.restricted_actions:
            out[RESTRICTED] = [a for a in RESTRICTED_ACTIONS if a in self.restricted_actions]
        return out


@dataclass(frozen=True)
class ResourceRegistry:
    """Type mappings for every resource (``types``) and per resource (``resources``)."""

    types: Mapping[str, str] = field(default_factory=_empty)
    resources: Mapping[str, ResourceOverrides] = field(default_factory=_empty)
    _resolved: dict[tuple[str, str, Callable[[str], bool] | None], str] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    """Answers of ``resolve_type`` so far: the registry never changes, and the engine
    asks it again for every resource at every step."""

    def resolve_type(
        self,
        resource_name: str,
        type_name: str,
        *,
        is_known: Callable[[str], bool] | None = None,
    ) -> str:
        """The type ``type_name`` stands for in resource ``resource_name``.

        Mappings are tried in Heat's order (the longest registry path first,
        so a per-resource mapping before a global one; then by key) and
        followed until none applies or a template file name is reached. With
        ``is_known`` (is this a plugin type?), a chain that ends in an unknown
        type is abandoned for the next mapping, as Heat does; when nothing
        resolves, ``type_name`` comes back unchanged for the caller to report.

        Raises:
            StackValidationFailed: the mappings form a loop.
        """
        key = (resource_name, type_name, is_known)
        answer = self._resolved.get(key)
        if answer is None:
            found = self._resolve(resource_name, type_name, (type_name,), is_known)
            answer = type_name if found is None else found
            if len(self._resolved) >= MAX_RESOLVED:  # a long-lived registry (the global
                self._resolved.clear()               # one) meets ever new names
            self._resolved[key] = answer
        return answer

    def _resolve(
        self,
        resource_name: str,
        type_name: str,
        chain: Path,
        is_known: Callable[[str], bool] | None,
    ) -> str | None:
        for target in self._candidates(resource_name, type_name):
            if _is_template(target):
                return target
            if target in chain:
                raise StackValidationFailed(
                    f"Circular resource type mapping: {' -> '.join((*chain, target))}"
                )
            if len(chain) >= MAX_CHAIN:
                raise StackValidationFailed(
                    f'Resource type mapping of "{chain[0]}" is longer than {MAX_CHAIN} steps'
                )
            found = self._resolve(resource_name, target, (*chain, target), is_known)
            if found is not None:
                return found
        if is_known is None or is_known(type_name):
            return type_name
        return None

    def _candidates(self, resource_name: str, type_name: str) -> list[str]:
        found: list[tuple[Path, str]] = []
        if _is_template(type_name):
            found.append(((type_name,), type_name))
        overrides = self.resources.get(resource_name)
        if overrides is not None and type_name in overrides.types:
            found.append(((RESOURCES, resource_name, type_name), overrides.types[type_name]))
        exact = self.types.get(type_name)
        if exact is not None and not type_name.endswith("*"):
            found.append(((type_name,), type_name if _is_template(type_name) else exact))
        for pattern, target in self.types.items():
            prefix = pattern[:-1]
            if pattern.endswith("*") and type_name != target and type_name.startswith(prefix):
                if target.endswith("*"):
                    target = target[:-1] + type_name[len(prefix):]
                found.append(((pattern,), target))
        found.sort(key=lambda item: (-len(item[0]), item[0]))
        return [target for _, target in found]

    def _matching(self, resource_name: str) -> list[ResourceOverrides]:
        return [o for pattern, o in self.resources.items()
                if fnmatch.fnmatchcase(resource_name, pattern)]

    def child_resources(self, resource_name: str) -> dict[str, Any]:
        """The ``resources`` section the nested stack of resource ``resource_name``
        gets: what the entries matching its name hold for the child's resources.

        Heat's ``remove_resources_except``: the entries whose pattern matches the
        name merge first, the entry of that exact name last. (Heat merges each
        entry whole, so its own hooks and mappings land in the child as entries
        named ``hooks`` or after a type, which no resource of the child matches.)
        """
        merged: dict[str, Any] = {}
        for overrides in self._matching(resource_name):
            merged.update((n, c.to_dict()) for n, c in overrides.children.items())
        own = self.resources.get(resource_name)
        if own is not None:
            merged.update((n, c.to_dict()) for n, c in own.children.items())
        return merged

    def hooks_for(self, resource_name: str) -> frozenset[str]:
        """Every hook set on ``resource_name``, directly or through a name pattern."""
        return frozenset().union(*(o.hooks for o in self._matching(resource_name)))

    def restricted_actions_for(self, resource_name: str) -> frozenset[str]:
        """``update``/``replace`` when the environment forbids them for ``resource_name``."""
        return frozenset().union(*(o.restricted_actions for o in self._matching(resource_name)))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.types)
        if self.resources:
            out[RESOURCES] = {name: o.to_dict() for name, o in self.resources.items()}
        return out


# -- the environment --------------------------------------------------------------


@dataclass(frozen=True)
class Environment:
    """One parsed (or merged) environment."""

    parameters: Mapping[str, Any] = field(default_factory=_empty)
    parameter_defaults: Mapping[str, Any] = field(default_factory=_empty)
    resource_registry: ResourceRegistry = field(default_factory=ResourceRegistry)
    event_sinks: tuple[Mapping[str, Any], ...] = ()
    encrypted_param_names: tuple[str, ...] = ()
    parameter_merge_strategies: Mapping[str, str] = field(default_factory=_empty)

    def resolve_type(self, resource_name: str, type_name: str) -> str:
        """Shorthand for ``resource_registry.resolve_type``."""
        return self.resource_registry.resolve_type(resource_name, type_name)

    def hooks_for(self, resource_name: str) -> frozenset[str]:
        """Shorthand for ``resource_registry.hooks_for``."""
        return self.resource_registry.hooks_for(resource_name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``parse_environment`` of it gives this environment back."""
        out: dict[str, Any] = {
            PARAMETERS: copy.deepcopy(dict(self.parameters)),
            PARAMETER_DEFAULTS: copy.deepcopy(dict(self.parameter_defaults)),
            RESOURCE_REGISTRY: self.resource_registry.to_dict(),
            EVENT_SINKS: [copy.deepcopy(dict(s)) for s in self.event_sinks],
            ENCRYPTED_PARAM_NAMES: list(self.encrypted_param_names),
        }
        if self.parameter_merge_strategies:
            out[PARAMETER_MERGE_STRATEGIES] = dict(self.parameter_merge_strategies)
        return out

    def user_dict(self) -> dict[str, Any]:
        """The sections a user may set, as Heat's validate answer shows them.

        Heat's ``user_env_as_dict``: the registry always has its ``resources``
        entry, and neither ``encrypted_param_names`` nor merge strategies show.
        """
        return {
            PARAMETERS: copy.deepcopy(dict(self.parameters)),
            PARAMETER_DEFAULTS: copy.deepcopy(dict(self.parameter_defaults)),
            RESOURCE_REGISTRY: {RESOURCES: {}, **self.resource_registry.to_dict()},
            EVENT_SINKS: [copy.deepcopy(dict(s)) for s in self.event_sinks],
        }


def parse_environment(
    source: str | Mapping[str, Any] | None, *, path: str = "environment"
) -> Environment:
    """An ``Environment`` from YAML/JSON text or a mapping (``None`` is empty).

    Errors carry ``path`` (and the section) in ``.path``; their text is Heat's.

    Raises:
        StackValidationFailed: the text does not parse, is not a mapping, has
            a section Heat does not know or an empty one, or a section of the
            wrong shape (including an unknown hook or restricted action).
    """
    if source is None:
        return Environment()
    if isinstance(source, str):
        data: Any = parse_text(source, name=path, kind="environment")
        budget = text_budget(len(source))
    else:
        data = source
        budget = None
    if data is None:
        return Environment()
    if not isinstance(data, Mapping):
        raise with_path(StackValidationFailed(NOT_A_MAPPING), (path,))
    env = normalize(data) if budget is None else normalize(data, budget=budget)
    for section, value in env.items():
        if section not in SECTIONS:
            raise with_path(
                StackValidationFailed(f'environment has wrong section "{section}"'), (path,)
            )
        if value is None:
            raise with_path(
                StackValidationFailed(f'environment has empty section "{section}"'), (path,)
            )
    return Environment(
        parameters=frozen_mapping(_mapping(env, PARAMETERS, path)),
        parameter_defaults=frozen_mapping(_mapping(env, PARAMETER_DEFAULTS, path)),
        resource_registry=parse_registry(_mapping(env, RESOURCE_REGISTRY, path), path),
        event_sinks=_event_sinks(env.get(EVENT_SINKS, []), path),
        encrypted_param_names=_names(env.get(ENCRYPTED_PARAM_NAMES, []), path),
        parameter_merge_strategies=frozen_mapping(_strategies(env, path)),
    )


def _invalid(message: str, path: Path) -> StackValidationFailed:
    return with_path(StackValidationFailed(message), path)


def _mapping(env: Mapping[str, Any], section: str, path: str) -> dict[str, Any]:
    value = env.get(section, {})
    if not isinstance(value, dict):
        raise _invalid(f'environment section "{section}" must be a mapping', (path, section))
    return value


def _event_sinks(value: Any, path: str) -> tuple[Mapping[str, Any], ...]:
    where = (path, EVENT_SINKS)
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        raise _invalid(f'environment section "{EVENT_SINKS}" must be a list of mappings', where)
    for sink in value:
        if not isinstance(sink.get("type"), str):
            raise _invalid("every event sink needs a \"type\"", where)
    return tuple(frozen_mapping(s) for s in value)


def _names(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise _invalid(
            f'environment section "{ENCRYPTED_PARAM_NAMES}" must be a list of names',
            (path, ENCRYPTED_PARAM_NAMES),
        )
    return tuple(value)


def _strategies(env: Mapping[str, Any], path: str) -> dict[str, str]:
    value = _mapping(env, PARAMETER_MERGE_STRATEGIES, path)
    for key, strategy in value.items():
        if not isinstance(strategy, str):
            raise _invalid(
                f'merge strategy for "{key}" must be a string',
                (path, PARAMETER_MERGE_STRATEGIES, key),
            )
    return value


def parse_registry(data: Mapping[str, Any], path: str) -> ResourceRegistry:
    types: dict[str, str] = {}
    resources: dict[str, ResourceOverrides] = {}
    for key, value in data.items():
        where = (path, RESOURCE_REGISTRY, key)
        if value is None:
            continue
        if key == RESOURCES:
            if not isinstance(value, dict):
                raise _invalid('"resources" must map resource names to mappings', where)
            for name, entry in value.items():
                if entry is not None:
                    resources[name] = _parse_overrides(entry, (*where, name))
        elif isinstance(value, str):
            types[key] = value
        else:
            raise _invalid(f'resource type "{key}" must map to a type name or a template', where)
    return ResourceRegistry(types=frozen_mapping(types), resources=frozen_mapping(resources))


def _parse_overrides(entry: Any, where: Path) -> ResourceOverrides:
    if not isinstance(entry, dict):
        raise _invalid(f'"{where[-1]}" must be a mapping', where)
    types: dict[str, str] = {}
    hooks: frozenset[str] = frozenset()
    restricted: frozenset[str] = frozenset()
    children: dict[str, ResourceOverrides] = {}
    for key, value in entry.items():
        if key == HOOKS:
            hooks = _listed(value, HOOK_TYPES, (
                'Invalid hook type "{value}" for resource breakpoint, '
                "acceptable hook types are: {types}"), (*where, key))
        elif key == RESTRICTED:
            restricted = _listed(value, RESTRICTED_ACTIONS, (
                'Invalid restricted_action type "{value}" for resource, '
                "acceptable restricted_action types are: {types}"), (*where, key))
        elif value is None:
            continue
        elif isinstance(value, str):
            types[key] = value
        elif isinstance(value, dict):  # a resource of this one's nested stack
            children[key] = _parse_overrides(value, (*where, key))
        else:
            raise _invalid(
                f'resource type "{key}" must map to a type name or a template', (*where, key)
            )
    return ResourceOverrides(
        types=frozen_mapping(types), hooks=hooks, restricted_actions=restricted,
        children=frozen_mapping(children),
    )


def _listed(value: Any, allowed: tuple[str, ...], message: str, where: Path) -> frozenset[str]:
    """A name or a list of names, each one of ``allowed`` (Heat's rule and wording)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(i in allowed for i in items):
        raise _invalid(message.format(value=value, types=allowed), where)
    return frozenset(items)


# -- merging ----------------------------------------------------------------------
