"""An attribute named by another resource's attribute, through python-heatclient.

``get_attr: [a, {get_attr: [b, value]}]`` reads the attribute of ``a`` that
``b`` names. Heat fails it at a create and resolves it only on an update;
here a create, a validate and an update all take it: the consumer runs once
``a`` and ``b`` are complete, and an update that changes ``b`` changes what it
reads. A name ``a`` does not have fails as a literal one does.
"""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, create_complete, output_values, update_complete, wait_status

_PAIR = (f"heat_template_version: {VERSION}\n"
         "outputs:\n  first: {value: one}\n  second: {value: two}\n")
"""A template type with two attributes to choose from."""

_FILES = {"pair.yaml": _PAIR}
_CHOSEN = {"get_attr": ["a", {"get_attr": ["b", "value"]}]}


def _template() -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "parameters": {"which": {"type": "string", "default": "first"}},
        "resources": {
            "a": {"type": "pair.yaml"},
            "b": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "which"}}},
            "c": {"type": "OS::Heat::Value", "properties": {"value": _CHOSEN}},
        },
        "outputs": {"chosen": {"value": _CHOSEN},
                    "consumer": {"value": {"get_attr": ["c", "value"]}}},
    }


def _chosen(hc: Any, stack_id: str) -> tuple[dict[str, Any], Any, Any]:
    stack = hc.stacks.get(stack_id)
    shown = hc.stacks.output_show(stack_id, "chosen")["output"]
    consumer = hc.resources.get(stack_id, "c")
    return output_values(stack), shown["output_value"], consumer.attributes["value"]


def test_validate_takes_an_attribute_name_from_an_attribute(hc: Any) -> None:
    validated = hc.stacks.validate(template=_template(), files=_FILES)
    assert validated["Parameters"]["which"]["Default"] == "first"


def test_create_reads_the_named_attribute_and_an_update_follows_the_name(hc: Any) -> None:
    stack_id = create_complete(hc, _template(), name="computed-attr", files=_FILES)
    assert _chosen(hc, stack_id) == ({"chosen": "one", "consumer": "one"}, "one", "one")

    update_complete(hc, stack_id, _template(), files=_FILES,
                    parameters={"which": "second"})
    assert _chosen(hc, stack_id) == ({"chosen": "two", "consumer": "two"}, "two", "two")


def test_a_name_from_a_parameter_follows_the_parameter(hc: Any) -> None:
    template = _template()
    template["resources"]["c"]["properties"]["value"] = {"get_attr": ["a", {"get_param": "which"}]}
    del template["outputs"]["chosen"]
    stack_id = create_complete(hc, template, name="param-attr", files=_FILES)
    assert output_values(hc.stacks.get(stack_id)) == {"consumer": "one"}
    done = update_complete(hc, stack_id, template, files=_FILES, parameters={"which": "second"})
    assert output_values(done) == {"consumer": "two"}


@pytest.mark.parametrize("literal", [False, True], ids=["computed", "literal"])
def test_a_name_the_resource_lacks_fails_its_reader(hc: Any, literal: bool) -> None:
    """Known only once ``b`` is complete, or a literal that validation leaves to the
    type (a template type answers its own attributes): the consumer fails and the
    output says so, in the same words either way (Heat's InvalidTemplateAttribute)."""
    template = _template()
    if literal:
        read = {"get_attr": ["a", "third"]}
        template["resources"]["c"]["properties"]["value"] = read
        template["outputs"]["chosen"]["value"] = read
    created = hc.stacks.create(stack_name=f"attr-lacking-{literal}", template=template,
                               files=_FILES, parameters={"which": "third"})
    stack = wait_status(hc, created["stack"]["id"])
    assert stack.stack_status == "CREATE_FAILED"
    text = "The Referenced Attribute (a third) is incorrect."
    assert stack.stack_status_reason == (
        f"Resource CREATE failed: InvalidTemplateAttribute: resources.c: {text}")
    shown = hc.stacks.output_show(stack.id, "chosen")["output"]
    assert shown["output_error"] == text


def test_validation_refuses_a_literal_name_a_checked_type_lacks(hc: Any) -> None:
    """A computed name cannot be checked before it is known; a literal one of a type
    whose attributes are declared is refused first, with the call's path."""
    template = _template()
    template["resources"]["c"]["properties"]["value"] = {"get_attr": ["b", "third"]}
    with pytest.raises(exc.HTTPBadRequest) as refused:
        hc.stacks.validate(template=template, files=_FILES)
    assert str(refused.value) == ("ERROR: resources.c.properties.value.get_attr: "
                                  "The Referenced Attribute (b third) is incorrect.")
