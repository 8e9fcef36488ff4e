"""An update may not change a parameter declared ``immutable: true`` (Heat's rule)."""

from typing import Any

from hotplate.template import parse_template, resolve_parameters
from hotplate.template.parameter_values import ImmutableParameterModified, immutable_modified


def template(**declared: dict[str, Any]) -> Any:
    return parse_template({"heat_template_version": "2021-04-16", "parameters": declared})


NEW = template(
    a={"type": "string", "immutable": True},
    b={"type": "number", "immutable": True},
    c={"type": "string"},
    d={"type": "string", "immutable": True, "default": "x"},
)


def changed(old: dict[str, Any], given: dict[str, Any]) -> list[str]:
    values = resolve_parameters(NEW, {"a": "1", "b": "2", "c": "c", **given})
    return immutable_modified(old, NEW, values)


def test_only_immutable_parameters_that_changed_are_named_in_template_order() -> None:
    old = {"a": "1", "b": 2, "c": "old", "d": "x"}
    assert changed(old, {"a": "1", "b": "2", "c": "new"}) == []
    assert changed(old, {"a": "2", "b": "3", "c": "new", "d": "y"}) == ["a", "b", "d"]


def test_values_are_compared_once_converted() -> None:
    # "2" for a number that is 2 is no change (Heat compared the raw text).
    assert changed({"a": "1", "b": 2}, {"b": "2.0"}) == []


def test_a_parameter_the_stack_did_not_have_may_take_any_value() -> None:
    assert changed({"a": "1"}, {"b": "7", "d": "y"}) == []


def test_the_new_templates_declaration_decides() -> None:
    relaxed = template(a={"type": "string"})
    assert immutable_modified({"a": "1"}, relaxed, {"a": "2"}) == []


def test_heats_text() -> None:
    assert str(ImmutableParameterModified(["a", "b"])) == (
        "The following parameters are immutable and may not be updated: a, b")
