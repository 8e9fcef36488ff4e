"""Merging environments in order, as Heat merges a request's environment_files.

The first environment is the starting point (the request's own); each
later one merges its parameters into what is there by its own per-parameter
merge strategies (overwrite, merge, deep_merge). A strategy, once used for
a parameter, binds it: a later file naming another is refused. Registry
entries of later files win.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.coercion import BOOLEAN, JSON, LIST, NUMBER, STRING, str_to_num
from hotplate.template.environment import (
    DEEP_MERGE,
    MERGE,
    MERGE_STRATEGIES,
    OVERWRITE,
    Environment,
    frozen_mapping,
    parse_environment,
    parse_registry,
)

if TYPE_CHECKING:
    from hotplate.template.template import Template


def patched_environment(stored: Mapping[str, Any], given: Mapping[str, Any],
                        clear: Sequence[str] = ()) -> dict[str, Any]:
    """The environment a PATCH update (Heat's update with ``existing``) runs with: the
    stored one with the request's sections loaded over it (mappings merged key by key,
    other values replaced), the stored parameters kept but those named in ``clear``,
    the request's parameters over them. Applying it to its own result changes nothing,
    so the API and the engine may both apply it."""
    cleared = set(clear)
    kept = {k: v for k, v in (stored.get("parameters") or {}).items() if k not in cleared}
    merged = {key: value for key, value in stored.items() if value not in (None, {}, [])}
    for key, value in given.items():
        base = merged.get(key)
        if isinstance(base, dict) and isinstance(value, dict):
            merged[key] = {**base, **value}
        else:
            merged[key] = value
    merged["parameters"] = {**kept, **(given.get("parameters") or {})}
    return merged


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

    Parameters (and parameter defaults) of each later environment follow
    that file's own ``parameter_merge_strategies`` (its ``default``, else
    ``overwrite``): ``overwrite``, ``merge`` (text appended, lists and comma
    lists joined, json mappings updated) or ``deep_merge`` (json mappings
    merged at every level). As in Heat, a section that is still empty takes
    the file's values whole and binds no strategy; otherwise a parameter's
    strategy binds it and a later file naming another is refused. The
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
        in_file = env.parameter_merge_strategies if index else {}
        merger = _ParameterMerger(schemata, in_file, chosen, label)
        if env.parameters:
            params = merger.merge(params, env.parameters)
        if env.parameter_defaults:
            defaults = merger.merge(defaults, env.parameter_defaults)
        registry.update(env.resource_registry.to_dict())
        sinks.extend(env.event_sinks)
        encrypted.extend(n for n in env.encrypted_param_names if n not in encrypted)
    return Environment(
        parameters=frozen_mapping(params),
        parameter_defaults=frozen_mapping(defaults),
        resource_registry=parse_registry(registry, "environment"),
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
        """This file's strategy for ``key``: its own entry, else its default, else overwrite."""
        default = self.in_file.get("default", OVERWRITE)
        if default not in MERGE_STRATEGIES:
            default = OVERWRITE
        strategy = self.in_file.get(key, default)
        return strategy if strategy in MERGE_STRATEGIES else default

    def merge(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
        if not old:
            return copy.deepcopy(dict(new))
        result = copy.deepcopy(dict(old))
        bound: dict[str, str] = {}
        for key, value in new.items():
            if not self._declared(key) or value is None:
                continue
            strategy = self._strategy(key)
            if key not in self.chosen:
                bound[key] = strategy
            elif strategy != self.chosen[key]:
                raise StackValidationFailed(
                    f"Conflicting merge strategy '{strategy}' for parameter '{key}' "
                    f"in file '{self.label}'."
                )
            if strategy == OVERWRITE:
                result[key] = copy.deepcopy(value)
            else:
                result[key] = self._combine(key, result.get(key), copy.deepcopy(value),
                                            deep=strategy == DEEP_MERGE)
        self.chosen.update(bound)
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
        if param_type == NUMBER:
            if not isinstance(new, str):  # Heat takes only text (a sequence) here
                raise StackValidationFailed(
                    f"Invalid parameter in environment '{self.label}': '{key}' must be "
                    "given as text to be merged.")
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
