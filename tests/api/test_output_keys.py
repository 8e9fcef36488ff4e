"""An output's keys, through python-heatclient, as Heat takes them.

Heat reads a stack's outputs for ``value``, ``description`` and ``condition``
only (template_common.outputs), so other keys are ignored; a provider
template's outputs are read for its type's attributes through the template's
``outputs`` section, which refuses a key HOT does not define
(hot/template.py validate_section, resources/template_resource.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, create_complete, output_values


def test_a_stack_output_with_an_unknown_key_is_taken(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {},
                "outputs": {"o": {"value": 1, "foo": "bar", "description": "one"}}}
    assert hc.stacks.validate(template=template)["Description"] == "No description"
    stack_id = create_complete(hc, template, name="output-extra-key")
    stack = hc.stacks.get(stack_id)
    assert output_values(stack) == {"o": 1}
    assert [o["description"] for o in stack.outputs] == ["one"]


def test_a_provider_template_output_with_an_unknown_key_is_refused(hc: Any) -> None:
    provider = (f"heat_template_version: {VERSION}\n"
                "outputs:\n  o: {value: 1, foo: bar}\n")
    template = {"heat_template_version": VERSION,
                "resources": {"p": {"type": "provider.yaml"}}}
    with pytest.raises(exc.HTTPBadRequest) as refused:
        hc.stacks.create(stack_name="provider-extra-key", template=template,
                         files={"provider.yaml": provider})
    assert str(refused.value) == (
        'ERROR: "foo" is not a valid keyword inside a output definition')
    assert list(hc.stacks.list(filters={"name": "provider-extra-key"})) == []
