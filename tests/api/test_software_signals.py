"""Deployments that wait for their server's signal (TOKEN_SIGNAL and CFN_SIGNAL), through
python-heatclient against a served API: the signal completes or fails them, with Heat's texts."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.api.helpers import wait_status
from tests.api.test_software_configs import _group_template, _inputs, _stack_template


def _wait_deployment(hc: Any, stack_id: str, status: str) -> Any:
    deadline = time.monotonic() + 30
    while True:
        rsrc = hc.resources.get(stack_id, "deploy")
        if rsrc.physical_resource_id:
            sd = hc.software_deployments.get(rsrc.physical_resource_id)
            if sd.status == status:
                return sd
        assert time.monotonic() < deadline, "the deployment never got there"
        time.sleep(0.05)


@pytest.mark.parametrize("transport", ["TOKEN_SIGNAL", "CFN_SIGNAL"])
def test_a_signalled_deployment_waits_for_the_servers_outputs(hc: Any, transport: str) -> None:
    created = hc.stacks.create(stack_name=f"signalled-{transport.lower()}",
                               template=_stack_template(transport))
    stack_id = created["stack"]["id"]
    sd = _wait_deployment(hc, stack_id, "IN_PROGRESS")
    assert sd.status_reason == "Deploy data available"
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    [derived] = hc.resources.metadata(stack_id, "server")["deployments"]
    inputs = _inputs(derived)
    assert inputs["deploy_signal_transport"] == transport
    assert inputs["deploy_signal_verb"] == "POST"
    assert inputs["deploy_signal_id"].startswith("http")
    assert ("deploy_auth_token" in inputs) == (transport == "TOKEN_SIGNAL")

    hc.resources.signal(stack_id, "deploy", data={
        "deploy_status_code": 0, "deploy_stdout": "all good", "deploy_stderr": "",
        "result": "42"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    sd = hc.software_deployments.get(sd.id)
    assert (sd.status, sd.status_reason) == ("COMPLETE", "Outputs received")
    outputs = {o["output_key"]: o["output_value"] for o in done.to_dict()["outputs"]}
    assert (outputs["result"], outputs["stdout"]) == ("42", "all good")

    # a deployment no longer IN_PROGRESS ignores a later signal
    hc.resources.signal(stack_id, "deploy", data={"deploy_status_code": 1})
    time.sleep(0.3)
    assert hc.software_deployments.get(sd.id).status == "COMPLETE"


HEATS_REASON = ("deploy_status_code : Deployment exited with non-zero status code: 3, "
                "failed : disk full")


@pytest.mark.parametrize(("stderr", "tail"), [
    ("no disk\n", "; deploy_stderr: no disk"),
    ("", ""),
    (None, ""),
    ("\n".join(f"line {i}: " + "x" * 30 for i in range(20)) + "\n\n",
     "; deploy_stderr: " + "\n".join(f"line {i}: " + "x" * 30 for i in range(15, 20))),
])
def test_a_failing_deployment_fails_the_stack_with_heats_reason_and_its_stderr(
        hc: Any, stderr: str | None, tail: str) -> None:
    created = hc.stacks.create(stack_name="signalled-failing",
                               template=_stack_template("TOKEN_SIGNAL"))
    stack_id = created["stack"]["id"]
    sd = _wait_deployment(hc, stack_id, "IN_PROGRESS")
    details = {"deploy_status_code": 3, "failed": "disk full"}
    if stderr is not None:
        details["deploy_stderr"] = stderr
    hc.resources.signal(stack_id, "deploy", data=details)
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_FAILED"
    sd = hc.software_deployments.get(sd.id)
    assert (sd.status, sd.status_reason) == ("FAILED", HEATS_REASON)
    reason = hc.resources.get(stack_id, "deploy").resource_status_reason
    assert reason == f"Error: resources.deploy: Deployment to server failed: {HEATS_REASON}{tail}"
    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"


def test_a_signalled_deployment_group_completes_when_every_server_signalled(hc: Any) -> None:
    created = hc.stacks.create(stack_name="group-signalled",
                               template=_group_template("Software", "TOKEN_SIGNAL"))
    stack_id = created["stack"]["id"]
    deadline = time.monotonic() + 30
    while True:
        child = hc.resources.get(stack_id, "deploys").physical_resource_id
        members = {r.resource_name: r for r in hc.resources.list(child)} if child else {}
        if len(members) == 2 and all(m.physical_resource_id for m in members.values()):
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    for name in ("one", "two"):
        _wait = hc.software_deployments.get(members[name].physical_resource_id)
        while _wait.status != "IN_PROGRESS":
            time.sleep(0.05)
            _wait = hc.software_deployments.get(members[name].physical_resource_id)
    hc.resources.signal(child, "one", data={"deploy_stdout": "out1", "result": "r1"})
    time.sleep(0.3)
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    hc.resources.signal(child, "two", data={"deploy_stdout": "out2", "result": "r2"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    outputs = {o["output_key"]: o["output_value"] for o in done.to_dict()["outputs"]}
    assert outputs["stdouts"] == {"one": "out1", "two": "out2"}
    assert outputs["results"] == {"one": "r1", "two": "r2"}


def test_a_deployed_server_gets_its_deployments_in_its_metadata(hc: Any) -> None:
    template = _stack_template("TOKEN_SIGNAL")
    template["resources"]["server"] = {"type": "OS::Heat::DeployedServer"}
    created = hc.stacks.create(stack_name="deployed-server", template=template)
    stack_id = created["stack"]["id"]
    sd = _wait_deployment(hc, stack_id, "IN_PROGRESS")
    metadata = hc.resources.metadata(stack_id, "server")
    assert "os-collect-config" in metadata  # the server's own keys are kept beside them
    [derived] = metadata["deployments"]
    assert derived["id"] == sd.config_id
    hc.resources.signal(stack_id, "deploy", data={"deploy_status_code": "0"})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"


def _deploy_to(server_id: str) -> dict[str, Any]:
    """A deployment that also runs on DELETE, to a server of another stack."""
    template = _stack_template("TOKEN_SIGNAL", actions=["CREATE", "DELETE"])
    del template["resources"]["server"]
    template["resources"]["deploy"]["properties"]["server"] = server_id
    return template


def _created_and_signalled(hc: Any, name: str, server_id: str) -> str:
    stack_id: str = hc.stacks.create(stack_name=name, template=_deploy_to(server_id),
                                     timeout_mins=5)["stack"]["id"]
    _wait_deployment(hc, stack_id, "IN_PROGRESS")
    hc.resources.signal(stack_id, "deploy", data={"deploy_status_code": 0})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    return stack_id


def _server_stack(hc: Any, name: str) -> tuple[str, str]:
    stack_id: str = hc.stacks.create(stack_name=name, template={
        "heat_template_version": "2021-04-16",
        "resources": {"server": {"type": "OS::Heat::TestResource"}}})["stack"]["id"]
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    return stack_id, hc.resources.get(stack_id, "server").physical_resource_id


def test_a_delete_deployment_waits_for_its_server_while_the_server_exists(hc: Any) -> None:
    servers, server_id = _server_stack(hc, "delete-waits-servers")
    stack_id = _created_and_signalled(hc, "delete-waits", server_id)
    hc.stacks.delete(stack_id)
    sd = _wait_deployment(hc, stack_id, "IN_PROGRESS")
    assert sd.action == "DELETE"
    time.sleep(1)
    assert hc.stacks.get(stack_id).stack_status == "DELETE_IN_PROGRESS"
    # a resource takes no signal while deleting (Heat's rule): the agent's report
    # reaches the deployment through the deployments API
    hc.software_deployments.update(sd.id, status="COMPLETE", status_reason="done",
                                   output_values={"deploy_status_code": 0})
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"
    hc.stacks.delete(servers)
    assert wait_status(hc, servers).stack_status == "DELETE_COMPLETE"


def test_a_delete_deployment_whose_server_is_gone_completes_at_once(hc: Any) -> None:
    """Heat's _server_exists: a server that is gone never signals, so the DELETE action
    does not wait for one (here the stack would wait five minutes)."""
    servers, server_id = _server_stack(hc, "delete-gone-servers")
    stack_id = _created_and_signalled(hc, "delete-gone", server_id)
    hc.stacks.delete(servers)
    assert wait_status(hc, servers).stack_status == "DELETE_COMPLETE"
    hc.stacks.delete(stack_id)
    done = wait_status(hc, stack_id, timeout=15)
    assert done.stack_status == "DELETE_COMPLETE", done.stack_status_reason
