"""Routes without a stack: validate, template versions and functions, resource types,
services — through python-heatclient (and httpx where the client hides the body)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from heatclient import exc

from tests.api.conftest import Api
from tests.api.helpers import VERSION


@pytest.fixture
def http() -> Any:
    with httpx.Client(timeout=30) as client:
        yield client


def _template() -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "description": "form",
        "parameter_groups": [{"label": "main", "parameters": ["size", "secret"]}],
        "parameters": {
            "size": {"type": "number", "label": "Size", "description": "how many",
                     "default": 2, "constraints": [
                         {"range": {"min": 1, "max": 5}, "description": "1 to 5"},
                         {"allowed_values": [1, 2, 3, 4, 5]}]},
            "secret": {"type": "string", "hidden": True, "default": "s3cret",
                       "constraints": [{"length": {"min": 3}}]},
            "names": {"type": "comma_delimited_list", "tags": ["a"]},
        },
        "resources": {"v": {"type": "OS::Heat::Value",
                            "properties": {"value": {"get_param": "names"}}}},
    }


def test_validate_answers_heats_parameter_view(hc: Any) -> None:
    result = hc.stacks.validate(template=_template(),
                                environment={"parameters": {"size": 3}})
    assert result["Description"] == "form"
    assert result["ParameterGroups"] == [{"label": "main", "parameters": ["size", "secret"]}]
    params = result["Parameters"]
    assert list(params) == ["size", "secret", "names"]
    assert params["size"] == {
        "Type": "Number", "Description": "how many", "NoEcho": "false", "Label": "Size",
        "Default": 2, "Value": 3, "MinValue": 1, "MaxValue": 5,
        "AllowedValues": [1, 2, 3, 4, 5], "ConstraintDescription": "1 to 5"}
    assert params["secret"] == {"Type": "String", "Description": "", "NoEcho": "true",
                                "Label": "secret", "Default": "s3cret", "MinLength": 3}
    # A parameter without a value is fine here: validation needs no values.
    assert params["names"] == {"Type": "CommaDelimitedList", "Description": "",
                               "NoEcho": "false", "Label": "names", "Tags": ["a"]}
    assert result["Environment"]["parameters"] == {"size": 3}
    assert set(result["Environment"]) == {"parameters", "parameter_defaults",
                                          "resource_registry", "event_sinks"}


def test_validate_errors_name_the_path_and_the_line(api: Api, http: Any) -> None:
    text = (f"heat_template_version: {VERSION}\n"
            "resources:\n"
            "  web:\n"
            "    type: OS::Heat::Value\n"
            "    properties:\n"
            "      value: 1\n"
            "      colour: red\n")
    resp = http.post(f"{api.endpoint}/validate", json={"template": text})
    assert resp.status_code == 400
    error = resp.json()["error"]
    assert error["type"] == "HTTPBadRequest"
    assert error["message"] == ("Property error: resources.web.properties: Unknown Property "
                                "colour at line 5, column 5")
    as_object = http.post(f"{api.endpoint}/validate", json={"template": {
        "heat_template_version": VERSION,
        "resources": {"web": {"type": "OS::No::Such"}}}})
    assert as_object.status_code == 400
    assert as_object.json()["error"]["message"] == (
        "resources.web.type: The Resource Type (OS::No::Such) could not be found.")


def test_validate_checks_names_only_where_the_plugin_has_a_schema(hc: Any) -> None:
    stub = {"heat_template_version": VERSION, "resources": {
        "s": {"type": "OS::Heat::None", "properties": {"anything": {"get_param": "p"}}}},
        "parameters": {"p": {"type": "string"}}}
    assert hc.stacks.validate(template=stub)["Parameters"]["p"]["Type"] == "String"
    with pytest.raises(exc.HTTPBadRequest) as unknown:
        hc.stacks.validate(template={"heat_template_version": VERSION, "resources": {
            "v": {"type": "OS::Heat::Value", "properties": {"value": 1, "extra": 2}}}})
    assert "resources.v.properties: Unknown Property extra" in str(unknown.value)


def test_validate_refusals(hc: Any) -> None:
    with pytest.raises(exc.HTTPBadRequest) as unknown:
        hc.stacks.validate(template=_template(), parameters={"nope": 1})
    assert "The Parameter (nope) was not defined in template." in str(unknown.value)
    bad_default = _template()
    bad_default["parameters"]["size"]["default"] = 9
    with pytest.raises(exc.HTTPBadRequest) as invalid:
        hc.stacks.validate(template=bad_default)
    assert "Parameter 'size' is invalid: Invalid default 9 (1 to 5)" in str(invalid.value)
    groups = _template()
    groups["parameter_groups"].append({"label": "again", "parameters": ["size"]})
    with pytest.raises(exc.HTTPBadRequest) as twice:
        hc.stacks.validate(template=groups)
    assert ("Parameter Groups error: parameter_groups.again: The size parameter must be "
            "assigned to one parameter group only.") in str(twice.value)
    with pytest.raises(exc.HTTPBadRequest) as codes:
        hc.stacks.validate(template=_template(), ignore_errors="99001,12")
    assert "Invalid codes in ignore_errors : ['12']" in str(codes.value)
    with pytest.raises(exc.HTTPBadRequest) as cycle:
        hc.stacks.validate(template={"heat_template_version": VERSION, "resources": {
            "a": {"type": "OS::Heat::None", "depends_on": "b"},
            "b": {"type": "OS::Heat::None", "depends_on": "a"}}})
    assert "Circular Dependency Found" in str(cycle.value)


def test_template_versions_as_heat_lists_them(hc: Any) -> None:
    versions = [(v.version, v.type, v.aliases) for v in hc.template_versions.list()]
    assert versions[0] == ("AWSTemplateFormatVersion.2010-09-09", "cfn", [])
    assert ("heat_template_version.2013-05-23", "hot", []) in versions
    assert ("heat_template_version.2016-10-14", "hot",
            ["heat_template_version.newton"]) in versions
    assert versions[-1] == ("heat_template_version.2021-04-16", "hot",
                            ["heat_template_version.wallaby"])
    assert [v[0] for v in versions] == sorted(v[0] for v in versions)


HEAT_FUNCTIONS: dict[str, dict[str, list[list[str]]]] = json.loads(
    (Path(__file__).parent / "heat_template_functions.json").read_text())
"""Heat 27.0.1's answer for each dated version, plain and ``with_condition_func``: the
tables of heat/engine/hot/template.py and cfn/template.py in declaration order, each
described by the first line of its function's docstring (service.list_template_functions)."""


@pytest.mark.parametrize("label", sorted(HEAT_FUNCTIONS))
def test_template_functions_in_heats_words(hc: Any, label: str) -> None:
    for flag, key in ((False, "plain"), (True, "with_condition_func")):
        listed = [[f.functions, f.description]
                  for f in hc.template_versions.get(label, with_condition_func=flag)]
        assert listed == HEAT_FUNCTIONS[label][key], (label, key)


def test_template_functions_by_alias_and_unknown(hc: Any) -> None:
    for version in hc.template_versions.list():
        for alias in version.aliases:
            listed = [[f.functions, f.description] for f in hc.template_versions.get(
                alias, with_condition_func=True)]
            assert listed == HEAT_FUNCTIONS[version.version]["with_condition_func"], alias
    assert {v.version for v in hc.template_versions.list()} == set(HEAT_FUNCTIONS)
    with pytest.raises(exc.HTTPNotFound) as missing:
        hc.template_versions.get("heat_template_version.1999-01-01")
    assert "Template with version heat_template_version.1999-01-01 not found" in \
        str(missing.value)


def test_resource_types_list_and_filters(hc: Any) -> None:
    names = [t.resource_type for t in hc.resource_types.list()]
    assert {"OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::Value"} <= set(names)
    assert names == sorted(names)
    random = hc.resource_types.list(filters={"name": "OS::Heat::Rand"})
    assert [t.resource_type for t in random] == ["OS::Heat::RandomString"]
    described = hc.resource_types.list(filters={"name": "OS::Heat::Value"},
                                       with_description=True)
    assert [t.resource_type for t in described] == ["OS::Heat::Value"]
    assert described[0].description
    assert hc.resource_types.list(filters={"support_status": "DEPRECATED",
                                           "name": "OS::Heat::Value"}) == []
    with pytest.raises(exc.HTTPBadRequest) as bad_status:
        hc.resource_types.list(filters={"support_status": "SHINY"})
    assert ("Data supplied was not valid: Invalid support status and should be one of "
            "('UNKNOWN', 'SUPPORTED', 'DEPRECATED', 'UNSUPPORTED', 'HIDDEN')") in \
        str(bad_status.value)


def test_resource_type_schema(hc: Any) -> None:
    schema = hc.resource_types.get("OS::Heat::RandomString", with_description=True)
    assert schema["resource_type"] == "OS::Heat::RandomString"
    assert schema["description"]
    length = schema["properties"]["length"]
    assert length["type"] == "integer" and length["default"] == 32
    assert length["constraints"] == [{"range": {"min": 1, "max": 512}}]
    assert length["update_allowed"] is False and length["required"] is False
    assert schema["attributes"]["value"]["description"]
    assert schema["attributes"]["show"] == {"description": "Detailed information about "
                                                           "resource.", "type": "map"}
    assert schema["support_status"]["status"] == "SUPPORTED"
    with pytest.raises(exc.HTTPNotFound) as missing:
        hc.resource_types.get("OS::No::Such")
    assert "The Resource Type (OS::No::Such) could not be found." in str(missing.value)


def test_generated_templates(hc: Any, api: Api, http: Any) -> None:
    hot = hc.resource_types.generate_template("OS::Heat::RandomString", template_type="hot")
    assert hot["heat_template_version"] == "2016-10-14"
    assert hot["description"] == "Initial template of RandomString"
    assert hot["parameters"]["length"]["type"] == "number"
    assert hot["parameters"]["length"]["constraints"] == [{"range": {"min": 1, "max": 512}}]
    assert hot["resources"]["RandomString"]["properties"]["length"] == {"get_param": "length"}
    assert hot["outputs"]["value"]["value"] == {"get_attr": ["RandomString", "value"]}
    cfn = hc.resource_types.generate_template("OS::Heat::RandomString")
    assert cfn["HeatTemplateFormatVersion"] == "2012-12-12"
    assert cfn["Parameters"]["length"] == {
        "Type": "Number", "Description": "Length of the string to generate.",
        "Default": 32, "MinValue": 1, "MaxValue": 512}
    assert cfn["Resources"]["RandomString"]["Properties"]["character_classes"] == {
        "Fn::Split": [",", {"Ref": "character_classes"}]}
    assert cfn["Outputs"]["value"]["Value"] == {"Fn::GetAtt": ["RandomString", "value"]}
    # The generated template is one hotplate accepts back.
    assert hc.stacks.validate(template=hot)["Parameters"]["length"]["Default"] == 32
    bad = http.get(f"{api.endpoint}/resource_types/OS::Heat::None/template",
                   params={"template_type": "xml"})
    assert bad.status_code == 400
    assert bad.json()["error"]["message"] == ('Template type is not supported: Invalid '
                                              'template type "xml", valid types are: '
                                              'cfn, hot.')


def test_services_lists_this_engine(hc: Any) -> None:
    (service,) = hc.services.list()
    assert service.binary == "hotplate-engine"
    assert service.topic == "engine"
    assert service.status == "up"
    assert service.report_interval == 60
    assert service.created_at.endswith("Z")
    assert service.deleted_at is None


def test_services_are_for_admins_only(api: Api, http: Any, tmp_path: Any) -> None:
    from hotplate.api import EngineRpc, create_app
    from hotplate.api.background import BackgroundServer
    from hotplate.app import embedded

    engine, transport = embedded(f"sqlite:///{tmp_path}/auth.sqlite", workers=2)

    class Tokens:
        def authenticate(self, token: str) -> tuple[str, str] | None:
            return {"member": ("p1", "member"), "admin": ("p1", "admin")}.get(token)

    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=Tokens())
    try:
        with BackgroundServer(app) as base:
            member = http.get(f"{base}/v1/p1/services", headers={"X-Auth-Token": "member"})
            assert member.status_code == 403
            assert member.json()["error"]["type"] == "Forbidden"
            assert member.json()["error"]["message"] == ("You are not authorized to use "
                                                         "service:index.")
            admin = http.get(f"{base}/v1/p1/services", headers={"X-Auth-Token": "admin"})
            assert admin.status_code == 200
            assert [s["status"] for s in admin.json()["services"]] == ["up"]
    finally:
        engine.stop()
        transport.stop()
