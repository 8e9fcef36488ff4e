"""Resource type listings, schemas and generated templates (engine/service/type_schemas.py)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from hotplate.engine.deps import ResourceTypes
from hotplate.engine.errors import Invalid
from hotplate.engine.service.type_schemas import (
    generate_template,
    list_resource_types,
    resource_schema,
)
from hotplate.model.errors import EntityNotFound, NotSupported
from hotplate.resources import (
    AllowedValues,
    Attribute,
    Length,
    Registry,
    Resource,
    Schema,
    Status,
    SupportStatus,
)


class Widget(Resource):
    """Makes widgets.

    More about widgets.
    """

    support_status = SupportStatus(version="12.0.0")
    properties_schema: ClassVar = {
        "name": Schema(Schema.STRING, "The name.", required=True,
                       constraints=[Length(min=1, max=5)]),
        "sizes": Schema(Schema.LIST, "Sizes.", schema=Schema(Schema.INTEGER)),
        "shiny": Schema(Schema.BOOLEAN, default=False, update_allowed=True),
        "colour": Schema(Schema.STRING, constraints=[AllowedValues(("red", "blue"))]),
        "secret": Schema(Schema.STRING,
                         support_status=SupportStatus(status=Status.HIDDEN)),
    }
    attributes_schema: ClassVar = {
        "serial": Attribute("The serial number.", Attribute.STRING),
        "internal": Attribute("Hidden.", support_status=SupportStatus(status=Status.HIDDEN)),
    }


class OldWidget(Resource):
    support_status = SupportStatus(status=Status.DEPRECATED, version="11.0.0",
                                   message="Use Widget.")


class Ghost(Resource):
    support_status = SupportStatus(status=Status.HIDDEN)


TYPES = ResourceTypes(Registry({"My::Widget": Widget, "My::OldWidget": OldWidget,
                                "My::Ghost": Ghost}))


def test_listing_filters_and_never_shows_hidden_types() -> None:
    assert list_resource_types(TYPES) == ["My::OldWidget", "My::Widget"]
    assert list_resource_types(TYPES, type_name="My::W") == ["My::Widget"]
    assert list_resource_types(TYPES, type_name=".*Old") == ["My::OldWidget"]
    assert list_resource_types(TYPES, type_name="Widget") == []  # matched at the start
    assert list_resource_types(TYPES, type_name="(") == []
    assert list_resource_types(TYPES, support_status="DEPRECATED") == ["My::OldWidget"]
    assert list_resource_types(TYPES, heat_version="12.0.0") == ["My::Widget"]
    assert list_resource_types(TYPES, type_name="My::Wid", with_description=True) == [
        {"resource_type": "My::Widget", "description": "Makes widgets.\n\nMore about "
                                                       "widgets."}]
    with pytest.raises(Invalid, match="Invalid support status and should be one of"):
        list_resource_types(TYPES, support_status="GONE")


def test_schema_leaves_hidden_entries_out() -> None:
    schema = resource_schema(TYPES, "My::Widget", with_description=True)
    assert set(schema["properties"]) == {"name", "sizes", "shiny", "colour"}
    assert schema["properties"]["name"] == {
        "type": "string", "required": True, "update_allowed": False, "immutable": False,
        "description": "The name.", "constraints": [{"length": {"min": 1, "max": 5}}]}
    assert schema["properties"]["sizes"]["schema"] == {"*": {
        "type": "integer", "required": False, "update_allowed": False, "immutable": False}}
    assert schema["attributes"] == {
        "serial": {"description": "The serial number.", "type": "string"},
        "show": {"description": "Detailed information about resource.", "type": "map"}}
    assert schema["support_status"] == {"status": "SUPPORTED", "version": "12.0.0",
                                        "message": None, "previous_status": None}
    assert schema["description"].startswith("Makes widgets.")
    assert "description" not in resource_schema(TYPES, "My::Widget")
    assert resource_schema(TYPES, "My::OldWidget")["support_status"]["message"] == \
        "Use Widget."


def test_unknown_and_hidden_types() -> None:
    with pytest.raises(EntityNotFound) as unknown:
        resource_schema(TYPES, "My::Nothing")
    assert str(unknown.value) == "The Resource Type (My::Nothing) could not be found."
    with pytest.raises(NotSupported) as hidden:
        generate_template(TYPES, "My::Ghost")
    assert str(hidden.value) == "My::Ghost is not supported."


def test_generated_hot_template() -> None:
    hot = generate_template(TYPES, "My::Widget", "hot")
    assert hot["heat_template_version"] == "2016-10-14"
    assert hot["description"] == "Initial template of Widget"
    assert hot["parameters"] == {
        "name": {"type": "string", "description": "The name.",
                 "constraints": [{"length": {"min": 1, "max": 5}}]},
        "sizes": {"type": "comma_delimited_list", "description": "Sizes."},
        "shiny": {"type": "boolean", "default": False,
                  "constraints": [{"allowed_values": ["True", "true", "False", "false"]}]},
        "colour": {"type": "string", "constraints": [{"allowed_values": ["red", "blue"]}]},
    }
    assert hot["resources"] == {"Widget": {"type": "My::Widget", "properties": {
        name: {"get_param": name} for name in ("name", "sizes", "shiny", "colour")}}}
    assert hot["outputs"] == {
        "serial": {"description": "The serial number.",
                   "value": {"get_attr": ["Widget", "serial"]}},
        "show": {"description": "Detailed information about resource.",
                 "value": {"get_attr": ["Widget", "show"]}}}


def test_generated_cfn_template() -> None:
    cfn = generate_template(TYPES, "My::Widget")
    assert cfn["HeatTemplateFormatVersion"] == "2012-12-12"
    assert cfn["Description"] == "Initial template of Widget"
    assert cfn["Parameters"] == {
        "name": {"Type": "String", "Description": "The name.", "MinLength": 1,
                 "MaxLength": 5},
        "sizes": {"Type": "CommaDelimitedList", "Description": "Sizes."},
        "shiny": {"Type": "Boolean", "Default": False,
                  "AllowedValues": ["True", "true", "False", "false"]},
        "colour": {"Type": "String", "AllowedValues": ["red", "blue"]},
    }
    assert cfn["Resources"]["Widget"]["Properties"] == {
        "name": {"Ref": "name"}, "sizes": {"Fn::Split": [",", {"Ref": "sizes"}]},
        "shiny": {"Ref": "shiny"}, "colour": {"Ref": "colour"}}
    assert cfn["Outputs"]["serial"] == {"Description": "The serial number.",
                                        "Value": {"Fn::GetAtt": ["Widget", "serial"]}}
