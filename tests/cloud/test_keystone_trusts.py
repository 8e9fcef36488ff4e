"""Deferred authentication and stack users against the project's real Keystone.

A real ``hotplate serve --auth keystone`` with Heat's ``[trustee]`` (the cloud's
``heat`` service user) and stack domain (``heat``, administered by
``heat_domain_admin``). Every token a test creates a stack with is revoked as
soon as the request is accepted: what the stack does afterwards (its
resources' cloud calls, a signal, an update, a delete) can only succeed
through the stack's trust. Keystone is then asked, as its admin, what exists:
the trust while the stack lives, nothing once it is gone. Every user,
project, trust and credential the tests make is deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.cloud import CloudSettings, TokenCredentials, TrusteeSettings
from hotplate.cloud.sessions import CloudSessions
from hotplate.cloud.trusts import Trusts
from hotplate.model.errors import MissingCredentialError
from tests.cloud.locate import Cloud
from tests.cloud.serving import CFN_PORT, SERVICE_PASSWORD, SERVICE_USER, Serving, keystone_serve
from tests.cloud.stacks import trust_config
from tests.cloud.trust_probe import TYPE, probe_plugin_path

KEYSTONE_ROOT = "http://127.0.0.1:5000"
STACK_DOMAIN = os.environ.get("HOTPLATE_TEST_STACK_DOMAIN") or "heat"
DOMAIN_ADMIN = os.environ.get("HOTPLATE_TEST_DOMAIN_ADMIN") or "heat_domain_admin"
TIMEOUT = 120.0
_HTTP = httpx.Client(timeout=60.0)
"""Keystone and hotplate answer slowly on a busy machine: a create makes a trust and a
project."""

PROBE = f"""heat_template_version: 2021-04-16
parameters:
  value: {{type: string, default: one}}
resources:
  probe:
    type: {TYPE}
    properties: {{value: {{get_param: value}}}}
"""

SIGNALLED = """heat_template_version: 2021-04-16
resources:
  cfn_handle:
    type: OS::Heat::WaitConditionHandle
    properties: {signal_transport: CFN_SIGNAL}
  cfn_wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: cfn_handle}, timeout: 120}
  token_handle:
    type: OS::Heat::WaitConditionHandle
    properties: {signal_transport: TOKEN_SIGNAL}
  token_wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: token_handle}, timeout: 120}
"""


def _extra(cloud: Cloud) -> str:
    return trust_config(cloud)


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    tmp = Path(tmp_path_factory.mktemp("keystone-trusts"))
    plugins = probe_plugin_path(tmp / "plugins")
    repo = Path(__file__).resolve().parents[2]
    path = os.pathsep.join(p for p in (str(plugins), str(repo), os.environ.get("PYTHONPATH"))
                           if p)
    with keystone_serve(cloud, tmp, extra=_extra(cloud), env={"PYTHONPATH": path}) as serving:
        yield serving


def _login(cloud: Cloud, name: str | None = None) -> tuple[str, dict[str, Any]]:
    """A fresh token of clouds.yaml's ``name`` (the test user), with its body."""
    import openstack.config

    files = [cloud.config_file] if cloud.config_file else None
    auth = openstack.config.OpenStackConfig(config_files=files).get_one(
        cloud=name or cloud.user).config["auth"]
    return _password_token(cloud, auth["username"], auth["password"], auth["project_name"])


def _password_token(cloud: Cloud, user: str, password: str, project: str,
                    ) -> tuple[str, dict[str, Any]]:
    issued = _HTTP.post(f"{cloud.auth_url}/auth/tokens", json={"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}})
    assert issued.status_code == 201, issued.text
    return issued.headers["x-subject-token"], issued.json()["token"]


def _revoke(admin_conn: Any, token: str) -> None:
    resp = admin_conn.session.delete("/auth/tokens", endpoint_filter={
        "service_type": "identity"}, headers={"X-Subject-Token": token})
    assert resp.status_code == 204


def _wait(served: Serving, cloud: Cloud, path: str, status: str) -> dict[str, Any]:
    """The stack once its status is ``status`` (read with fresh tokens)."""
    token, body = _login(cloud)
    url = served.url(body["project"]["id"], path)
    deadline = time.monotonic() + TIMEOUT
    while True:
        resp = _HTTP.get(url, headers={"X-Auth-Token": token})
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


def _eventually(check: Any, what: str) -> None:
    """``check()`` becomes true: a root's credentials go just after its stack does."""
    deadline = time.monotonic() + 30.0
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.5)


@pytest.fixture
def made(served: Serving, cloud: Cloud) -> Iterator[list[str]]:
    """Paths of the stacks a test makes; any still there afterwards is deleted (and its
    trust, users and project with it) while the server runs."""
    paths: list[str] = []
    yield paths
    token, body = _login(cloud)
    for path in paths:
        url = served.url(body["project"]["id"], path)
        if _HTTP.get(url, headers={"X-Auth-Token": token}).status_code == 200:
            _HTTP.delete(url, headers={"X-Auth-Token": token})
            with contextlib.suppress(AssertionError):
                _wait(served, cloud, path, "GONE")
                time.sleep(3.0)


def _trusts_of(admin_conn: Any, user_id: str) -> list[dict[str, Any]]:
    found = admin_conn.session.get(f"/OS-TRUST/trusts?trustor_user_id={user_id}",
                                   endpoint_filter={"service_type": "identity"})
    trusts: list[dict[str, Any]] = found.json()["trusts"]
    return trusts


def _seen(served: Serving, cloud: Cloud, path: str) -> dict[str, str]:
    """What the probe saw, action by action (its attribute, resolved now: no output or
    dependant stores it)."""
    token, body = _login(cloud)
    resp = _HTTP.get(served.url(body["project"]["id"], f"{path}/resources/probe"),
                     headers={"X-Auth-Token": token})
    assert resp.status_code == 200, resp.text
    seen: dict[str, str] = resp.json()["resource"]["attributes"]["seen"]
    return seen


def test_a_stack_acts_through_its_trust_after_its_tokens_are_revoked(
        served: Serving, cloud: Cloud, admin_conn: Any, made: list[str]) -> None:
    token, body = _login(cloud)
    user_id, project = body["user"]["id"], body["project"]["id"]
    before = {t["id"] for t in _trusts_of(admin_conn, user_id)}
    name = f"trust-{uuid.uuid4().hex[:8]}"
    created = _HTTP.post(served.url(project), headers={"X-Auth-Token": token},
                         json={"stack_name": name, "template": PROBE})
    assert created.status_code == 201, created.text
    _revoke(admin_conn, token)
    path = f"/stacks/{name}/{created.json()['stack']['id']}"
    made.append(path)
    _wait(served, cloud, path, "CREATE_COMPLETE")
    seen = _seen(served, cloud, path)
    assert seen["create"].split()[:2] == [user_id, project]  # the owner, through the trust
    new = [t for t in _trusts_of(admin_conn, user_id) if t["id"] not in before]
    assert len(new) == 1, new
    trust = new[0]
    assert trust["impersonation"] is True and trust["project_id"] == project
    trustee = admin_conn.identity.find_user(SERVICE_USER, domain_id="default",
                                           ignore_missing=False)
    assert trust["trustee_user_id"] == trustee.id

    token, _ = _login(cloud)  # a signal, then that token revoked too
    signalled = _HTTP.post(served.url(project, f"{path}/resources/probe/signal"),
                           headers={"X-Auth-Token": token}, json={"go": 1})
    assert signalled.status_code == 200, signalled.text
    _revoke(admin_conn, token)
    deadline = time.monotonic() + TIMEOUT
    while "signal" not in seen:
        assert time.monotonic() < deadline
        time.sleep(0.5)
        seen = _seen(served, cloud, path)
    assert seen["signal"].split()[:2] == [user_id, project]

    token, _ = _login(cloud)  # an update
    updated = _HTTP.patch(served.url(project, path), headers={"X-Auth-Token": token},
                          json={"parameters": {"value": "two"}})
    assert updated.status_code == 202, updated.text
    _revoke(admin_conn, token)
    _wait(served, cloud, path, "UPDATE_COMPLETE")
    assert _seen(served, cloud, path)["update"].split()[:2] == [user_id, project]

    token, _ = _login(cloud)  # a delete
    deleted = _HTTP.delete(served.url(project, path), headers={"X-Auth-Token": token})
    assert deleted.status_code == 204, deleted.text
    _revoke(admin_conn, token)
    _wait(served, cloud, path, "GONE")
    _eventually(lambda: trust["id"] not in {t["id"] for t in _trusts_of(admin_conn, user_id)},
                "the trust outlived its stack")


@pytest.fixture
def second_member(cloud: Cloud, admin_conn: Any) -> Iterator[tuple[str, str]]:
    """Another member of the test user's project: (name, password)."""
    _, body = _login(cloud)
    project = body["project"]["id"]
    name, password = f"trust-other-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    user = admin_conn.identity.create_user(name=name, password=password, domain_id="default",
                                           default_project_id=project)
    try:
        member = admin_conn.identity.find_role("member", ignore_missing=False)
        admin_conn.identity.assign_project_role_to_user(project, user, member)
        yield name, password
    finally:
        for trust in _trusts_of(admin_conn, user.id):
            admin_conn.session.delete(f"/OS-TRUST/trusts/{trust['id']}",
                                      endpoint_filter={"service_type": "identity"})
        admin_conn.identity.delete_user(user)


def test_another_member_updates_and_deletes_through_a_trust_of_their_own(
        served: Serving, cloud: Cloud, admin_conn: Any, second_member: tuple[str, str],
        made: list[str]) -> None:
    token, body = _login(cloud)
    owner, project = body["user"]["id"], body["project"]["id"]
    before = {t["id"] for t in _trusts_of(admin_conn, owner)}
    name = f"trust-{uuid.uuid4().hex[:8]}"
    created = _HTTP.post(served.url(project), headers={"X-Auth-Token": token},
                         json={"stack_name": name, "template": PROBE})
    assert created.status_code == 201, created.text
    path = f"/stacks/{name}/{created.json()['stack']['id']}"
    made.append(path)
    _wait(served, cloud, path, "CREATE_COMPLETE")
    owners = [t for t in _trusts_of(admin_conn, owner) if t["id"] not in before]
    assert len(owners) == 1

    other_token, other = _password_token(cloud, *second_member, body["project"]["name"])
    updated = _HTTP.patch(served.url(project, path), headers={"X-Auth-Token": other_token},
                          json={"parameters": {"value": "two"}})
    assert updated.status_code == 202, updated.text
    _wait(served, cloud, path, "UPDATE_COMPLETE")
    seen = _seen(served, cloud, path)
    assert seen["update"].split()[0] == other["user"]["id"]  # as Heat: now the updater's
    assert owners[0]["id"] not in {t["id"] for t in _trusts_of(admin_conn, owner)}
    assert len(_trusts_of(admin_conn, other["user"]["id"])) == 1

    deleted = _HTTP.delete(served.url(project, path), headers={"X-Auth-Token": other_token})
    assert deleted.status_code == 204, deleted.text
    _wait(served, cloud, path, "GONE")
    _eventually(lambda: _trusts_of(admin_conn, other["user"]["id"]) == [],
                "the updater's trust outlived the stack")


def test_a_role_keystone_does_not_find_is_heats_missing_credential(cloud: Cloud) -> None:
    """trusts_delegated_roles naming a role the caller lacks: Heat's 400 text."""
    token, body = _login(cloud)
    root = cloud.auth_url.removesuffix("/v3")
    settings = CloudSettings(keystone_url=root, trustee=TrusteeSettings(
        auth_url=root, username=SERVICE_USER, password=SERVICE_PASSWORD,
        user_domain_name="Default"))
    trusts = Trusts(CloudSessions(settings))
    with pytest.raises(MissingCredentialError) as refused:
        trusts.create(TokenCredentials(token, {"token": body}, cloud.auth_url,
                                       body["project"]["id"]),
                      trustor_user_id=body["user"]["id"], project_id=body["project"]["id"],
                      roles={"role_names": ["admin"]})
    assert str(refused.value) == "Missing required credential: roles {'role_names': ['admin']}"


def _attributes(served: Serving, token: str, project: str, path: str, name: str
                ) -> dict[str, Any]:
    resp = _HTTP.get(served.url(project, f"{path}/resources/{name}"),
                     headers={"X-Auth-Token": token}, params={"with_attr": "signal"})
    assert resp.status_code == 200, resp.text
    attributes: dict[str, Any] = resp.json()["resource"]["attributes"]
    return attributes


def test_stack_users_live_in_the_stack_domain_and_go_with_the_stack(
        served: Serving, cloud: Cloud, admin_conn: Any, made: list[str]) -> None:
    token, body = _login(cloud)
    project = body["project"]["id"]
    name = f"users-{uuid.uuid4().hex[:8]}"
    created = _HTTP.post(served.url(project), headers={"X-Auth-Token": token},
                         json={"stack_name": name, "template": SIGNALLED})
    assert created.status_code == 201, created.text
    stack_id = created.json()["stack"]["id"]
    path = f"/stacks/{name}/{stack_id}"
    made.append(path)
    domain = admin_conn.identity.find_domain(STACK_DOMAIN, ignore_missing=False)
    projects = [p for p in admin_conn.identity.projects(domain_id=domain.id)
                if p.name == f"{project}-{stack_id}"[:64]]
    assert len(projects) == 1, "no stack domain project"
    user_project = projects[0].id

    deadline = time.monotonic() + TIMEOUT
    while True:  # the handles are made before the waits start
        cfn = _attributes(served, token, project, path, "cfn_handle")
        tok = _attributes(served, token, project, path, "token_handle")
        if cfn.get("signal") and tok.get("token"):
            break
        assert time.monotonic() < deadline
        time.sleep(0.5)
    alarm_url = json.loads(cfn["signal"])["alarm_url"]
    assert f":{CFN_PORT}/v1/waitcondition/" in alarm_url
    forged = alarm_url.replace("Signature=", "Signature=AAAA")
    assert _HTTP.put(forged, json={"status": "SUCCESS"}).status_code == 403
    done = _HTTP.put(alarm_url, json={"status": "SUCCESS", "reason": "ok", "data": "cfn",
                                      "id": "1"})
    assert done.status_code == 200, done.text
    assert f"/v1/{user_project}/stacks/" in tok["endpoint"]
    signalled = _HTTP.post(tok["endpoint"], headers={"X-Auth-Token": tok["token"]},
                           json={"status": "SUCCESS", "reason": "ok", "data": "token"})
    assert signalled.status_code == 200, signalled.text
    _wait(served, cloud, path, "CREATE_COMPLETE")

    users = [u for u in admin_conn.identity.users(domain_id=domain.id)
             if u.default_project_id == user_project]
    assert sorted(u.name.removeprefix(f"{name}-").rsplit("-", 1)[0] for u in users) == [
        "cfn_handle", "token_handle"]  # Heat's physical names
    for user in users:
        roles = {a.role["id"] for a in admin_conn.identity.role_assignments(
            user_id=user.id, scope_project_id=user_project)}
        assert roles == {admin_conn.identity.find_role("heat_stack_user",
                                                           ignore_missing=False).id}
    ec2 = [c for c in admin_conn.identity.credentials() if c.project_id == user_project]
    assert [c.type for c in ec2] == ["ec2"]
    logged = served.log.read_text()  # the server logs at debug level
    assert json.loads(ec2[0].blob)["secret"] not in logged
    assert tok["token"] not in logged

    deleted = _HTTP.delete(served.url(project, path), headers={"X-Auth-Token": token})
    assert deleted.status_code == 204, deleted.text
    _wait(served, cloud, path, "GONE")
    _eventually(lambda: not [p for p in admin_conn.identity.projects(domain_id=domain.id)
                             if p.id == user_project], "the stack user project outlived it")
    assert not [u for u in admin_conn.identity.users(domain_id=domain.id)
                if u.default_project_id == user_project]
    assert not [c for c in admin_conn.identity.credentials() if c.project_id == user_project]
