"""HEAT_SIGNAL and POLL_SERVER_HEAT against the project's real Keystone.

A real ``hotplate serve --auth keystone`` with a stack user domain. A stack
holds a HEAT_SIGNAL wait condition handle, a DeployedServer polling with
POLL_SERVER_HEAT and a HEAT_SIGNAL deployment on it. The test then acts as
the server's agent would: it logs in to Keystone with each stack user's
password (keystoneauth, as os-collect-config and heat-config-notify do),
reads the server's metadata through the API, and signals the handle and the
deployment (through hotplate's agent) with those users' tokens. A stack user's token is refused
everything else (Heat's ``deny_stack_user``). Once the stack is deleted,
Keystone holds none of its users, nor its project.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.agent.notify import Delivery, deliver, signal_request
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving, keystone_serve
from tests.cloud.test_keystone_trusts import STACK_DOMAIN, TIMEOUT, _eventually, _extra, _login

_HTTP = httpx.Client(timeout=60.0)
REGION = "RegionOne"
"""The catalog's region of hotplate's orchestration endpoint (another region holds
another Heat): the stack users' credentials name it, and the agent finds hotplate so."""

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
    properties: {signal_transport: HEAT_SIGNAL}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, timeout: 300}
  server:
    type: OS::Heat::DeployedServer
    properties: {software_config_transport: POLL_SERVER_HEAT}
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: "#!/bin/sh\\necho hello"
      outputs: [{name: result}]
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: HEAT_SIGNAL
outputs:
  result: {value: {get_attr: [deployment, result]}}
"""


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    tmp = Path(tmp_path_factory.mktemp("keystone-heat-signal"))
    extra = _extra(cloud).replace(
        "[DEFAULT]\n", f"[DEFAULT]\nregion_name_for_services = {REGION}\n")
    with keystone_serve(cloud, tmp, extra=extra) as serving:
        yield serving


@pytest.fixture
def made(served: Serving, cloud: Cloud) -> Iterator[list[str]]:
    """Paths of the stacks a test makes; any left is deleted while the server runs."""
    paths: list[str] = []
    yield paths
    token, body = _login(cloud)
    for path in paths:
        url = served.url(body["project"]["id"], path)
        if _HTTP.get(url, headers={"X-Auth-Token": token}).status_code == 200:
            _HTTP.delete(url, headers={"X-Auth-Token": token})
            with contextlib.suppress(AssertionError):
                _settled(served, token, body["project"]["id"], path, "GONE")
                time.sleep(3.0)


def _settled(served: Serving, token: str, project: str, path: str, status: str
             ) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        resp = _HTTP.get(served.url(project, path), headers={"X-Auth-Token": token})
        if status == "GONE" and resp.status_code == 404:
            return {}
        assert resp.status_code == 200, resp.text
        stack: dict[str, Any] = resp.json()["stack"]
        if stack["stack_status"] == status or (status == "GONE"
                                               and stack["stack_status"] == "DELETE_COMPLETE"):
            return stack
        assert not stack["stack_status"].endswith("FAILED"), stack["stack_status_reason"]
        assert time.monotonic() < deadline, f"still {stack['stack_status']}"
        time.sleep(0.5)


def _agent_token(auth_url: str, user_id: str, password: str, project_id: str) -> str:
    """A stack user's token, as the server's agent gets one: keystoneauth, password."""
    from keystoneauth1 import session
    from keystoneauth1.identity import v3

    auth = v3.Password(auth_url=auth_url, user_id=user_id, password=password,
                       project_id=project_id)
    return str(auth.get_token(session.Session(auth=auth)))


def _attribute(served: Serving, token: str, project: str, path: str, resource: str,
               name: str) -> Any:
    deadline = time.monotonic() + TIMEOUT
    while True:  # the resource's attributes resolve once it is created (or creating)
        resp = _HTTP.get(served.url(project, f"{path}/resources/{resource}"),
                         headers={"X-Auth-Token": token}, params={"with_attr": name})
        assert resp.status_code == 200, resp.text
        value = resp.json()["resource"]["attributes"].get(name)
        if value:
            return value
        assert time.monotonic() < deadline, f"{resource}.{name} never resolved"
        time.sleep(0.5)


def _deployments(served: Serving, occ_heat: dict[str, Any]) -> list[dict[str, Any]]:
    """The server's deployments, polled as os-collect-config's heat collector polls."""
    token = _agent_token(occ_heat["auth_url"], occ_heat["user_id"], occ_heat["password"],
                         occ_heat["project_id"])
    url = served.url(occ_heat["project_id"],
                     f"/stacks/{occ_heat['stack_id']}/resources/"
                     f"{occ_heat['resource_name']}/metadata")
    deadline = time.monotonic() + TIMEOUT
    while True:
        resp = _HTTP.get(url, headers={"X-Auth-Token": token})
        assert resp.status_code == 200, resp.text
        found: list[dict[str, Any]] = resp.json()["metadata"].get("deployments") or []
        if found:
            return found
        assert time.monotonic() < deadline, "no deployment reached the server's metadata"
        time.sleep(0.5)


def _stack_user_is_denied(served: Serving, token: str, project: str, path: str) -> None:
    """Heat's deny_stack_user: nothing beyond its resource's signal and metadata."""
    for method, where in (("GET", "/stacks"), ("GET", path), ("GET", f"{path}/resources"),
                          ("GET", f"{path}/events"), ("DELETE", path)):
        resp = _HTTP.request(method, served.url(project, where),
                             headers={"X-Auth-Token": token})
        assert resp.status_code == 403, (method, where, resp.status_code, resp.text)


def test_heat_signal_and_poll_server_heat_through_stack_users_tokens(
        served: Serving, cloud: Cloud, admin_conn: Any, made: list[str]) -> None:
    token, body = _login(cloud)
    project = body["project"]["id"]
    name = f"heatsig-{uuid.uuid4().hex[:8]}"
    created = _HTTP.post(served.url(project), headers={"X-Auth-Token": token},
                         json={"stack_name": name, "template": TEMPLATE})
    assert created.status_code == 201, created.text
    stack_id = created.json()["stack"]["id"]
    path = f"/stacks/{name}/{stack_id}"
    made.append(path)
    domain = admin_conn.identity.find_domain(STACK_DOMAIN, ignore_missing=False)
    user_project = next(p.id for p in admin_conn.identity.projects(domain_id=domain.id)
                        if p.name == f"{project}-{stack_id}"[:64])

    # the handle: its signal attribute carries a stack user's password credentials
    signal = json.loads(_attribute(served, token, project, path, "handle", "signal"))
    assert set(signal) == {"auth_url", "username", "user_id", "password", "project_id",
                           "domain_id", "region_name", "alarm_url"}
    assert signal["project_id"] == user_project and signal["domain_id"] == domain.id
    assert f"/v1/{user_project}/stacks/{name}/{stack_id}/resources/handle/signal" \
        in signal["alarm_url"]
    handle_token = _agent_token(signal["auth_url"], signal["user_id"], signal["password"],
                                signal["project_id"])
    _stack_user_is_denied(served, handle_token, user_project, path)
    done = _HTTP.post(signal["alarm_url"], headers={"X-Auth-Token": handle_token},
                      json={"status": "SUCCESS", "reason": "ok", "data": "heat", "id": "1"})
    assert done.status_code == 200, done.text

    # the server: POLL_SERVER_HEAT's collector settings, then its deployments polled
    occ = _attribute(served, token, project, path, "server", "os_collect_config")
    assert occ["collectors"] == ["heat", "local"]
    heat = occ["heat"]
    assert set(heat) == {"user_id", "password", "auth_url", "project_id", "stack_id",
                         "resource_name", "region_name"}
    assert (heat["project_id"], heat["stack_id"], heat["resource_name"]) == (
        user_project, f"{name}/{stack_id}", "server")
    deployment = _deployments(served, heat)[0]
    inputs = {i["name"]: i.get("value") for i in deployment["inputs"]}
    assert inputs["deploy_signal_transport"] == "HEAT_SIGNAL"
    assert inputs["deploy_project_id"] == user_project
    assert inputs["deploy_region_name"] == heat["region_name"] == REGION
    assert "deploy_signal_id" not in inputs and "deploy_auth_token" not in inputs
    assert inputs["deploy_user_id"] != signal["user_id"] != heat["user_id"]

    # the deployment's outcome, signalled by hotplate's agent as heat-config-notify
    # signals HEAT_SIGNAL: a token of the deployment's user, the catalog's endpoint
    request = signal_request(deployment, {"deploy_stdout": "hello", "deploy_stderr": "",
                                          "deploy_status_code": 0, "result": "done"})
    assert request is not None and request["url"] is None  # found at delivery
    assert deliver(request, retries=2, timeout=30.0) is Delivery.DELIVERED
    stack = _settled(served, token, project, path, "CREATE_COMPLETE")
    assert stack["outputs"][0]["output_value"] == "done"

    users = [u for u in admin_conn.identity.users(domain_id=domain.id)
             if u.default_project_id == user_project]
    assert len(users) == 3  # the handle's, the server's, the deployment's
    logged = served.log.read_text()  # the server logs at debug level
    for password in (signal["password"], heat["password"], inputs["deploy_password"]):
        assert password not in logged

    deleted = _HTTP.delete(served.url(project, path), headers={"X-Auth-Token": token})
    assert deleted.status_code == 204, deleted.text
    _settled(served, token, project, path, "GONE")
    _eventually(lambda: not [p for p in admin_conn.identity.projects(domain_id=domain.id)
                             if p.id == user_project], "the stack user project outlived it")
    assert not [u for u in admin_conn.identity.users(domain_id=domain.id)
                if u.default_project_id == user_project]
    assert not [c for c in admin_conn.identity.credentials() if c.project_id == user_project]
