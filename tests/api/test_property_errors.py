"""A property that cannot be taken, through python-heatclient, in Heat's words.

Heat's Properties.validate reports a bad value (and a function that fails
while the value resolves) as a ``Property error`` naming the property. A
create refused at validation shows it as heat-api words it again after RPC
(``Property error: : <path>: : <message>``); a value that turns out bad only
when the resource is made fails that resource, its path starting at its
``Properties`` (heat/engine/properties.py, resource.py ``create``/``update``,
common/exception.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, create_complete, wait_status


def _refused(hc: Any, name: str, template: dict[str, Any]) -> str:
    with pytest.raises(exc.HTTPBadRequest) as refused:
        hc.stacks.create(stack_name=name, template=template)
    assert list(hc.stacks.list(filters={"name": name})) == []
    return str(refused.value)


def _value(value: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::Value", "properties": {"value": value}}


def test_a_parameter_named_by_an_attribute_is_refused_at_the_create(hc: Any) -> None:
    """Heat resolves it while validating, every attribute still null: no name."""
    template = {"heat_template_version": VERSION, "resources": {
        "r": _value("greeting"),
        "v": _value({"get_param": {"get_attr": ["r", "value"]}})}}
    assert _refused(hc, "param-by-attr", template) == (
        'ERROR: Property error: : resources.v.properties.value: : '
        'Function "get_param" must have arguments')


def test_an_undeclared_parameter_is_a_property_error(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "v": _value({"str_split": [",", "a,b", {"get_param": "nope"}]})}}
    assert _refused(hc, "param-undeclared", template) == (
        "ERROR: Property error: : resources.v.properties.value: : "
        "The Parameter (nope) was not provided.")


def test_a_bad_value_known_before_the_create_names_the_property(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "x": {"type": "OS::Heat::RandomString", "properties": {
            "length": 8, "character_classes": [{"class": "digits", "min": "many"}]}}}}
    assert _refused(hc, "bad-class", template) == (
        "ERROR: Property error: : resources.x.properties.character_classes[0].min: : "
        "Value 'many' is not an integer")
    # Heat's template validate checks names only, and words it once
    with pytest.raises(exc.HTTPBadRequest) as unknown:
        hc.stacks.validate(template={"heat_template_version": VERSION, "resources": {
            "x": {"type": "OS::Heat::RandomString", "properties": {"colour": 1}}}})
    assert str(unknown.value) == (
        "ERROR: Property error: resources.x.properties: Unknown Property colour")


def _reasons(hc: Any, stack_id: str) -> tuple[str, str, str]:
    stack = wait_status(hc, stack_id)
    x = hc.resources.get(stack_id, "x")
    return stack.stack_status, stack.stack_status_reason, x.resource_status_reason


def test_a_bad_value_met_by_the_create_fails_the_resource(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "r": _value("abc"),
        "x": {"type": "OS::Heat::RandomString",
              "properties": {"length": {"get_attr": ["r", "value"]}}}}}
    created = hc.stacks.create(stack_name="late-bad-length", template=template)
    status, stack_reason, reason = _reasons(hc, created["stack"]["id"])
    assert status == "CREATE_FAILED"
    assert reason == ("StackValidationFailed: resources.x: Property error: "
                      "Properties.length: Value 'abc' is not an integer")
    assert stack_reason == ("Resource CREATE failed: StackValidationFailed: resources.x: "
                            "Property error: x.Properties.length: Value 'abc' is not an "
                            "integer")


def test_a_bad_value_met_by_an_update_fails_the_resource(hc: Any) -> None:
    first = {"heat_template_version": VERSION, "resources": {
        "r": _value("abc"),
        "x": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}}}
    stack_id = create_complete(hc, first, name="late-bad-update")
    second = {"heat_template_version": VERSION, "resources": {
        "r": _value("abc"),
        "x": {"type": "OS::Heat::RandomString",
              "properties": {"length": {"get_attr": ["r", "value"]}}}}}
    hc.stacks.update(stack_id, template=second)
    status, stack_reason, reason = _reasons(hc, stack_id)
    assert status == "UPDATE_FAILED"
    assert reason == ("StackValidationFailed: resources.x: Property error: "
                      "Properties.length: Value 'abc' is not an integer")
    assert stack_reason == ("Resource UPDATE failed: StackValidationFailed: resources.x: "
                            "Property error: Properties.length: Value 'abc' is not an "
                            "integer")
