"""Software configs and deployments through python-heatclient, against a served API."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION, create_complete, update_complete, wait_status


def _config(hc: Any, **fields: Any) -> Any:
    body = {"name": "cfg", "group": "script", "config": "#!/bin/sh\necho hi",
            "inputs": [{"name": "foo"}, {"name": "bar", "default": "baz", "type": "String"}],
            "outputs": [{"name": "result"}, {"name": "oops", "error_output": True}],
            "options": {"opt": 1}}
    return hc.software_configs.create(**{**body, **fields})


def test_config_create_show_list_delete(hc: Any) -> None:
    made = _config(hc)
    shown = hc.software_configs.get(made.id)
    assert shown.config == "#!/bin/sh\necho hi"
    assert shown.group == "script"
    assert shown.options == {"opt": 1}
    assert shown.inputs == [{"name": "foo", "type": "String"},
                            {"name": "bar", "default": "baz", "type": "String"}]
    assert shown.outputs == [{"name": "result", "type": "String", "error_output": False},
                             {"name": "oops", "type": "String", "error_output": True}]
    assert shown.creation_time.endswith("Z")
    listed = {c.id: c for c in hc.software_configs.list()}
    assert made.id in listed
    assert not hasattr(listed[made.id], "config")  # the list shows no details, as Heat's
    hc.software_configs.delete(made.id)
    with pytest.raises(exc.HTTPNotFound, match=f"Software config with id {made.id} not found"):
        hc.software_configs.get(made.id)
    with pytest.raises(exc.HTTPNotFound):
        hc.software_configs.delete(made.id)


def test_config_list_pages_with_limit_and_marker(hc: Any) -> None:
    ids = [_config(hc, name=f"page{i}").id for i in range(3)]
    everything = [c.id for c in hc.software_configs.list()]
    start = everything.index(ids[0])
    page = [c.id for c in hc.software_configs.list(limit=2, marker=ids[0])]
    assert page == everything[start + 1:start + 3]
    # Heat's policy lets nobody list every project's configs, admins included.
    with pytest.raises(exc.HTTPForbidden, match="Access was denied to this resource"):
        list(hc.software_configs.list(global_tenant=True))
    assert [c.id for c in hc.software_configs.list(global_tenant=False)] == everything


def test_bad_config_inputs_are_a_400_naming_the_path(hc: Any) -> None:
    with pytest.raises(exc.HTTPBadRequest, match=r"inputs\.0: Property name not assigned"):
        _config(hc, inputs=[{"type": "String"}])
    with pytest.raises(exc.HTTPBadRequest, match="must be in a list"):
        _config(hc, outputs={"name": "x"})
    with pytest.raises(exc.HTTPBadRequest, match=r"outputs\.0\.type"):
        _config(hc, outputs=[{"name": "x", "type": "Nope"}])


def test_deployment_lifecycle_and_server_metadata(hc: Any) -> None:
    config = _config(hc, name="b-config")
    other = _config(hc, name="a-config")
    server = str(uuid.uuid4())
    made = hc.software_deployments.create(config_id=config.id, server_id=server,
                                          input_values={"foo": "1"}, action="CREATE",
                                          status="IN_PROGRESS", status_reason="Deploy data")
    second = hc.software_deployments.create(config_id=other.id, server_id=server)
    # Heat's engine stores str() of what heat-api passes on, the body's None included.
    assert (second.action, second.status, second.status_reason) == (None, None, "None")
    shown = hc.software_deployments.get(made.id)
    assert (shown.status, shown.action, shown.config_id) == ("IN_PROGRESS", "CREATE", config.id)
    assert shown.input_values == {"foo": "1"}
    assert [d.id for d in hc.software_deployments.list(server_id=server)] == [made.id, second.id]
    metadata = hc.software_deployments.metadata(server_id=server)
    assert [m["name"] for m in metadata] == ["a-config", "b-config"]  # by config name
    assert metadata[1]["config"] == "#!/bin/sh\necho hi"

    with pytest.raises(exc.HTTPConflict, match="can not be deleted as it is referenced"):
        hc.software_configs.delete(config.id)

    updated = hc.software_deployments.update(made.id, status="COMPLETE",
                                             status_reason="Outputs received",
                                             output_values={"result": "ok"})
    assert (updated.status, updated.output_values) == ("COMPLETE", {"result": "ok"})
    assert updated.updated_time is not None

    hc.software_deployments.delete(made.id)
    with pytest.raises(exc.HTTPNotFound, match=f"Deployment with id {made.id} not found"):
        hc.software_deployments.get(made.id)
    assert [m["name"] for m in hc.software_deployments.metadata(server_id=server)] == [
        "a-config"]
    hc.software_configs.delete(config.id)  # no longer referenced


def test_deployment_of_an_unknown_config_is_a_400(hc: Any) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(exc.HTTPBadRequest,
                       match=f"Data supplied was not valid: Config with id {missing} not found"):
        hc.software_deployments.create(config_id=missing, server_id=str(uuid.uuid4()))


def _stack_template(transport: str, *, actions: list[str] | None = None) -> dict[str, Any]:
    deploy: dict[str, Any] = {
        "config": {"get_resource": "config"}, "server": {"get_resource": "server"},
        "input_values": {"foo": "fooval", "extra": 5}, "signal_transport": transport}
    if actions is not None:
        deploy["actions"] = actions
    return {
        "heat_template_version": VERSION,
        "resources": {
            "server": {"type": "OS::Heat::None"},
            "config": {"type": "OS::Heat::SoftwareConfig", "properties": {
                "group": "script", "config": "#!/bin/sh\necho $foo",
                "inputs": [{"name": "foo"}, {"name": "bar", "default": "barval"}],
                "outputs": [{"name": "result"}, {"name": "failed", "error_output": True}]}},
            "deploy": {"type": "OS::Heat::SoftwareDeployment", "properties": deploy},
        },
        "outputs": {
            "config": {"value": {"get_attr": ["config", "config"]}},
            "result": {"value": {"get_attr": ["deploy", "result"]}},
            "stdout": {"value": {"get_attr": ["deploy", "deploy_stdout"]}},
        },
    }


def _inputs(config: dict[str, Any]) -> dict[str, Any]:
    return {i["name"]: i.get("value") for i in config["inputs"]}


def test_a_no_signal_deployment_completes_and_pushes_the_server_metadata(hc: Any) -> None:
    stack_id = create_complete(hc, _stack_template("NO_SIGNAL"), name="swdeploy")
    server = hc.resources.get(stack_id, "server").physical_resource_id
    deploy = hc.resources.get(stack_id, "deploy").physical_resource_id
    sd = hc.software_deployments.get(deploy)
    assert (sd.status, sd.status_reason, sd.action) == (
        "COMPLETE", "Not waiting for outputs signal", "CREATE")
    assert sd.server_id == server
    metadata = hc.resources.metadata(stack_id, "server")
    [derived] = metadata["deployments"]
    assert derived["id"] == sd.config_id
    assert derived["group"] == "script"
    assert _inputs(derived) == {
        "foo": "fooval", "bar": "barval", "extra": 5, "deploy_server_id": server,
        "deploy_action": "CREATE", "deploy_stack_id": f"swdeploy/{stack_id}",
        "deploy_resource_name": "deploy", "deploy_signal_transport": "NO_SIGNAL"}
    outputs = {o["output_key"]: o["output_value"]
               for o in hc.stacks.get(stack_id).to_dict()["outputs"]}
    assert outputs["config"] == "#!/bin/sh\necho $foo"
    assert outputs["result"] is None

    hc.stacks.delete(stack_id)
    gone = wait_status(hc, stack_id)
    assert gone.stack_status == "DELETE_COMPLETE"
    with pytest.raises(exc.HTTPNotFound):
        hc.software_deployments.get(deploy)
    with pytest.raises(exc.HTTPNotFound):
        hc.software_configs.get(derived["id"])


@pytest.mark.parametrize("kind", ["OS::Heat::TestResource", "OS::Heat::None"])
def test_a_server_updated_from_its_template_keeps_its_deployments(hc: Any, kind: str) -> None:
    """The template's metadata replaces the server's own on update, but not the
    deployments pushed to it (Heat keeps them when a server's metadata changes)."""
    template = _stack_template("NO_SIGNAL")
    template["resources"]["server"] = {
        "type": kind, "metadata": {"role": "web"}, "properties": {"value": "first"}}
    stack_id = create_complete(hc, template)
    [derived] = hc.resources.metadata(stack_id, "server")["deployments"]
    server_id = hc.resources.get(stack_id, "server").physical_resource_id

    template["resources"]["server"]["properties"]["value"] = "second"
    template["resources"]["server"]["metadata"] = {"role": "db"}
    update_complete(hc, stack_id, template)
    server = hc.resources.get(stack_id, "server")
    assert (server.physical_resource_id, server.resource_status) == (server_id, "UPDATE_COMPLETE")
    assert hc.resources.metadata(stack_id, "server") == {"role": "db", "deployments": [derived]}
    assert hc.resources.get(stack_id, "deploy").resource_status == "CREATE_COMPLETE"


def test_an_unusable_signal_transport_is_refused_at_validate(hc: Any) -> None:
    with pytest.raises(exc.HTTPBadRequest,
                       match=r"resources\.deploy\.properties\.signal_transport: "
                             "signal_transport TEMP_URL_SIGNAL requires Swift"):
        hc.stacks.create(stack_name="badtransport", template={
            "heat_template_version": VERSION,
            "resources": {"deploy": {"type": "OS::Heat::SoftwareDeployment", "properties": {
                "server": "a-server", "signal_transport": "TEMP_URL_SIGNAL"}}}})


def _names(hc: Any) -> set[str]:
    return {stack.stack_name for stack in hc.stacks.list()}


def _refused(hc: Any, name: str, template: dict[str, Any], match: str,
             **fields: Any) -> None:
    """Refused with a 400 matching ``match`` by a preview and a create, before anything
    is stored. (``template validate`` is Heat's lenient check: names, not values.)"""
    with pytest.raises(exc.HTTPBadRequest, match=match):
        hc.stacks.preview(stack_name=name, template=template, **fields)
    with pytest.raises(exc.HTTPBadRequest, match=match):
        hc.stacks.create(stack_name=name, template=template, **fields)
    assert name not in _names(hc)


@pytest.mark.parametrize("transport", ["TEMP_URL_SIGNAL", "HEAT_SIGNAL", "ZAQAR_SIGNAL"])
@pytest.mark.parametrize("given", ["literal", "get_param"])
def test_an_unusable_transport_of_a_deployment_on_a_stack_server_is_refused(
        hc: Any, transport: str, given: str) -> None:
    template = _stack_template(transport)
    fields: dict[str, Any] = {}
    if given == "get_param":
        template["parameters"] = {"transport": {"type": "string"}}
        template["resources"]["deploy"]["properties"]["signal_transport"] = {
            "get_param": "transport"}
        fields["parameters"] = {"transport": transport}
    name = f"refused-{transport.lower().replace('_', '-')}-{given.replace('_', '-')}"
    _refused(hc, name, template,
             rf"resources\.deploy\.properties\.signal_transport: "
             rf"signal_transport {transport} requires ", **fields)


def test_a_deployed_server_and_a_handle_reading_other_resources_are_checked(hc: Any) -> None:
    server = {"heat_template_version": VERSION, "resources": {
        "name": {"type": "OS::Heat::Value", "properties": {"value": "box"}},
        "server": {"type": "OS::Heat::DeployedServer", "properties": {
            "name": {"get_attr": ["name", "value"]},
            "software_config_transport": "POLL_TEMP_URL"}}}}
    _refused(hc, "refused-deployed-server", server,
             r"resources\.server\.properties\.software_config_transport: ")
    handle = {"heat_template_version": VERSION, "resources": {
        "first": {"type": "OS::Heat::None"},
        "handle": {"type": "OS::Heat::WaitConditionHandle", "depends_on": "first",
                   "properties": {"signal_transport": "ZAQAR_SIGNAL"}}}}
    _refused(hc, "refused-handle", handle,
             r"resources\.handle\.properties\.signal_transport: "
             "signal_transport ZAQAR_SIGNAL requires Zaqar")


_TEST = "OS::Heat::TestResource"
_DEPLOY = "OS::Heat::SoftwareDeployment"


@pytest.mark.parametrize(("kind", "props", "match"), [
    (_TEST, {"value": {"get_resource": "first"}, "fail": "maybe"},
     r"^ERROR: Property error: : resources\.second\.properties\.fail: : "
     r"\"maybe\" is not a valid boolean$"),
    (_TEST, {"value": {"get_attr": ["first", "output"]}, "colour": "blue"},
     r"Property error: : resources\.second\.properties: : Unknown Property colour"),
    (_TEST, {"colour": {"get_attr": ["first", "output"]}},
     r"Property error: : resources\.second\.properties: : Unknown Property colour"),
    (_TEST, {"value": {"get_resource": "first"}, "action_wait_secs": {"create": "soon"}},
     r"Property error: : resources\.second\.properties\.action_wait_secs\.create: : "
     r"could not convert string to float: 'soon'"),
    (_DEPLOY, {"server": {"get_resource": "first"}, "actions": ["CREATE", "REBOOT"]},
     r"Property error: : resources\.second\.properties\.actions: : "
     r'\["CREATE", "REBOOT"\] is not an allowed value \["CREATE", "UPDATE"'),
    (_DEPLOY, {"config": {"get_resource": "first"}},
     r"Property error: : resources\.second\.properties: : Property server not assigned"),
])
def test_a_schema_error_beside_a_reference_is_refused(
        hc: Any, kind: str, props: dict[str, Any], match: str) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "first": {"type": _TEST}, "second": {"type": kind, "properties": props}}}
    _refused(hc, "refused-schema", template, match)
    if "Unknown" in match:  # names are what Heat's template validate checks
        once = match.replace(": : ", ": ")  # no RPC round trip: worded once
        with pytest.raises(exc.HTTPBadRequest, match=once):
            hc.stacks.validate(template=template)


def test_values_read_from_unbuilt_resources_are_not_judged_before_they_exist(hc: Any) -> None:
    """Heat checks a value that depends on another resource only once it is known:
    a get_attr in a required, typed or constrained property passes validation."""
    template = {"heat_template_version": VERSION, "resources": {
        "first": {"type": "OS::Heat::TestResource", "properties": {"value": "5"}},
        "length": {"type": "OS::Heat::RandomString", "properties": {
            "length": {"get_attr": ["first", "output"]}}},
        "flag": {"type": "OS::Heat::TestResource", "properties": {
            "fail": {"get_attr": ["first", "output"]},
            "action_wait_secs": {"create": {"get_attr": ["first", "output"]}}}},
        "deploy": {"type": "OS::Heat::SoftwareDeployment", "properties": {
            "server": {"get_attr": ["first", "output"]},
            "signal_transport": {"get_attr": ["first", "output"]}}},
        "stub": {"type": "OS::Heat::None", "properties": {
            "anything": {"get_resource": "first"}, "more": 1}}}}
    assert "Parameters" in hc.stacks.validate(template=template)
    preview = hc.stacks.preview(stack_name="judged-later", template=template)
    assert {r["resource_name"] for r in preview.resources} == {
        "first", "length", "flag", "deploy", "stub"}


def _group_template(kind: str, transport: str) -> dict[str, Any]:
    config_type = "OS::Heat::StructuredConfig" if kind == "Structured" else \
        "OS::Heat::SoftwareConfig"
    config_body: Any = {"greeting": {"get_input": "name"}} if kind == "Structured" else "echo"
    return {
        "heat_template_version": VERSION,
        "resources": {
            "web1": {"type": "OS::Heat::None"},
            "web2": {"type": "OS::Heat::None"},
            "config": {"type": config_type, "properties": {
                "config": config_body, "inputs": [{"name": "name"}],
                "outputs": [{"name": "result"}]}},
            "deploys": {"type": f"OS::Heat::{kind}DeploymentGroup", "properties": {
                "config": {"get_resource": "config"}, "signal_transport": transport,
                "input_values": {"name": "world"},
                "servers": {"one": {"get_resource": "web1"},
                            "two": {"get_resource": "web2"}}}},
        },
        "outputs": {
            "stdouts": {"value": {"get_attr": ["deploys", "deploy_stdouts"]}},
            "results": {"value": {"get_attr": ["deploys", "result"]}},
        },
    }


@pytest.mark.parametrize("kind", ["Software", "Structured"])
def test_a_deployment_group_deploys_to_every_server(hc: Any, kind: str) -> None:
    stack_id = create_complete(hc, _group_template(kind, "NO_SIGNAL"))
    for server in ("web1", "web2"):
        server_id = hc.resources.get(stack_id, server).physical_resource_id
        [derived] = hc.resources.metadata(stack_id, server)["deployments"]
        assert _inputs(derived)["deploy_server_id"] == server_id
        if kind == "Structured":
            assert derived["config"] == {"greeting": "world"}
        assert [d.server_id for d in hc.software_deployments.list(server_id=server_id)] == [
            server_id]
    outputs = {o["output_key"]: o["output_value"]
               for o in hc.stacks.get(stack_id).to_dict()["outputs"]}
    assert outputs["stdouts"] == {"one": None, "two": None}
    assert outputs["results"] == {"one": None, "two": None}



def test_an_update_redeploys_with_the_new_inputs_and_drops_the_old_derived_config(
        hc: Any) -> None:
    template = _stack_template("NO_SIGNAL")
    stack_id = create_complete(hc, template, name="swupdate")
    deploy = hc.resources.get(stack_id, "deploy").physical_resource_id
    first = hc.software_deployments.get(deploy)
    template["resources"]["deploy"]["properties"]["input_values"] = {"foo": "changed"}
    hc.stacks.update(stack_id, template=template)
    assert wait_status(hc, stack_id).stack_status == "UPDATE_COMPLETE"
    assert hc.resources.get(stack_id, "deploy").physical_resource_id == deploy  # in place
    second = hc.software_deployments.get(deploy)
    assert (second.action, second.status) == ("UPDATE", "COMPLETE")
    assert second.config_id != first.config_id
    with pytest.raises(exc.HTTPNotFound):
        hc.software_configs.get(first.config_id)
    [derived] = hc.resources.metadata(stack_id, "server")["deployments"]
    assert derived["id"] == second.config_id
    assert _inputs(derived)["foo"] == "changed"
    assert _inputs(derived)["deploy_action"] == "UPDATE"


def test_a_changed_replace_on_change_input_replaces_the_deployment(hc: Any) -> None:
    template = _stack_template("NO_SIGNAL")
    template["resources"]["config"]["properties"]["inputs"][0]["replace_on_change"] = True
    stack_id = create_complete(hc, template, name="swreplace")
    deploy = hc.resources.get(stack_id, "deploy").physical_resource_id
    template["resources"]["deploy"]["properties"]["input_values"] = {"foo": "other"}
    hc.stacks.update(stack_id, template=template)
    assert wait_status(hc, stack_id).stack_status == "UPDATE_COMPLETE"
    replacement = hc.resources.get(stack_id, "deploy").physical_resource_id
    assert replacement != deploy
    with pytest.raises(exc.HTTPNotFound):
        hc.software_deployments.get(deploy)
    [derived] = hc.resources.metadata(stack_id, "server")["deployments"]
    assert _inputs(derived)["foo"] == "other"


def test_a_deployment_runs_on_suspend_and_resume_when_its_actions_say_so(hc: Any) -> None:
    template = _stack_template("NO_SIGNAL", actions=["CREATE", "SUSPEND", "RESUME"])
    stack_id = create_complete(hc, template, name="swsuspend")
    deploy = hc.resources.get(stack_id, "deploy").physical_resource_id
    hc.actions.suspend(stack_id)
    assert wait_status(hc, stack_id).stack_status == "SUSPEND_COMPLETE"
    assert hc.software_deployments.get(deploy).action == "SUSPEND"
    hc.actions.resume(stack_id)
    assert wait_status(hc, stack_id).stack_status == "RESUME_COMPLETE"
    assert hc.software_deployments.get(deploy).action == "RESUME"


def test_the_old_group_names_still_deploy_but_are_not_listed(hc: Any) -> None:
    template = _group_template("Software", "NO_SIGNAL")
    template["resources"]["deploys"]["type"] = "OS::Heat::SoftwareDeployments"
    create_complete(hc, template)
    listed = {t.resource_type for t in hc.resource_types.list()}
    assert "OS::Heat::SoftwareDeploymentGroup" in listed
    assert "OS::Heat::SoftwareDeployments" not in listed


def test_cloud_config_multipart_and_component_store_heats_forms(hc: Any) -> None:
    template = {
        "heat_template_version": VERSION,
        "resources": {
            "cloud": {"type": "OS::Heat::CloudConfig", "properties": {
                "cloud_config": {"packages": ["nginx"], "runcmd": ["echo hi"]}}},
            "script": {"type": "OS::Heat::SoftwareConfig", "properties": {
                "config": "#!/bin/sh\necho script"}},
            "mime": {"type": "OS::Heat::MultipartMime", "properties": {"parts": [
                {"config": {"get_resource": "cloud"}},
                {"config": {"get_resource": "script"}, "filename": "run.sh",
                 "subtype": "x-shellscript"},
                {"config": "inline text"}]}},
            "component": {"type": "OS::Heat::SoftwareComponent", "properties": {
                "configs": [{"actions": ["CREATE"], "config": "make", "tool": "script"},
                            {"actions": ["DELETE"], "config": "unmake", "tool": "script"}]}},
        },
        "outputs": {
            "cloud": {"value": {"get_attr": ["cloud", "config"]}},
            "mime": {"value": {"get_attr": ["mime", "config"]}},
            "configs": {"value": {"get_attr": ["component", "configs"]}},
        },
    }
    stack_id = create_complete(hc, template)
    outputs = {o["output_key"]: o["output_value"]
               for o in hc.stacks.get(stack_id).to_dict()["outputs"]}
    assert outputs["cloud"] == "#cloud-config\npackages:\n- nginx\nruncmd:\n- echo hi\n"
    mime = outputs["mime"]
    assert mime.startswith("Content-Type: multipart/mixed;")
    assert "packages:" in mime and "echo script" in mime and "inline text" in mime
    assert 'Content-Disposition: attachment; filename="run.sh"' in mime
    assert "Content-Type: text/x-shellscript" in mime
    assert [c["actions"] for c in outputs["configs"]] == [["CREATE"], ["DELETE"]]
    component = hc.software_configs.get(hc.resources.get(stack_id, "component")
                                        .physical_resource_id)
    assert component.group == "component"


def test_a_component_with_two_configs_for_one_action_is_refused(hc: Any) -> None:
    with pytest.raises(exc.HTTPBadRequest, match=re.escape(
            'Defining more than one configuration for the same action in SoftwareComponent '
            '"component" is not allowed.')):
        hc.stacks.create(stack_name="badcomponent", template={
            "heat_template_version": VERSION,
            "resources": {"component": {"type": "OS::Heat::SoftwareComponent", "properties": {
                "configs": [{"actions": ["CREATE"], "config": "a", "tool": "script"},
                            {"actions": ["CREATE", "UPDATE"], "config": "b",
                             "tool": "script"}]}}}})
