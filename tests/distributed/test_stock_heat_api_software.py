"""Software configs and deployments through a stock heat-api: Heat 27.0.1's own heat-api
in front of a ``hotplate engine`` on PostgreSQL and RabbitMQ (``stock_heat.py``), driven
with python-heatclient, beside ``hotplate api`` on the same engine.

What heat-api shows must be what hotplate api shows, and each error the same status,
type and message, with one exception that is Heat's own: deleting a config a deployment
still uses is Heat's InvalidRestrictedAction, which heat-api's fault map lacks, so a
stock heat-api answers it 500 (as it does in front of Heat) where hotplate api answers 409.

A stack's deployment to an OS::Heat::DeployedServer waits for its server; through
heat-api the server's outputs arrive as a resource signal (what an agent holding the
stack's credentials sends; HEAT_SIGNAL itself needs Keystone) or as an update of the
deployment through the deployments API.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.distributed.databases import fresh_postgres_database
from tests.distributed.stock_heat import (
    FrontEnds,
    answer,
    both,
    heat_venv_or_skip,
    running,
    wait_status,
)
from tests.real_services import POSTGRES, url_or_skip

pytestmark = pytest.mark.timeout(300)

VERSION = "2021-04-16"
SCRIPT = "#!/bin/sh\necho $foo"


@pytest.fixture(scope="session")
def heat_venv(request: pytest.FixtureRequest) -> Path:
    """heat-api's virtualenv, built once per machine."""
    return heat_venv_or_skip(request)


@pytest.fixture(scope="module")
def front_ends(heat_venv: Path, broker_url: str,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[FrontEnds]:
    db_url = fresh_postgres_database(url_or_skip(POSTGRES), "hotplate_heat_api_software")
    with running(heat_venv, broker_url, db_url,
                 tmp_path_factory.mktemp("stock-heat-api-software")) as served:
        yield served


def _config(hc: Any, **fields: Any) -> Any:
    body = {"name": "cfg", "group": "script", "config": SCRIPT,
            "inputs": [{"name": "foo"}, {"name": "bar", "default": "baz", "type": "String"}],
            "outputs": [{"name": "result"}, {"name": "oops", "error_output": True}],
            "options": {"opt": 1}}
    return hc.software_configs.create(**{**body, **fields})


# -- configs -----------------------------------------------------------------------------
def test_software_configs_through_heat_api(front_ends: FrontEnds) -> None:
    heat, ours = front_ends.heat(), front_ends.hotplate()
    made = _config(heat)
    shown = heat.software_configs.get(made.id)
    assert shown.to_dict() == made.to_dict() == ours.software_configs.get(made.id).to_dict()
    assert (shown.name, shown.group, shown.config, shown.options) == (
        "cfg", "script", SCRIPT, {"opt": 1})
    assert shown.inputs == [{"name": "foo", "type": "String"},
                            {"name": "bar", "type": "String", "default": "baz"}]
    assert shown.outputs == [{"name": "result", "type": "String", "error_output": False},
                             {"name": "oops", "type": "String", "error_output": True}]

    listed = [c.to_dict() for c in heat.software_configs.list()]
    assert listed == [c.to_dict() for c in ours.software_configs.list()]
    # No details in a list; an admin (noauth's caller) sees each config's project.
    assert next(c for c in listed if c["id"] == made.id) == {
        "id": made.id, "name": "cfg", "group": "script",
        "creation_time": shown.creation_time, "project": "admin"}

    more = [_config(heat, name=f"page{i}").id for i in range(3)]
    everything = [c.id for c in heat.software_configs.list()]
    start = everything.index(more[0])
    for hc in (heat, ours):  # heat-api passes limit as an integer, as Heat's client does
        assert [c.id for c in hc.software_configs.list(limit=2, marker=more[0])] == \
            everything[start + 1:start + 3]

    for config_id in (made.id, *more):
        heat.software_configs.delete(config_id)
    missing = (404, "NotFound", f"Software config with id {made.id} not found")
    assert both(front_ends, lambda hc: hc.software_configs.get(made.id)) == missing
    assert both(front_ends, lambda hc: hc.software_configs.delete(made.id)) == missing


Request = Callable[[Any, str, str], Any]
"""(client, an existing config's id, an existing deployment's id) -> the request."""

UNKNOWN = str(uuid.uuid4())

ERRORS: dict[str, tuple[Request, int, str, str]] = {
    "config input without a name": (lambda hc, c, d: _config(hc, inputs=[{"type": "String"}]),
                                    400, "StackValidationFailed",
                                    "inputs.0: Property name not assigned"),
    "config outputs not a list": (lambda hc, c, d: _config(hc, outputs={"name": "x"}),
                                  400, "StackValidationFailed",
                                  "outputs: Software Config I/O Schema must be in a list"),
    "config options not a map": (lambda hc, c, d: _config(hc, options="x"),
                                 400, "StackValidationFailed", 'options: "x" is not a map'),
    "missing deployment": (lambda hc, c, d: hc.software_deployments.get(UNKNOWN),
                           404, "NotFound", f"Deployment with id {UNKNOWN} not found"),
    "missing deployment updated": (lambda hc, c, d: hc.software_deployments.update(
        UNKNOWN, status="COMPLETE"), 404, "NotFound", f"Deployment with id {UNKNOWN} not found"),
    "missing deployment deleted": (lambda hc, c, d: hc.software_deployments.delete(UNKNOWN),
                                   404, "NotFound", f"Deployment with id {UNKNOWN} not found"),
    "deployment of a missing config": (lambda hc, c, d: hc.software_deployments.create(
        config_id=UNKNOWN, server_id=str(uuid.uuid4())), 400, "Invalid",
        f"Data supplied was not valid: Config with id {UNKNOWN} not found"),
    "deployment without a server": (lambda hc, c, d: hc.software_deployments.create(
        config_id=c), 400, "Invalid", 'Data supplied was not valid: "server_id" is required'),
    "deployment input values not a map": (lambda hc, c, d: hc.software_deployments.create(
        config_id=c, server_id=str(uuid.uuid4()), input_values=["x"]),
        400, "StackValidationFailed", "input_values: \"['x']\" is not a map"),
    "deployment given a missing config": (lambda hc, c, d: hc.software_deployments.update(
        d, config_id=UNKNOWN), 400, "Invalid",
        f"Data supplied was not valid: Config with id {UNKNOWN} not found"),
}


@pytest.fixture(scope="module")
def existing(front_ends: FrontEnds) -> Iterator[tuple[str, str]]:
    """A config and a deployment of it: (config id, deployment id)."""
    hc = front_ends.heat()
    config = _config(hc, name="existing")
    sd = hc.software_deployments.create(config_id=config.id, server_id=str(uuid.uuid4()))
    yield config.id, sd.id
    hc.software_deployments.delete(sd.id)
    hc.software_configs.delete(config.id)


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_heats_statuses_as_hotplate_api_gives_them(
        front_ends: FrontEnds, existing: tuple[str, str], case: str) -> None:
    call, status, error_type, message = ERRORS[case]
    config_id, deployment_id = existing
    assert both(front_ends, lambda hc: call(hc, config_id, deployment_id)) == (
        status, error_type, message)


# -- deployments -------------------------------------------------------------------------
def test_software_deployments_through_heat_api(front_ends: FrontEnds) -> None:
    heat, ours = front_ends.heat(), front_ends.hotplate()
    config, other = _config(heat, name="b-config"), _config(heat, name="a-config")
    server = str(uuid.uuid4())
    made = heat.software_deployments.create(
        config_id=config.id, server_id=server, input_values={"foo": "1"}, action="CREATE",
        status="IN_PROGRESS", status_reason="Deploy data")
    second = heat.software_deployments.create(config_id=other.id, server_id=server)
    shown = heat.software_deployments.get(made.id)
    assert shown.to_dict() == made.to_dict() == ours.software_deployments.get(made.id).to_dict()
    assert (shown.server_id, shown.config_id, shown.input_values, shown.output_values) == (
        server, config.id, {"foo": "1"}, None)
    assert (shown.action, shown.status, shown.status_reason) == (
        "CREATE", "IN_PROGRESS", "Deploy data")
    # heat-api sends what the body lacks as None, and the engine keeps it so.
    assert (second.action, second.status, second.input_values) == (None, None, {})

    mine = [d.to_dict() for d in heat.software_deployments.list(server_id=server)]
    assert [d["id"] for d in mine] == [made.id, second.id]
    assert mine == [d.to_dict() for d in ours.software_deployments.list(server_id=server)]
    assert {made.id, second.id} <= {d.id for d in heat.software_deployments.list()}
    metadata = heat.software_deployments.metadata(server)
    assert [m["name"] for m in metadata] == ["a-config", "b-config"]  # by config name
    assert metadata == ours.software_deployments.metadata(server)
    assert metadata[1] == config.to_dict()

    in_use = f"Software config with id {config.id} can not be deleted as it is referenced."
    assert answer(lambda: heat.software_configs.delete(config.id)) == (
        500, "InvalidRestrictedAction", in_use)  # heat-api's, in front of Heat too
    assert answer(lambda: ours.software_configs.delete(config.id)) == (
        409, "InvalidRestrictedAction", in_use)

    updated = heat.software_deployments.update(
        made.id, status="COMPLETE", status_reason="Outputs received",
        output_values={"result": "ok"})
    assert (updated.status, updated.status_reason, updated.output_values) == (
        "COMPLETE", "Outputs received", {"result": "ok"})
    assert (updated.action, updated.input_values) == ("CREATE", {"foo": "1"})  # kept
    assert updated.updated_time is not None
    assert ours.software_deployments.get(made.id).to_dict() == updated.to_dict()

    heat.software_deployments.delete(made.id)
    gone = (404, "NotFound", f"Deployment with id {made.id} not found")
    assert both(front_ends, lambda hc: hc.software_deployments.get(made.id)) == gone
    assert [m["name"] for m in heat.software_deployments.metadata(server)] == ["a-config"]
    heat.software_configs.delete(config.id)  # no longer in use
    heat.software_deployments.delete(second.id)
    heat.software_configs.delete(other.id)
    assert heat.software_deployments.metadata(server) == []


# -- a stack's deployment ------------------------------------------------------------------
def _stack_template() -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "resources": {
            "server": {"type": "OS::Heat::DeployedServer"},
            "config": {"type": "OS::Heat::SoftwareConfig", "properties": {
                "group": "script", "config": SCRIPT, "inputs": [{"name": "foo"}],
                "outputs": [{"name": "result"}]}},
            "deploy": {"type": "OS::Heat::SoftwareDeployment", "properties": {
                "config": {"get_resource": "config"}, "server": {"get_resource": "server"},
                "input_values": {"foo": "fooval"}, "signal_transport": "CFN_SIGNAL"}},
        },
        "outputs": {
            "result": {"value": {"get_attr": ["deploy", "result"]}},
            "stdout": {"value": {"get_attr": ["deploy", "deploy_stdout"]}},
        },
    }


def _waiting(hc: Any, name: str) -> tuple[str, Any]:
    """Create the stack; once its deployment waits for the server: (stack id, deployment)."""
    stack_id: str = hc.stacks.create(stack_name=name, template=_stack_template(),
                                     timeout_mins=5)["stack"]["id"]
    deadline = time.monotonic() + 60
    while True:
        physical = hc.resources.get(stack_id, "deploy").physical_resource_id
        sd = hc.software_deployments.get(physical) if physical else None
        if sd is not None and sd.status == "IN_PROGRESS":
            return stack_id, sd
        assert time.monotonic() < deadline, "the deployment never waited"
        time.sleep(0.1)


def _outputs(stack: Any) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack.to_dict()["outputs"]}


def _deleted(hc: Any, stack_id: str) -> None:
    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"


def test_a_deployment_signalled_through_heat_api_completes_its_stack(
        front_ends: FrontEnds) -> None:
    hc = front_ends.heat()
    stack_id, sd = _waiting(hc, "signalled")
    assert sd.status_reason == "Deploy data available"
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    server_id = hc.resources.get(stack_id, "server").physical_resource_id
    metadata = hc.resources.metadata(stack_id, "server")
    assert "os-collect-config" in metadata  # the server's own keys beside its deployments
    [derived] = metadata["deployments"]
    assert derived["id"] == sd.config_id
    assert hc.software_deployments.metadata(server_id) == [derived]
    inputs = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert (inputs["foo"], inputs["deploy_server_id"], inputs["deploy_stack_id"]) == (
        "fooval", server_id, f"signalled/{stack_id}")
    assert inputs["deploy_signal_transport"] == "CFN_SIGNAL"

    hc.resources.signal(stack_id, "deploy", data={
        "deploy_status_code": 0, "deploy_stdout": "done", "deploy_stderr": "",
        "result": "42"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert _outputs(done) == {"result": "42", "stdout": "done"}
    settled = hc.software_deployments.get(sd.id)
    assert (settled.status, settled.status_reason) == ("COMPLETE", "Outputs received")
    assert settled.output_values == {"deploy_status_code": 0, "deploy_stdout": "done",
                                     "deploy_stderr": "", "result": "42"}
    assert front_ends.hotplate().software_deployments.get(sd.id).to_dict() == \
        settled.to_dict()
    events = [(e.resource_name, e.resource_status, e.resource_status_reason)
              for e in hc.events.list(stack_id)]
    assert ("deploy", "SIGNAL_IN_PROGRESS", f"Signal: deployment {sd.id} succeeded") in events

    _deleted(hc, stack_id)
    assert answer(lambda: hc.software_deployments.get(sd.id))[0] == 404
    assert answer(lambda: hc.software_configs.get(sd.config_id))[0] == 404
    assert hc.software_deployments.metadata(server_id) == []


def test_a_deployment_signalled_failed_fails_its_stack_with_heats_reasons(
        front_ends: FrontEnds) -> None:
    hc = front_ends.heat()
    stack_id, sd = _waiting(hc, "signalled-failed")
    hc.resources.signal(stack_id, "deploy", data={"deploy_status_code": 2})
    done = wait_status(hc, stack_id)
    why = "deploy_status_code : Deployment exited with non-zero status code: 2"
    resource_why = f"Error: resources.deploy: Deployment to server failed: {why}"
    assert (done.stack_status, done.stack_status_reason) == (
        "CREATE_FAILED", f"Resource CREATE failed: {resource_why}")
    deploy = hc.resources.get(stack_id, "deploy")
    assert (deploy.resource_status, deploy.resource_status_reason) == (
        "CREATE_FAILED", resource_why)
    failed = hc.software_deployments.get(sd.id)
    assert (failed.status, failed.status_reason) == ("FAILED", why)
    _deleted(hc, stack_id)


def test_a_deployment_completed_through_the_deployments_api_completes_its_stack(
        front_ends: FrontEnds) -> None:
    """The outputs reported by updating the deployment through heat-api, as an agent
    using the deployments API would, wake the resource waiting for them."""
    hc = front_ends.heat()
    stack_id, sd = _waiting(hc, "updated")
    hc.software_deployments.update(sd.id, status="COMPLETE", status_reason="Outputs received",
                                   output_values={"deploy_stdout": "by update", "result": "7"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert _outputs(done) == {"result": "7", "stdout": "by update"}
    _deleted(hc, stack_id)
