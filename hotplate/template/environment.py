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
  ``hooks`` and ``restricted_actions``.

A target ending in ``.yaml`` or ``.template`` names a provider template
and ends the chain.

``merge_environments`` combines several environments in order the way Heat
combines ``environment_files``: parameters by their merge strategy, every
other section shallowly, the later file winning.
"""

from __future__ import annotations

import copy
import fnmatch
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.coercion import BOOLEAN, JSON, LIST, NUMBER, STRING, str_to_num
from hotplate.template.document import normalize, text_budget
from hotplate.template.errors import with_path
from hotplate.template.yaml_loader import parse_text

if TYPE_CHECKING:
    from hotplate.template.template import Template

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

Path = tuple[str, ...]


def _frozen(data: Mapping[str, Any]) -> Mapping[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.types)
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
        found = self._resolve(resource_name, type_name, (type_name,), is_known)
        return type_name if found is None else found

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
        parameters=_frozen(_mapping(env, PARAMETERS, path)),
        parameter_defaults=_frozen(_mapping(env, PARAMETER_DEFAULTS, path)),
        resource_registry=_parse_registry(_mapping(env, RESOURCE_REGISTRY, path), path),
        event_sinks=_event_sinks(env.get(EVENT_SINKS, []), path),
        encrypted_param_names=_names(env.get(ENCRYPTED_PARAM_NAMES, []), path),
        parameter_merge_strategies=_frozen(_strategies(env, path)),
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
    return tuple(_frozen(s) for s in value)


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


def _parse_registry(data: Mapping[str, Any], path: str) -> ResourceRegistry:
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
    return ResourceRegistry(types=_frozen(types), resources=_frozen(resources))


def _parse_overrides(entry: Any, where: Path) -> ResourceOverrides:
    if not isinstance(entry, dict):
        raise _invalid(f'"{where[-1]}" must be a mapping', where)
    types: dict[str, str] = {}
    hooks: frozenset[str] = frozenset()
    restricted: frozenset[str] = frozenset()
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
        else:
            raise _invalid(
                f'resource type "{key}" must map to a type name or a template', (*where, key)
            )
    return ResourceOverrides(types=_frozen(types), hooks=hooks, restricted_actions=restricted)


def _listed(value: Any, allowed: tuple[str, ...], message: str, where: Path) -> frozenset[str]:
    """A name or a list of names, each one of ``allowed`` (Heat's rule and wording)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(i in allowed for i in items):
        raise _invalid(message.format(value=value, types=allowed), where)
    return frozenset(items)


# -- merging ----------------------------------------------------------------------


def merge_environments(
    envs: Sequence[Environment | Mapping[str, Any] | str],
    *,
    names: Sequence[str] | None = None,
    template: Template | None = None,
) -> Environment:
    """Combine environments in order, as Heat combines ``environment_files``.

    ``names`` name the environments in errors (default ``environment[i]``).
    With ``template``, a parameter it does not declare is left out once a
    value exists for the section (as Heat does) and the declared type decides
    how ``merge`` combines values; without it the value's own shape does
    (mapping: json, list: comma_delimited_list, text: string, number).

    Parameters (and parameter defaults) follow each file's
    ``parameter_merge_strategies``: ``overwrite`` (the default), ``merge``
    (text appended, lists and comma lists joined, json mappings updated,
    numbers added) or ``deep_merge`` (json mappings merged at every level).
    Once a parameter has a strategy, a file naming another is refused. The
    ``resource_registry`` merges at its top level only: a later
    ``resources`` replaces an earlier one, as in Heat. Event sinks and
    encrypted parameter names add up.

    Raises:
        StackValidationFailed: an environment does not parse; a parameter's
            strategy conflicts with an earlier file's; ``merge`` of a value
            that cannot be merged (a boolean, say).
    """
    labels = list(names) if names is not None else []
    schemata = None if template is None else {k: s.type for k, s in template.parameters.items()}
    params: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    registry: dict[str, Any] = {}
    sinks: list[Mapping[str, Any]] = []
    encrypted: list[str] = []
    chosen: dict[str, str] = {}
    for index, item in enumerate(envs):
        label = labels[index] if index < len(labels) else f"environment[{index}]"
        env = item if isinstance(item, Environment) else parse_environment(item, path=label)
        merger = _ParameterMerger(schemata, env.parameter_merge_strategies, chosen, label)
        if env.parameters:
            params = merger.merge(params, env.parameters)
        if env.parameter_defaults:
            defaults = merger.merge(defaults, env.parameter_defaults)
        registry.update(env.resource_registry.to_dict())
        sinks.extend(env.event_sinks)
        encrypted.extend(n for n in env.encrypted_param_names if n not in encrypted)
    return Environment(
        parameters=_frozen(params),
        parameter_defaults=_frozen(defaults),
        resource_registry=_parse_registry(registry, "environment"),
        event_sinks=tuple(sinks),
        encrypted_param_names=tuple(encrypted),
    )


def _invalid_strategy(strategy: str, key: str) -> StackValidationFailed:
    return StackValidationFailed(f"Invalid merge strategy '{strategy}' for parameter '{key}'.")


class _ParameterMerger:
    """Heat's ``merge_parameters`` for one file, without changing its inputs."""

    def __init__(self, schemata: Mapping[str, str] | None, in_file: Mapping[str, str],
                 chosen: dict[str, str], label: str) -> None:
        self.schemata = schemata
        self.in_file = in_file
        self.chosen = chosen  # shared by every file and both sections, as in Heat
        self.label = label

    def _declared(self, key: str) -> bool:
        return self.schemata is None or key in self.schemata

    def _strategy(self, key: str) -> str:
        default = self.in_file.get("default", OVERWRITE)
        if default not in MERGE_STRATEGIES:
            default = OVERWRITE
        strategy = self.in_file.get(key, self.chosen.get(key, default))
        return strategy if strategy in MERGE_STRATEGIES else default

    def merge(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
        for key, value in new.items():
            if self._declared(key) and value is not None:
                strategy = self._strategy(key)
                if key not in self.chosen:
                    self.chosen[key] = strategy
                elif strategy != self.chosen[key]:
                    raise StackValidationFailed(
                        f"Conflicting merge strategy '{strategy}' for parameter '{key}' "
                        f"in file '{self.label}'."
                    )
        if not old:
            return copy.deepcopy(dict(new))
        result = copy.deepcopy(dict(old))
        for key, value in new.items():
            if not self._declared(key) or value is None:
                continue
            strategy = self.chosen[key]
            if strategy == OVERWRITE:
                result[key] = copy.deepcopy(value)
            else:
                result[key] = self._combine(key, result.get(key), copy.deepcopy(value),
                                            deep=strategy == DEEP_MERGE)
        return result

    def _type(self, key: str, value: Any) -> str:
        if self.schemata is not None:
            return self.schemata[key]
        if isinstance(value, dict):
            return JSON
        if isinstance(value, list):
            return LIST
        if isinstance(value, str):
            return STRING
        if isinstance(value, bool):
            return BOOLEAN
        return NUMBER

    def _combine(self, key: str, old: Any, new: Any, *, deep: bool) -> Any:
        param_type = self._type(key, new)
        if param_type == JSON:
            old_map, new_map = _json_map(old), _json_map(new)
            if new_map is None or (old and old_map is None):
                raise _invalid_strategy(MERGE, key)
            return _merge_map(old_map or {}, new_map, deep=deep)
        if param_type == LIST and isinstance(new, (str, list)):
            return _merge_list(old, new)
        if param_type == STRING and isinstance(new, str) and isinstance(old, (str, type(None))):
            return (old or "") + new
        if param_type == NUMBER and not isinstance(new, bool):
            try:
                return str_to_num(old if old is not None else 0) + str_to_num(new)
            except (TypeError, ValueError):
                pass
        raise _invalid_strategy(MERGE, key)


def _json_map(value: Any) -> dict[str, Any] | None:
    """A json parameter's value as a mapping: given as one, or as its JSON text."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else {}
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _merge_list(old: Any, new: str | list[Any]) -> Any:
    """Lists join; comma-delimited text joins with a comma (Heat's ``merge_list``)."""
    if not old:
        return new
    if isinstance(new, str) and isinstance(old, str):
        return ",".join([old, new])
    old_items = old.split(",") if isinstance(old, str) else list(old)
    new_items = new.split(",") if isinstance(new, str) else new
    return old_items + new_items


def _merge_map(old: dict[str, Any], new: Mapping[str, Any], *, deep: bool) -> dict[str, Any]:
    """Heat's ``merge_map``: keys of ``new`` win; with ``deep``, values combine by shape."""
    if not old:
        return dict(new)
    for key, value in new.items():
        if value is None:
            continue
        current = old.get(key)
        if not deep or not current:
            old[key] = value
        elif isinstance(value, dict) and isinstance(current, dict):
            old[key] = _merge_map(current, value, deep=True)
        elif isinstance(value, (list, str)) and type(current) is type(value):
            joined: Any = current
            old[key] = joined + value
        else:
            old[key] = value
    return old
