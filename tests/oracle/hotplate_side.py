"""hotplate's side of the template oracle: the same cases, in-process, the same phases.

* ``parse``: ``parse_template``, the parameter values, and the conditions
  decided with them (``Template.with_parameters``);
* ``validate``: ``validate_functions`` with each resource type's attribute
  names, as the engine validates a template before a create;
* ``resolve``: each resource's properties (in name order), then each
  output's value, against resources that are all CREATE_COMPLETE.

Errors of the first two phases are compared whole (path and message), as a
validate answer shows them; resolve errors by their message, which is what
the template layer says (the engine words the resource failure around it).
"""

from __future__ import annotations

import json
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.attributes import InvalidTemplateAttribute
from hotplate.resources.registry import Registry
from hotplate.template import ALL_ATTRIBUTES, Template, parse_template, resolve_parameters

try:
    from hotplate.template.validation import validate_functions
except ImportError:  # an older hotplate: nothing is checked between parse and resolve
    def validate_functions(template: Template, attributes: dict[str, frozenset[str]]) -> None:
        return None

PSEUDO = {"OS::stack_name": "stack", "OS::stack_id": "stack-id", "OS::project_id": "tenant"}
SHOW = "show"


class _Created:
    """Every resource CREATE_COMPLETE, with the case's reference ids and attributes."""

    def __init__(self, values: dict[str, Any], case: dict[str, Any]) -> None:
        self._values = values
        self._refs = case["refs"]
        self._attrs = case["attributes"]

    def parameter(self, name: str) -> Any:
        return self._values[name]

    def resource_reference(self, name: str) -> str | None:
        return self._refs.get(name)

    def resource_attribute(self, name: str, attribute: str) -> Any:
        attrs = self._attrs.get(name, {})
        if attribute == ALL_ATTRIBUTES:
            return {k: v for k, v in attrs.items() if k != SHOW}
        if attribute not in attrs:
            raise InvalidTemplateAttribute(name, attribute)
        return attrs[attribute]


def _attribute_names(template: Template) -> dict[str, frozenset[str]]:
    registry = Registry.default()
    return {name: frozenset(registry.get(defn.type).all_attributes())
            for name, defn in template.resources.items() if defn.type in registry}


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _resolve(template: Template, ctx: _Created) -> tuple[dict[str, Any], str | None]:
    values: dict[str, Any] = {}
    first_error = None
    items: list[tuple[str, Any]] = [
        (f"resources.{n}", template.resources[n].resolve_properties)
        for n in sorted(template.resources)
    ]
    items += [(f"outputs.{n}", template.outputs[n].resolve) for n in sorted(template.outputs)]
    for key, compute in items:
        try:
            values[key] = _plain(compute(ctx))
        except HotplateError as exc:
            message = getattr(exc, "detail", str(exc))
            values[key] = {"error": message}
            if first_error is None:
                first_error = message
    return values, first_error


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """The case's outcome: the phase it fails in and what it says, or its values."""
    phase = "parse"
    try:
        template = parse_template(case["template"], files=case["files"])
        values = {**resolve_parameters(template, case["params"]), **PSEUDO}
        decided = template.with_parameters(values)
        phase = "validate"
        validate_functions(decided, _attribute_names(decided))
    except HotplateError as exc:
        return {"phase": phase, "error": str(exc), "values": {}}
    resolved, error = _resolve(decided, _Created(values, case))
    return {"phase": "resolve" if error else "ok", "error": error, "values": resolved}
