"""Property tests over templates drawn from a grammar of valid HOT (``corpus/grammar.py``).

Every drawn template must parse (as text and as data), take its parameter
values, decide its conditions, and give exactly the resources, dependency
graph and attribute reads the grammar's own model says; then every
resource, its metadata and every output must resolve in dependency order.

``HOTPLATE_PROPERTY_EXAMPLES`` scales the number of examples (default 100).
"""

from __future__ import annotations

import os
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings

from hotplate.template import ALL_ATTRIBUTES, Template, parse_template, resolve_parameters
from tests.unit.template.corpus.grammar import ATTRIBUTES, Model, templates

EXAMPLES = int(os.environ.get("HOTPLATE_PROPERTY_EXAMPLES", "100"))
PSEUDO = {"OS::stack_name": "gen", "OS::stack_id": "gen-id", "OS::project_id": "project"}


class ReportingContext:
    """Every resource reports ``ATTRIBUTES`` and is referenced as ``<name>-id``."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def parameter(self, name: str) -> Any:
        return self.params[name]

    def resource_reference(self, name: str) -> str | None:
        return f"{name}-id"

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return dict(ATTRIBUTES) if attribute == ALL_ATTRIBUTES else ATTRIBUTES.get(attribute)


def _decide(model: Model) -> tuple[Template, dict[str, Any]]:
    text = yaml.safe_dump(model.template, allow_unicode=True, sort_keys=False)
    template = parse_template(text, files=model.files)
    assert parse_template(model.template, files=model.files).to_dict() == template.to_dict()
    values = resolve_parameters(template, model.user_params)
    assert values == model.values
    params = {**values, **PSEUDO}
    return template.with_parameters(params), params


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(templates())
def test_generated_template_means_what_its_model_says(model: Model) -> None:
    decided, _ = _decide(model)
    assert list(decided.resources) == model.enabled
    graph = decided.dependencies()
    assert set(graph.edges) == model.edges
    assert {name: set(attrs) for name, attrs in decided.attributes_referenced().items()} \
        == model.attributes
    order = graph.toposort()
    position = {name: i for i, name in enumerate(order)}
    assert all(position[required] < position[requirer] for requirer, required in model.edges)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(templates())
def test_generated_template_resolves_in_dependency_order(model: Model) -> None:
    decided, params = _decide(model)
    ctx = ReportingContext(params)
    for name in decided.dependencies().toposort():
        definition = decided.resources[name]
        properties = definition.resolve_properties(ctx)
        assert set(properties) == set(model.template["resources"][name].get("properties", {}))
        assert isinstance(definition.resolve_metadata(ctx), dict)
    for output in decided.outputs.values():
        output.resolve(ctx)
