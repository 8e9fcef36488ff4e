"""Run a corpus template as a stack would run it, and describe the outcome as JSON.

A case is ``<name>.yaml`` (the template, as a user writes it) with optional
``inputs/<name>.yaml`` (what a stack-create request brings along)::

    stack_name: web            # OS::stack_name (default: "corpus")
    environment: {...}         # the request's environment
    environment_files: [a.yaml, b.yaml]   # merged on top, in order, from files
    files: {name: text}        # get_file contents and environment files
    attributes: {res: {attr: value}}      # what resources of other types report

The run follows a stack create: merge the environments (Heat's order and
strategies, with the template's parameter types), resolve parameters,
decide the conditions, then walk the dependency graph in order. Each
resource's properties are resolved against what the resources before it
"reported", and checked by its plugin when the (registry-resolved) type is
built in. Built-in types report what Heat's do: ``OS::Heat::Value`` its
``value``, ``OS::Heat::TestResource`` its ``output``, ``OS::Heat::RandomString``
a fixed ``value`` that is also its reference id, ``OS::Heat::None`` None for
every attribute. Other resources are referenced as ``<name>-id``.

The outcome is the golden form: parameters, the order, the graph, each
resource's resolved definition, each output's value (or its error, as
Heat shows an output error without failing the stack); or, for a template
Heat refuses, the error's class and message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.registry import Registry
from hotplate.template import (
    ALL_ATTRIBUTES,
    Environment,
    Template,
    merge_environments,
    parse_template,
    resolve_parameters,
)
from hotplate.template.validation import validate_functions

CORPUS = Path(__file__).resolve().parent
BAD = CORPUS / "bad"
UPDATE_FLAG = "HOTPLATE_UPDATE_GOLDEN"
"""Set to 1 to (re)write the golden files instead of comparing with them."""

BUILT_IN = ("OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::RandomString",
            "OS::Heat::Value")


@dataclass(frozen=True)
class Case:
    name: str
    template: Path
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def golden(self) -> Path:
        return self.template.with_suffix(".golden.json")

    @property
    def text(self) -> str:
        return self.template.read_text(encoding="utf-8")


def cases(directory: Path = CORPUS) -> list[Case]:
    """Every case of a corpus directory, by name."""
    found = []
    for path in sorted(directory.glob("*.yaml")):
        inputs_path = directory / "inputs" / path.name
        inputs = yaml.safe_load(inputs_path.read_text(encoding="utf-8")) \
            if inputs_path.exists() else {}
        found.append(Case(path.stem, path, inputs or {}))
    return found


class StackContext:
    """What resolving sees: parameter values and what finished resources reported."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = dict(params)
        self.refs: dict[str, str] = {}
        self.attrs: dict[str, dict[str, Any]] = {}
        self.placeholders: set[str] = set()

    def parameter(self, name: str) -> Any:
        return self.params[name]

    def resource_reference(self, name: str) -> str | None:
        return self.refs.get(name)

    def resource_attribute(self, name: str, attribute: str) -> Any:
        reported = self.attrs.get(name)
        if reported is None:
            return None  # not created (yet): Heat resolves it to None
        if attribute == ALL_ATTRIBUTES:
            return dict(reported)
        return reported.get(attribute)

    def report(self, name: str, ref: str, attrs: Mapping[str, Any]) -> None:
        self.refs[name] = ref
        self.attrs[name] = dict(attrs)


def environment(case: Case, template: Template) -> Environment:
    """The request's environment with its environment files merged on, as Heat merges them."""
    files = case.inputs.get("files") or {}
    names = list(case.inputs.get("environment_files") or [])
    envs = [case.inputs.get("environment") or {}, *(files[name] for name in names)]
    return merge_environments(envs, names=["environment", *names], template=template)


def _plugin_type(env: Environment, name: str, type_name: str) -> str:
    return env.resource_registry.resolve_type(name, type_name, is_known=BUILT_IN.__contains__)


def _report(ctx: StackContext, case: Case, name: str, plugin: str,
            properties: dict[str, Any]) -> None:
    """Record what the resource reports once created (see the module docstring)."""
    path = ("resources", name, "properties")
    ref, attrs = f"{name}-id", dict((case.inputs.get("attributes") or {}).get(name, {}))
    if plugin in BUILT_IN:
        validated = Registry.default().get(plugin).validate(properties, path)
        if plugin == "OS::Heat::Value":
            attrs.setdefault("value", validated["value"])
        elif plugin == "OS::Heat::TestResource":
            attrs.setdefault("output", validated["value"])
        elif plugin == "OS::Heat::RandomString":
            ref = attrs.setdefault("value", f"random-{name}")
    ctx.report(name, ref, attrs)


def run(case: Case) -> dict[str, Any]:
    """The outcome of creating the case's stack, in golden form.

    Raises:
        StackValidationFailed: wherever Heat would refuse the template.
    """
    files = case.inputs.get("files") or {}
    template = parse_template(case.text, files=files)
    env = environment(case, template)
    values = resolve_parameters(template, env.parameters, param_defaults=env.parameter_defaults)
    stack_name = case.inputs.get("stack_name", "corpus")
    pseudo = {"OS::stack_name": stack_name, "OS::stack_id": f"{stack_name}-id",
              "OS::project_id": "project-id"}
    decided = template.with_parameters({**values, **pseudo})
    validate_functions(decided)  # what Heat checks before a create
    graph = decided.dependencies()
    order = graph.toposort()
    ctx = StackContext({**values, **pseudo})
    resources: dict[str, Any] = {}
    for name in order:
        definition = decided.resources[name]
        plugin = _plugin_type(env, name, definition.type)
        properties = definition.resolve_properties(ctx)
        metadata = definition.resolve_metadata(ctx)
        resources[name] = _describe(definition, plugin, properties, metadata)
        _report(ctx, case, name, plugin, properties)
    outcome: dict[str, Any] = {"version": decided.version, "description": decided.description,
                               "parameters": values}
    if decided.parameter_groups is not None:
        outcome["parameter_groups"] = decided.parameter_groups
    outcome.update({
        "order": order,
        "dependencies": graph.to_text().splitlines(),
        "attributes_read": {name: sorted(attrs) for name, attrs
                            in sorted(decided.attributes_referenced().items())},
        "resources": {name: resources[name] for name in decided.resources},
        "outputs": {name: _output(output, ctx) for name, output in decided.outputs.items()},
    })
    return outcome


def _describe(definition: Any, plugin: str, properties: dict[str, Any],
              metadata: dict[str, Any]) -> dict[str, Any]:
    described: dict[str, Any] = {"type": definition.type}
    if plugin != definition.type:
        described["plugin"] = plugin
    if definition.depends_on:
        described["depends_on"] = list(definition.depends_on)
    described["deletion_policy"] = definition.deletion_policy
    if definition.update_policy:
        described["update_policy"] = dict(definition.update_policy)
    if definition.condition is not None:
        described["condition"] = definition.condition
    if definition.external_id is not None:
        described["external_id"] = definition.external_id
    if definition.description:
        described["description"] = definition.description
    described["properties"] = properties
    if metadata:
        described["metadata"] = metadata
    return described


def _output(output: Any, ctx: StackContext) -> dict[str, Any]:
    described: dict[str, Any] = {"description": output.description}
    try:
        described["value"] = output.resolve(ctx)
    except StackValidationFailed as exc:
        described["error"] = str(exc)
    return described


def outcome(case: Case) -> dict[str, Any]:
    """``run``, or the error Heat would report for the template."""
    try:
        return run(case)
    except StackValidationFailed as exc:
        return {"error": {"class": type(exc).__name__, "message": str(exc)}}


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def updating() -> bool:
    return os.environ.get(UPDATE_FLAG) == "1"


def check_golden(case: Case) -> None:
    """Compare the case's outcome with its golden file (or write it, when updating)."""
    actual = outcome(case)
    if updating():
        case.golden.write_text(dumps(actual), encoding="utf-8")
        return
    assert case.golden.exists(), f"no golden file for {case.name}: run with {UPDATE_FLAG}=1"
    expected = json.loads(case.golden.read_text(encoding="utf-8"))
    assert json.loads(dumps(actual)) == expected
