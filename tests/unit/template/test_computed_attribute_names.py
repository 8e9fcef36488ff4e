"""An attribute name computed from another resource's attribute.

``get_attr: [a, {get_attr: [b, name]}]`` cannot know its name before ``b``
is complete: the inner call makes ``b`` a dependency, the name is left
unknown for validation and for the list of attributes ``a`` passes on, and
the template says which resources are read that way
(``computed_attribute_reads``) so that the engine reads those live.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import parse_template, resolve_parameters
from hotplate.template.validation import validate_functions
from tests.unit.template.fakes import FakeContext

_NAMES = {"a": frozenset({"first", "second", "show"}), "b": frozenset({"value", "show"}),
          "c": frozenset({"value", "show"})}
_CHOSEN = {"get_attr": ["a", {"get_attr": ["b", "value"]}]}


def _data(consumer: Any = _CHOSEN, output: Any = _CHOSEN) -> dict[str, Any]:
    return {
        "heat_template_version": "2021-04-16",
        "parameters": {"which": {"type": "string", "default": "first"}},
        "resources": {
            "a": {"type": "T"},
            "b": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "which"}}},
            "c": {"type": "OS::Heat::Value", "properties": {"value": consumer}},
        },
        "outputs": {"o": {"value": output}},
    }


def _decided(data: dict[str, Any]) -> Any:
    template = parse_template(data)
    return template.with_parameters(resolve_parameters(template, {}))


def test_the_inner_call_orders_b_before_the_consumer() -> None:
    decided = _decided(_data())
    assert decided.dependencies().requires("c") == {"a", "b"}
    assert decided.resources["c"].references() == frozenset({"a", "b"})
    assert decided.outputs["o"].references() == frozenset({"a", "b"})


def test_b_passes_on_what_names_the_attribute_and_a_is_read_live() -> None:
    decided = _decided(_data())
    assert decided.attributes_referenced()["b"] == frozenset({"value"})
    assert decided.attributes_referenced()["a"] == frozenset()  # no name to list
    assert decided.computed_attribute_reads == frozenset({"a"})


def test_an_output_alone_is_enough_to_read_live() -> None:
    decided = _decided(_data(consumer="plain"))
    assert decided.computed_attribute_reads == frozenset({"a"})


def test_literal_and_parameter_names_are_not_read_live() -> None:
    by_parameter = {"get_attr": ["a", {"get_param": "which"}]}
    decided = _decided(_data(consumer=by_parameter, output={"get_attr": ["a", "second"]}))
    assert decided.computed_attribute_reads == frozenset()
    assert decided.attributes_referenced()["a"] == frozenset({"first", "second"})


def test_validation_takes_the_name_it_cannot_know_yet() -> None:
    validate_functions(_decided(_data()), _NAMES)
    validate_functions(parse_template(_data()), _NAMES)  # before parameter values too


def test_validation_still_refuses_a_literal_name_the_type_lacks() -> None:
    literal = {"get_attr": ["a", "third"]}
    with pytest.raises(StackValidationFailed) as info:
        validate_functions(_decided(_data(consumer=literal)), _NAMES)
    assert str(info.value) == ("resources.c.properties.value.get_attr: "
                               "The Referenced Attribute (a third) is incorrect.")


def test_a_name_built_around_an_attribute_is_computed_too() -> None:
    built = {"get_attr": ["a", {"str_replace": {
        "template": "%s", "params": {"%s": {"get_attr": ["b", "value"]}}}}]}
    decided = _decided(_data(consumer=built, output="plain"))
    assert decided.computed_attribute_reads == frozenset({"a"})
    assert decided.dependencies().requires("c") == {"a", "b"}
    ctx = FakeContext(attrs={"a": {"second": 2}, "b": {"value": "second"}})
    assert decided.resources["c"].resolve_properties(ctx) == {"value": 2}


def test_resolving_reads_the_attribute_b_names_now() -> None:
    decided = _decided(_data())
    ctx = FakeContext(attrs={"a": {"first": "one", "second": "two"}, "b": {"value": "first"}})
    assert decided.resources["c"].resolve_properties(ctx) == {"value": "one"}
    ctx.attrs["b"]["value"] = "second"
    assert decided.resources["c"].resolve_properties(ctx) == {"value": "two"}
    assert decided.outputs["o"].resolve(ctx) == "two"
    assert ("a", "second") in ctx.attribute_reads


def test_a_path_after_a_computed_name_applies_to_its_value() -> None:
    with_path = {"get_attr": ["a", {"get_attr": ["b", "value"]}, "k", 1]}
    decided = _decided(_data(consumer=with_path, output="plain"))
    ctx = FakeContext(attrs={"a": {"first": {"k": [0, "picked"]}}, "b": {"value": "first"}})
    assert decided.resources["c"].resolve_properties(ctx) == {"value": "picked"}


def test_a_resource_named_by_an_attribute_is_still_refused() -> None:
    """Heat computes it before a create, as None: no resource has that name."""
    named = {"get_attr": [{"get_attr": ["b", "value"]}, "first"]}
    with pytest.raises(StackValidationFailed) as info:
        validate_functions(_decided(_data(consumer=named, output="plain")), _NAMES)
    assert str(info.value) == (
        'The specified reference "None" (in c.Properties.value) is incorrect.')
