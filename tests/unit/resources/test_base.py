"""The Resource base class: update/replace decisions, attributes, references, defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import hotplate.resources as api
from hotplate.model.errors import NotSupported, StackValidationFailed
from hotplate.resources import SHOW, Attribute, InvalidTemplateAttribute, Resource, Schema
from tests.unit.resources.fakes import FakeContext, make


class Sample(Resource):
    """A sample type.

    With a longer description.
    """

    properties_schema = {
        "size": Schema(Schema.INTEGER, default=1, update_allowed=True),
        "image": Schema(Schema.STRING),
        "zone": Schema(Schema.STRING, immutable=True),
        "flag": Schema(Schema.BOOLEAN, default=False, update_allowed=True),
    }
    attributes_schema = {
        "size": Attribute("The size.", Attribute.INTEGER),
        "image": Attribute("The image."),
    }

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties[name]


class FlagReplaces(Sample):
    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], new: Mapping[str, Any], old: Mapping[str, Any]
    ) -> bool:
        return "size" in changed and bool(new["flag"])


def props(**values: Any) -> dict[str, Any]:
    return Sample.validate(values, ("properties",))


# -- update or replace ----------------------------------------------------------------
def test_property_diff_lists_changed_keys_with_new_values() -> None:
    old = props(size=1, image="a")
    new = props(size=2, image="a")
    assert Sample.property_diff(old, new) == {"size": 2}
    assert Sample.property_diff(old, old) == {}
    assert Sample.property_diff({"gone": 1}, {}) == {"gone": None}


@pytest.mark.parametrize(
    ("old", "new", "replace"),
    [
        ({}, {}, False),
        ({"size": 1}, {}, False),  # the default: no change at all
        ({"size": 1}, {"size": 2}, False),
        ({"image": "a"}, {"image": "b"}, True),
        ({"size": 1, "image": "a"}, {"size": 2, "image": "b"}, True),
        ({"flag": False}, {"flag": True}, False),
    ],
)
def test_needs_replacement(old: dict[str, Any], new: dict[str, Any], replace: bool) -> None:
    assert Sample.needs_replacement(props(**old), props(**new)) is replace


def test_needs_replace_with_prop_diff_hook() -> None:
    old = props(size=1)
    assert FlagReplaces.needs_replacement(old, props(size=2)) is False
    assert FlagReplaces.needs_replacement(old, props(size=2, flag=True)) is True
    assert FlagReplaces.needs_replacement(old, props(size=1, flag=True)) is False


def test_immutable_change_is_not_supported() -> None:
    old = props(zone="a")
    Sample.check_immutable(old, props(zone="a", size=3), name="web", type_name="My::Sample")
    with pytest.raises(NotSupported) as info:
        Sample.check_immutable(old, props(zone="b"), name="web", type_name="My::Sample")
    assert str(info.value) == "Update to properties zone of web (My::Sample) is not supported."


def test_validate_uses_the_schema_and_path() -> None:
    with pytest.raises(StackValidationFailed) as info:
        Sample.validate({"size": "big"}, ("resources", "web", "properties"))
    assert str(info.value) == "resources.web.properties.size: Value 'big' is not an integer"


def test_stored_properties_missing_keys_get_their_defaults() -> None:
    res = Sample("web", {"image": "a"}, FakeContext())
    assert res.properties == {"image": "a", "size": 1, "zone": None, "flag": False}
    res.handle_update({"size": 4}, {"size": 4})
    assert res.properties == {"size": 4, "image": None, "zone": None, "flag": False}


def test_with_defaults_keeps_given_values_and_extra_keys() -> None:
    assert api.with_defaults(Sample.properties_schema, {"size": 9, "old": 1}) == {
        "size": 9, "old": 1, "image": None, "zone": None, "flag": False,
    }


# -- handlers -------------------------------------------------------------------------
def test_default_handlers_do_nothing_and_finish() -> None:
    res = make(Sample, {"image": "a"})
    assert res.check_create_complete(res.handle_create()) is True
    assert res.check_delete_complete(res.handle_delete()) is True
    assert res.resource_id is None


def test_default_update_adopts_the_new_properties() -> None:
    res = make(Sample, {"size": 1})
    new = props(size=5)
    assert res.check_update_complete(res.handle_update(new, {"size": 5})) is True
    assert res.get_attribute("size") == 5


def test_context_helpers_use_heats_names() -> None:
    ctx = FakeContext()
    res = make(Sample, ctx=ctx)
    res.data_set("k", "v", redact=True)
    assert res.data() == {"k": "v"} and ctx.redacted == {"k"}
    res.data_delete("k")
    assert res.data() == {}
    assert res.physical_resource_name() == "teststack-web-abcdefghijkl"


# -- references and attributes -------------------------------------------------------
def test_reference_is_the_name_until_there_is_a_physical_id() -> None:
    res = make(Sample)
    assert res.get_reference_id() == "web"
    res.resource_id_set("phys-1")
    assert res.get_reference_id() == "phys-1"
    res.resource_id_set(None)
    assert res.get_reference_id() == "web"


def test_existing_physical_id_is_given_at_construction() -> None:
    assert make(Sample, resource_id="phys-2").get_reference_id() == "phys-2"


def test_get_attribute_resolves_declared_names() -> None:
    res = make(Sample, {"image": "cirros", "size": 2})
    assert res.get_attribute("image") == "cirros"
    assert res.get_attribute("size") == 2


def test_unknown_attribute_is_heats_invalid_template_attribute() -> None:
    with pytest.raises(InvalidTemplateAttribute) as info:
        make(Sample).get_attribute("foo")
    assert str(info.value) == "The Referenced Attribute (web foo) is incorrect."
    assert isinstance(info.value, StackValidationFailed)


def test_show_is_every_declared_attribute() -> None:
    res = make(Sample, {"image": "cirros"})
    assert res.get_attribute(SHOW) == {"size": 1, "image": "cirros"}
    assert set(Sample.all_attributes()) == {"size", "image", "show"}


def test_unresolved_attributes_default_to_none() -> None:
    class Bare(Resource):
        attributes_schema = {"x": Attribute("x")}

    assert make(Bare).get_attribute("x") is None


def test_type_description_comes_from_the_docstring() -> None:
    assert Sample.type_description() == "A sample type.\n\nWith a longer description."

    class Described(Sample):
        description = "Short."

    assert Described.type_description() == "Short."


def test_attribute_declarations() -> None:
    assert Attribute("d", "map").as_dict() == {"description": "d", "type": "map"}
    assert Attribute("d").as_dict() == {"description": "d"}
    with pytest.raises(api.InvalidSchemaError, match=r"Invalid type \(Blob\)"):
        Attribute("d", "Blob")


def test_public_api_is_exactly_exported() -> None:
    assert sorted(api.__all__) == sorted([
        "ENTRY_POINT_GROUP", "SHOW", "AllowedPattern", "AllowedValues", "Attribute",
        "AttributeType", "Constraint", "InvalidSchemaError", "InvalidTemplateAttribute",
        "Length", "Modulo", "PropertyType", "Range", "Registry", "Resource",
        "ResourceContext", "Schema", "Status", "SupportStatus", "coerce_value",
        "validate_properties", "with_defaults",
    ])
    for name in api.__all__:
        assert getattr(api, name) is not None
