"""Damage for templates and environments, and the one rule every damaged input must keep.

The rule: whatever goes in, parsing, merging environments, resolving
parameters and resolving every resource and output either succeeds or
raises ``StackValidationFailed`` (or a subclass) with a message. Anything
else escaping is a crash: a 500 instead of a 400 telling the user what is
wrong.

Mutations take their choices from a ``Chooser``, so the same code serves
hypothesis (``DrawChooser``, which shrinks) and a plain seeded random
generator (``RandomChooser``, for long fuzz runs). They start from the
corpus (``seeds()``): valid and invalid templates with their inputs.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

import yaml

from hotplate.model.errors import StackValidationFailed
from hotplate.template import (
    ALL_ATTRIBUTES,
    merge_environments,
    parse_environment,
    parse_template,
    resolve_parameters,
)
from tests.unit.template.corpus.harness import BAD, CORPUS, cases

T = TypeVar("T")

FUNCTION_NAMES = (
    "get_param", "get_attr", "get_resource", "get_file", "list_join", "str_replace",
    "str_replace_strict", "str_replace_vstrict", "str_split", "repeat", "digest", "map_merge",
    "map_replace", "yaql", "if", "filter", "make_url", "list_concat", "list_concat_unique",
    "contains", "equals", "not", "and", "or", "resource_facade", "Fn::Select", "Fn::Join",
    "Ref", "Fn::GetAtt", "Fn::If", "Fn::Equals", "Fn::Base64", "Fn::Split", "Fn::Replace",
    "Fn::FindInMap", "Fn::GetAZs", "Fn::MemberListToMap", "Fn::ResourceFacade",
)
KEYWORDS = (
    "heat_template_version", "description", "parameters", "parameter_groups", "resources",
    "outputs", "conditions", "type", "properties", "metadata", "depends_on", "deletion_policy",
    "update_policy", "condition", "external_id", "value", "default", "constraints", "range",
    "length", "modulo", "allowed_values", "allowed_pattern", "custom_constraint", "hidden",
    "tags", "label", "min", "max", "step", "offset", "template", "params", "for_each",
    "permutations", "expression", "data", "keys", "values", "scheme", "host", "port", "path",
    "query", "parameter_defaults", "resource_registry", "parameter_merge_strategies",
    "event_sinks", "encrypted_param_names", "hooks", "restricted_actions", "resources",
    "AWSTemplateFormatVersion", "Resources", "Parameters", "Outputs", "Type", "Properties",
)
SCALARS: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 2**31, -(2**63), 10**30, 0.5, -0.0, 1e308, float("inf"),
    float("nan"), "", " ", "a", "é✓🚀", "\ud800", "\x00", "a,b", "%A%", "$.data",
    "2016-10-14", "wallaby", "OS::Heat::None", "*", "../etc/passwd", "{", "[]", "9" * 5000,
)
YAML_SNIPPETS = (
    "&a ", "*a", "<<: *a", "!!set {a}", "!!binary aGk=", "? [a, b]\n: c",
    "!!python/object:os.system",
    "!!float nan", "!!int 99999999999999999999", "{", "}", "[", "]", "- ", ": ", "\t", "'", '"',
    "---\n", "...\n", "%YAML 1.1\n", "\n  x: 1\n", "!!timestamp 2001-12-14", "0x1F", "1e9999",
    "~", "&b [*b]", "\\u0000", "\ud800",
)
PSEUDO = {"OS::stack_name": "fuzz", "OS::stack_id": "fuzz-id", "OS::project_id": "project"}


class Chooser(Protocol):
    """Where a mutation takes its choices from."""

    def pick(self, options: Sequence[T]) -> T: ...

    def number(self, low: int, high: int) -> int: ...


class RandomChooser:
    """Choices from a seeded ``random.Random``: fast, for long runs."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def number(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class DrawChooser:
    """Choices drawn through hypothesis's ``data``: shrinkable, for tests."""

    def __init__(self, draw: Callable[..., Any]) -> None:
        self.draw = draw

    def pick(self, options: Sequence[T]) -> T:
        from hypothesis import strategies as st

        index: int = self.draw(st.integers(0, len(options) - 1))
        return options[index]

    def number(self, low: int, high: int) -> int:
        from hypothesis import strategies as st

        value: int = self.draw(st.integers(low, high))
        return value


# -- seeds ---------------------------------------------------------------------------


@dataclass
class Seed:
    """One stack-create request: a template, its files and its environments."""

    name: str
    template: Any
    """Text, or data (a mapping, or whatever damage made of it)."""
    files: dict[str, Any] = field(default_factory=dict)
    environments: list[Any] = field(default_factory=list)


def seeds() -> list[Seed]:
    """Every corpus case (good and bad) as a request to damage."""
    found = []
    for case in [*cases(CORPUS), *cases(BAD)]:
        files = dict(case.inputs.get("files") or {})
        envs = [case.inputs.get("environment") or {},
                *(files[n] for n in case.inputs.get("environment_files") or [])]
        found.append(Seed(case.name, case.text, files, envs))
    return found


# -- mutations -----------------------------------------------------------------------


def garbage(chooser: Chooser, depth: int = 3) -> Any:
    """A value of a random shape: scalar, function call, list, map, or deep nesting."""
    kind = chooser.pick(("scalar", "scalar", "word", "call", "list", "map", "deep", "keys")
                        if depth > 0 else ("scalar", "word"))
    if kind == "scalar":
        return chooser.pick(SCALARS)
    if kind == "word":
        return chooser.pick(KEYWORDS + FUNCTION_NAMES)
    if kind == "call":
        return {chooser.pick(FUNCTION_NAMES): garbage(chooser, depth - 1)}
    if kind == "list":
        return [garbage(chooser, depth - 1) for _ in range(chooser.number(0, 3))]
    if kind == "map":
        return {chooser.pick(KEYWORDS + FUNCTION_NAMES): garbage(chooser, depth - 1)
                for _ in range(chooser.number(0, 3))}
    if kind == "deep":
        value: Any = chooser.pick(SCALARS)
        for _ in range(chooser.number(50, 150)):
            value = [value] if chooser.number(0, 1) else {"get_param": value}
        return value
    # keys of types a template cannot have (data only: YAML would not parse them)
    key = chooser.pick((1, 2.5, None, True, (1, 2), frozenset({1}), b"x"))
    return {key: garbage(chooser, depth - 1)}


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found.extend(_paths(value, (*prefix, i)))
    return found


def mutate_data(data: Any, chooser: Chooser) -> Any:
    """``data`` with a few random edits (replace, delete, add, wrap, alias, cycle)."""
    result = copy.deepcopy(data)
    for _ in range(chooser.number(1, 3)):
        paths = _paths(result)[1:]
        if not paths:
            return garbage(chooser)
        path = chooser.pick(paths)
        parent: Any = result
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        op = chooser.pick(("replace", "delete", "add", "wrap", "alias", "cycle"))
        if op == "replace":
            parent[last] = garbage(chooser)
        elif op == "delete":
            del parent[last]
        elif op == "add" and isinstance(parent[last], dict):
            parent[last][chooser.pick(KEYWORDS + FUNCTION_NAMES)] = garbage(chooser)
        elif op == "wrap":
            parent[last] = {chooser.pick(FUNCTION_NAMES): parent[last]}
        elif op == "alias":  # the document inside itself, as a recursive YAML alias makes
            parent[last] = result
            break  # no more paths to walk: they are endless now
        elif op == "cycle" and isinstance(parent[last], list | dict):
            target = parent[last]
            if isinstance(target, list):
                target.append(target)
            else:
                target["self"] = target
            break
        else:
            parent[last] = garbage(chooser)
    return result


def mutate_text(text: str, chooser: Chooser) -> str:
    """``text`` with a few random edits: cuts, insertions, YAML syntax, duplicated lines."""
    for _ in range(chooser.number(1, 3)):
        at = chooser.number(0, len(text))
        op = chooser.pick(("insert", "cut", "yaml", "duplicate", "replace_line"))
        if op == "insert":
            text = text[:at] + str(chooser.pick(SCALARS)) + text[at:]
        elif op == "cut":
            text = text[:at] + text[at + chooser.number(1, 20):]
        elif op == "yaml":
            text = text[:at] + chooser.pick(YAML_SNIPPETS) + text[at:]
        else:
            lines = text.split("\n")
            i = chooser.number(0, len(lines) - 1)
            if op == "duplicate":  # duplicate keys, most of the time
                lines.insert(i, lines[i])
            else:
                lines[i] = lines[i][: len(lines[i]) - len(lines[i].lstrip())] + \
                    f"{chooser.pick(KEYWORDS)}: {_flow_text(garbage(chooser, 1))}"
            text = "\n".join(lines)
    return text


def _flow_text(value: Any) -> str:
    """A value as one line of YAML flow text (JSON when it can be, else its repr)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def damaged(seed: Seed, chooser: Chooser) -> Seed:
    """The seed with its template (as text or data) or one environment damaged."""
    target = chooser.pick(("text", "data", "data", "environment", "json"))
    if target == "environment" and seed.environments:
        i = chooser.number(0, len(seed.environments) - 1)
        envs = list(seed.environments)
        env = envs[i]
        envs[i] = mutate_text(env, chooser) if isinstance(env, str) else mutate_data(env, chooser)
        return Seed(seed.name, seed.template, seed.files, envs)
    source: Any = seed.template
    text = source if isinstance(source, str) else yaml.safe_dump(source, allow_unicode=True)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if target == "text" or not isinstance(data, dict):
        return Seed(seed.name, mutate_text(text, chooser), seed.files, seed.environments)
    mutated = mutate_data(data, chooser)
    if target == "json":
        with contextlib.suppress(TypeError, ValueError):  # unwritable keys, a cycle: as data
            mutated = mutate_text(json.dumps(mutated), chooser)
    return Seed(seed.name, mutated, seed.files, seed.environments)


# -- the rule ------------------------------------------------------------------------


class _AnyContext:
    """Resolving reads parameters as given and ``attribute`` for every attribute.

    Attribute values reach templates through JSON (the store keeps them so),
    so the value is made JSON-safe first: keys that are not text would be an
    artefact of the fuzzer, not something a stack can hold.
    """

    def __init__(self, params: dict[str, Any], attribute: Any) -> None:
        self.params = params
        try:
            self.attribute = json.loads(json.dumps(attribute))
        except (TypeError, ValueError, RecursionError):
            self.attribute = repr(attribute)

    def parameter(self, name: str) -> Any:
        return self.params[name]

    def resource_reference(self, name: str) -> str | None:
        return f"{name}-id"

    def resource_attribute(self, name: str, attribute: str) -> Any:
        if attribute == ALL_ATTRIBUTES:
            return {"a": self.attribute}
        return self.attribute


def _checked(errors: list[StackValidationFailed], step: Callable[[], Any]) -> Any:
    """Run one step; keep its validation error (with a message), let anything else out."""
    try:
        return step()
    except StackValidationFailed as exc:
        if not str(exc).strip():
            raise AssertionError(f"{type(exc).__name__} without a message") from exc
        errors.append(exc)
        return None


def exercise(seed: Seed, attribute: Any = "value") -> list[StackValidationFailed]:
    """Everything a stack create does with the request, each step on its own.

    Returns the validation errors met (a step that fails is skipped, the
    others still run). Raises whatever else escapes: that is a crash.
    """
    errors: list[StackValidationFailed] = []
    for env in seed.environments:
        _checked(errors, partial(parse_environment, env))
    template = _checked(errors, lambda: parse_template(seed.template, files=seed.files))
    if template is None:
        return errors
    _checked(errors, template.dependencies)
    template.to_dict()
    template.attributes_referenced()
    env = _checked(errors, lambda: merge_environments(seed.environments, template=template))
    params = None if env is None else _checked(errors, lambda: resolve_parameters(
        template, env.parameters, param_defaults=env.parameter_defaults))
    if params is None:
        params = _checked(errors, lambda: resolve_parameters(template, {}))
    if params is None:
        return errors
    values = {**params, **PSEUDO}
    decided = _checked(errors, lambda: template.with_parameters(values))
    if decided is None:
        return errors
    ctx = _AnyContext(values, attribute)
    for name, definition in decided.resources.items():
        if env is not None:
            _checked(errors, partial(env.resource_registry.resolve_type, name, definition.type))
        _checked(errors, partial(definition.resolve_properties, ctx))
        _checked(errors, partial(definition.resolve_metadata, ctx))
    for output in decided.outputs.values():
        _checked(errors, partial(output.resolve, ctx))
    _checked(errors, lambda: decided.dependencies().toposort())
    return errors
