"""The pure parts of software deployments: stored I/O forms, derived inputs, signal outcomes."""

from __future__ import annotations

import pytest

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.resources.software_derived import (
    DeployContext,
    derived_inputs,
    replacing_input,
    structured_parse,
)
from hotplate.resources.software_io import check_io_list, input_config, output_config
from hotplate.resources.software_outcome import signal_outcome

DEPLOY = DeployContext(server_id="srv", action="CREATE", stack_path="st/123",
                       resource_name="dep", transport="NO_SIGNAL")


def test_inputs_and_outputs_are_stored_as_heat_stores_them() -> None:
    assert input_config({"name": "a"}) == {"name": "a", "type": "String"}
    assert input_config({"name": "a", "replace_on_change": True, "default": 3,
                         "type": "Number"}) == {
        "name": "a", "type": "Number", "default": 3, "replace_on_change": True}
    assert input_config({"name": "a", "value": 1}) == {"name": "a", "type": "String", "value": 1}
    assert input_config({"name": "a", "value": 1}, value=2)["value"] == 2
    assert output_config({"name": "o"}) == {"name": "o", "type": "String",
                                            "error_output": False}


def test_bad_io_declarations_name_their_path() -> None:
    with pytest.raises(StackValidationFailed, match=r"^inputs\.1: Property name not assigned"):
        input_config({"type": "String"}, ("inputs", 1))
    with pytest.raises(StackValidationFailed, match=r"outputs\.0\.type: .*Nope"):
        output_config({"name": "x", "type": "Nope"}, ("outputs", 0))
    with pytest.raises(StackValidationFailed, match="must be in a list"):
        check_io_list("abc", ("inputs",))
    with pytest.raises(StackValidationFailed, match="must be a dict"):
        check_io_list(["abc"], ("inputs",))
    assert check_io_list(None, ("inputs",)) == []


def test_derived_inputs_take_values_over_defaults_then_extras_then_deploy_inputs() -> None:
    found = derived_inputs([{"name": "a", "default": "da"}, {"name": "b", "default": "db"}],
                           {"b": "vb", "extra": 1}, DEPLOY)
    assert [(i["name"], i.get("value")) for i in found] == [
        ("a", "da"), ("b", "vb"), ("extra", 1), ("deploy_server_id", "srv"),
        ("deploy_action", "CREATE"), ("deploy_stack_id", "st/123"),
        ("deploy_resource_name", "dep"), ("deploy_signal_transport", "NO_SIGNAL")]
    assert found[3]["description"] == "ID of the server being deployed to"


def test_a_signalled_transport_adds_how_to_signal() -> None:
    cfn = DeployContext(server_id="srv", action="CREATE", stack_path="st/123",
                        resource_name="dep", transport="CFN_SIGNAL",
                        signal_id="http://cfn/v1/signal/arn")
    tail = {i["name"]: i["value"] for i in derived_inputs([], None, cfn)}
    assert tail["deploy_signal_id"] == "http://cfn/v1/signal/arn"
    assert tail["deploy_signal_verb"] == "POST"
    assert "deploy_auth_token" not in tail
    token = DeployContext(server_id="srv", action="UPDATE", stack_path="st/123",
                          resource_name="dep", transport="TOKEN_SIGNAL",
                          signal_id="http://api/signal", auth_token="tok")
    tail = {i["name"]: i["value"] for i in derived_inputs([], None, token)}
    assert (tail["deploy_signal_id"], tail["deploy_auth_token"]) == ("http://api/signal", "tok")


def test_heat_signal_adds_the_stack_users_credentials_in_heats_order() -> None:
    creds = {"auth_url": "http://ks/v3", "username": "st-dep-x", "user_id": "u1",
             "password": "pw", "project_id": "sup", "domain_id": "d1", "region_name": None}
    heat = DeployContext(server_id="srv", action="CREATE", stack_path="st/123",
                         resource_name="dep", transport="HEAT_SIGNAL", credentials=creds)
    tail = [(i["name"], i["value"]) for i in derived_inputs([], None, heat)][5:]
    assert tail == [("deploy_auth_url", "http://ks/v3"), ("deploy_username", "st-dep-x"),
                    ("deploy_user_id", "u1"), ("deploy_password", "pw"),
                    ("deploy_project_id", "sup")]
    regional = DeployContext(server_id="srv", action="CREATE", stack_path="st/123",
                             resource_name="dep", transport="HEAT_SIGNAL",
                             credentials={**creds, "region_name": "RegionOne"})
    last = derived_inputs([], None, regional)[-1]
    assert (last["name"], last["value"]) == ("deploy_region_name", "RegionOne")


def test_replace_on_change_names_the_first_changed_input() -> None:
    old = [{"name": "a", "value": 1, "replace_on_change": True}, {"name": "b", "value": 1}]
    same = [{"name": "a", "value": 1, "replace_on_change": True}, {"name": "b", "value": 2}]
    assert replacing_input(same, old) is None
    changed = [{"name": "a", "value": 2, "replace_on_change": True}]
    assert replacing_input(changed, old) == "a"
    assert replacing_input([{"name": "new", "value": 1, "replace_on_change": True}], old) is None


def test_structured_parse_fills_get_input_everywhere() -> None:
    snippet = {"a": {"get_input": "x"}, "b": [{"get_input": "y"}, "plain"],
               "c": {"get_input": "x", "other": 1}}
    assert structured_parse(snippet, {"x": 1, "y": 2}) == {
        "a": 1, "b": [2, "plain"], "c": {"get_input": "x", "other": 1}}
    assert structured_parse({"k": {"my_in": "x"}}, {"x": 5}, "my_in") == {"k": 5}
    assert structured_parse({"k": {"get_input": "missing"}}, {}) == {"k": None}
    with pytest.raises(UserParameterMissing, match=r"The Parameter \(missing\)"):
        structured_parse({"k": {"get_input": "missing"}}, {}, strict=True)


OUTPUTS = [{"name": "result"}, {"name": "bad", "error_output": True}]


def test_a_clean_signal_completes_with_outputs_received() -> None:
    got = signal_outcome("d1", {"deploy_status_code": 0, "deploy_stdout": "out",
                                "result": "ok", "ignored": 1}, OUTPUTS, {"old": 1})
    assert (got.status, got.status_reason) == ("COMPLETE", "Outputs received")
    assert got.output_values == {"old": 1, "result": "ok", "deploy_status_code": 0,
                                 "deploy_stdout": "out", "deploy_stderr": None}
    assert got.event_reason == "deployment d1 succeeded"
    assert signal_outcome("d1", None, OUTPUTS, None).status == "COMPLETE"
    assert signal_outcome("d1", {"deploy_status_code": "0"}, OUTPUTS, None).status == "COMPLETE"


def test_a_non_zero_status_or_an_error_output_fails_listing_them() -> None:
    got = signal_outcome("d1", {"deploy_status_code": 2}, OUTPUTS, None)
    assert got.status == "FAILED"
    assert got.status_reason == (
        "deploy_status_code : Deployment exited with non-zero status code: 2")
    assert got.event_reason == "deployment d1 failed (2)"
    both = signal_outcome("d1", {"deploy_status_code": "1", "bad": "it broke"}, OUTPUTS, None)
    assert both.status_reason == ("deploy_status_code : Deployment exited with non-zero "
                                  "status code: 1, bad : it broke")
    assert both.event_reason == "deployment d1 failed"
    assert both.output_values["bad"] == "it broke"
