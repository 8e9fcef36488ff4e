"""Heat's rule for the attributes of ``resource show`` (engine/service/resource_attributes.py)."""

from __future__ import annotations

from typing import Any

from hotplate.engine.service.resource_attributes import attribute_view, shown_attributes
from hotplate.engine.views import stored_attributes
from hotplate.model.nodes import path_key
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from tests.unit.resources.fakes import FakeContext


class Plain(Resource):
    """No service of its own: ``show`` is its declared attributes."""

    attributes_schema = {"first": Attribute("One."), "second": Attribute("Two.")}

    def _resolve_attribute(self, name: str) -> Any:
        if name == "second" and self.properties.get("break"):
            raise RuntimeError("second exploded")
        return f"live {name}"


class Serviced(Plain):
    """``show`` is a service's own view, with keys of its own."""

    def _show_resource(self) -> Any:
        return {"id": "abc", "first": "from service"}


class Unshown(Plain):
    def _show_resource(self) -> Any:
        return None


def _plugin(cls: type[Resource], **props: Any) -> Resource:
    return cls("res", props, FakeContext())


def test_every_declared_attribute_and_never_show_itself() -> None:
    assert shown_attributes(_plugin(Plain)) == {"first": "live first",
                                                "second": "live second"}


def test_a_failing_attribute_is_null_and_the_others_stay() -> None:
    assert shown_attributes(_plugin(Plain, **{"break": True})) == {
        "first": "live first", "second": None}


def test_with_attr_adds_names_unknown_ones_null() -> None:
    shown = shown_attributes(_plugin(Plain), ["show", "nope", "first"])
    assert shown == {"first": "live first", "second": "live second",
                     "show": {"first": "live first", "second": "live second"}, "nope": None}


def test_stored_values_win_unless_null() -> None:
    shown = shown_attributes(_plugin(Plain), stored={"first": "kept", "second": None})
    assert shown == {"first": "kept", "second": "live second"}


def test_a_show_mapping_is_the_view_plus_what_with_attr_names() -> None:
    shown = shown_attributes(_plugin(Serviced), ["second", "id"],
                             stored={"first": "kept", "id": "not an attribute"})
    assert shown == {"id": "abc", "first": "kept", "second": "live second"}


def test_show_that_is_no_mapping_means_one_by_one() -> None:
    assert shown_attributes(_plugin(Unshown), ["extra"]) == {
        "first": "live first", "second": "live second", "extra": None}


def test_the_rule_over_any_resolver() -> None:
    calls: list[str] = []

    def resolve(name: str) -> Any:
        calls.append(name)
        return "shown" if name == "show" else name.upper()

    assert attribute_view(resolve, ["a"], ["b", "a"], {"a": "stored"}) == {
        "a": "stored", "b": "B"}
    assert calls == ["show", "b"]


def test_values_stored_for_a_path_are_no_attributes() -> None:
    stored = {"refs": ["a", "b"], path_key("attributes", ("value",)): {"0": "x"}}
    assert stored_attributes(stored) == {"refs": ["a", "b"]}
    assert stored_attributes(None) == {}
