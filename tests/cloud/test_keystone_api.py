"""``hotplate serve --auth keystone`` against the project's real Keystone.

hotplate listens where the catalog's ``orchestration`` endpoint points (8004; its CFN
API on 8000) and validates tokens with keystonemiddleware's ``auth_token``, as the
heat service user. Unchanged ``openstack stack ...`` commands drive it with password
auth; Keystone's tokens, roles and projects decide what each caller may do, with
Heat's policy defaults. Keystone is reached through a proxy that can slow its token
validations down, to show that a slow validation holds up no other request.
Every user or credential a test makes, it deletes.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cloud.keystone_proxy import SlowKeystoneProxy
from tests.cloud.locate import Cloud
from tests.cloud.serving import PORT, SERVICE_PASSWORD, keystone_serve
from tests.openstack_cli import run_openstack

READER_CLOUD = os.environ.get("OS_READER_CLOUD") or "hotplate-demo-reader"
ALT_CLOUD = os.environ.get("OS_ALT_CLOUD") or "hotplate-alt-demo"
TEMPLATE = """heat_template_version: 2021-04-16
resources:
  nothing: {type: OS::Heat::None}
  value: {type: OS::Heat::Value, properties: {value: hello}}
outputs:
  said: {value: {get_attr: [value, value]}}
"""


@dataclass
class Served:
    cloud: Cloud
    proxy: SlowKeystoneProxy
    log: Path
    tmp: Path

    def url(self, project: str, path: str = "/stacks") -> str:
        return f"http://127.0.0.1:{PORT}/v1/{project}{path}"


def _login(cloud: Cloud, name: str) -> tuple[str, str]:
    """A fresh token of the clouds.yaml's ``name``, and its project id."""
    import openstack.config

    files = [cloud.config_file] if cloud.config_file else None
    session = openstack.config.OpenStackConfig(config_files=files).get_one(
        cloud=name).get_session()
    return session.get_token(), session.get_project_id()


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = Path(tmp_path_factory.mktemp("keystone-serve"))
    with SlowKeystoneProxy() as proxy:
        env = {"http_proxy": proxy.url, "HTTP_PROXY": proxy.url, "no_proxy": "",
               "NO_PROXY": ""}
        with keystone_serve(cloud, tmp, env=env) as serving:
            yield Served(cloud, proxy, serving.log, tmp)


def _openstack(served: Served, cloud: str, *args: str, json_out: bool = True) -> Any:
    """``openstack --os-cloud <cloud> <args> [-f json]``, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(served.cloud.environ(cloud))
    fmt = ["-f", "json"] if json_out else []
    done = run_openstack(["--os-cloud", cloud, *args, *fmt], env, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()  # --wait prints event lines before the document
    start = next((i for i, line in enumerate(lines) if line[:1] in "[{"), len(lines))
    return json.loads("\n".join(lines[start:])) if json_out else None


def test_openstack_stack_commands_work_unchanged(served: Served) -> None:
    template = served.tmp / "stack.yaml"
    template.write_text(TEMPLATE)
    user = served.cloud.user
    name = f"ks-{uuid.uuid4().hex[:8]}"
    created = _openstack(served, user, "stack", "create", "--wait", "-t", str(template), name)
    assert created["stack_status"] == "CREATE_COMPLETE", created
    assert name in [s["Stack Name"] for s in _openstack(served, user, "stack", "list")]
    shown = _openstack(served, user, "stack", "show", name)
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert shown["outputs"][0]["output_value"] == "hello"
    _, project = _login(served.cloud, user)
    assert f"/v1/{project}/stacks/{name}/" in str(shown["links"])
    _openstack(served, user, "stack", "delete", "--yes", "--wait", name, json_out=False)
    assert name not in [s["Stack Name"] for s in _openstack(served, user, "stack", "list")]


def test_invalid_and_revoked_tokens_are_401(served: Served, admin_conn: Any) -> None:
    token, project = _login(served.cloud, served.cloud.user)
    for bad in ("not-a-token", token[:-4] + "AAAA"):
        resp = httpx.get(served.url(project), headers={"X-Auth-Token": bad})
        assert resp.status_code == 401, resp.text
        assert resp.headers["www-authenticate"].startswith("Keystone uri=")
    admin_conn.session.delete("/auth/tokens", endpoint_filter={"service_type": "identity"},
                              headers={"X-Subject-Token": token})
    resp = httpx.get(served.url(project), headers={"X-Auth-Token": token})
    assert resp.status_code == 401, resp.text


def test_an_expired_token_is_401(served: Served, cloud: Cloud, user_conn: Any) -> None:
    """A token of an application credential that expires a few seconds later."""
    user_id = user_conn.session.get_user_id()
    expires = datetime.now(UTC) + timedelta(seconds=4)
    made = user_conn.session.post(
        f"/users/{user_id}/application_credentials",
        endpoint_filter={"service_type": "identity"},
        json={"application_credential": {"name": f"ks-expiring-{uuid.uuid4().hex[:8]}",
                                         "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%S")}},
    ).json()["application_credential"]
    try:
        auth = {"auth": {"identity": {"methods": ["application_credential"],
                                      "application_credential": {
                                          "id": made["id"], "secret": made["secret"]}}}}
        issued = httpx.post(f"{cloud.auth_url}/auth/tokens", json=auth)
        assert issued.status_code == 201, issued.text
        token = issued.headers["x-subject-token"]
        project = issued.json()["token"]["project"]["id"]
        time.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 1.5)
        resp = httpx.get(served.url(project), headers={"X-Auth-Token": token})
        assert resp.status_code == 401, resp.text
    finally:
        user_conn.session.delete(f"/users/{user_id}/application_credentials/{made['id']}",
                                 endpoint_filter={"service_type": "identity"})


def test_a_reader_cannot_write(served: Served) -> None:
    token, project = _login(served.cloud, READER_CLOUD)
    headers = {"X-Auth-Token": token}
    assert httpx.get(served.url(project), headers=headers).status_code == 200
    resp = httpx.post(served.url(project), headers=headers,
                      json={"stack_name": "no", "template": TEMPLATE})
    assert resp.status_code == 403, resp.text
    assert resp.json()["error"] == {
        "type": "Forbidden", "message": "You are not authorized to use stacks:create.",
        "traceback": None}


def test_a_member_sees_no_other_projects_stacks(served: Served) -> None:
    token, project = _login(served.cloud, served.cloud.user)
    alt_token, alt_project = _login(served.cloud, ALT_CLOUD)
    mine = httpx.post(served.url(project), headers={"X-Auth-Token": token},
                      json={"stack_name": f"mine-{uuid.uuid4().hex[:8]}",
                            "template": TEMPLATE})
    assert mine.status_code == 201, mine.text
    stack = mine.json()["stack"]
    try:
        alt = {"X-Auth-Token": alt_token}
        listed = httpx.get(served.url(alt_project), headers=alt).json()["stacks"]
        assert stack["id"] not in [s["id"] for s in listed]
        refused = httpx.get(served.url(project), headers=alt)
        assert refused.status_code == 403
        assert refused.json()["error"]["type"] == "HTTPForbidden"
        by_id = httpx.get(served.url(alt_project, f"/stacks/x/{stack['id']}"), headers=alt)
        assert by_id.status_code == 404, by_id.text
    finally:
        httpx.delete(served.url(project, f"/stacks/x/{stack['id']}"),
                     headers={"X-Auth-Token": token})


@pytest.fixture
def stack_user(served: Served, admin_conn: Any) -> Iterator[str]:
    """A user holding only heat_stack_user in the test user's project; its name."""
    _, project = _login(served.cloud, served.cloud.user)
    name = f"ks-stack-user-{uuid.uuid4().hex[:8]}"
    user = admin_conn.identity.create_user(name=name, password=SERVICE_PASSWORD,
                                           domain_id="default", default_project_id=project)
    try:
        role = admin_conn.identity.find_role("heat_stack_user", ignore_missing=False)
        admin_conn.identity.assign_project_role_to_user(project, user, role)
        yield name
    finally:
        admin_conn.identity.delete_user(user)


def test_a_stack_user_is_refused_what_heat_refuses_it(served: Served, stack_user: str) -> None:
    owner_token, project = _login(served.cloud, served.cloud.user)
    made = httpx.post(served.url(project), headers={"X-Auth-Token": owner_token},
                      json={"stack_name": f"su-{uuid.uuid4().hex[:8]}", "template": TEMPLATE})
    assert made.status_code == 201, made.text
    stack = made.json()["stack"]
    try:
        issued = httpx.post(f"{served.cloud.auth_url}/auth/tokens", json={"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": stack_user, "domain": {"id": "default"},
                "password": SERVICE_PASSWORD}}},
            "scope": {"project": {"id": project}}}})
        assert issued.status_code == 201, issued.text
        headers = {"X-Auth-Token": issued.headers["x-subject-token"]}
        base = f"/stacks/x/{stack['id']}"
        for path, rule in (("/stacks", "stacks:index"), (base, "stacks:show"),
                           (base + "/resources", "resource:index"),
                           (base + "/events", "events:index")):
            resp = httpx.get(served.url(project, path), headers=headers)
            assert resp.status_code == 403, (path, resp.text)
            assert resp.json()["error"]["message"] == f"You are not authorized to use {rule}."
        created = httpx.post(served.url(project), headers=headers,
                             json={"stack_name": "nope", "template": TEMPLATE})
        assert created.status_code == 403
        metadata = httpx.get(served.url(project, "/software_deployments/metadata/srv"),
                             headers=headers)
        assert metadata.status_code == 200, metadata.text
    finally:
        httpx.delete(served.url(project, f"/stacks/x/{stack['id']}"),
                     headers={"X-Auth-Token": owner_token})


def test_slow_validations_hold_up_no_other_request(served: Served) -> None:
    tokens = [_login(served.cloud, served.cloud.user) for _ in range(4)]

    async def scenario() -> tuple[float, list[float], list[int]]:
        async with httpx.AsyncClient(timeout=60) as client:
            async def timed(method: str, url: str, **kwargs: Any) -> tuple[float, int]:
                start = time.monotonic()
                resp = await client.request(method, url, **kwargs)
                return time.monotonic() - start, resp.status_code

            slow = [asyncio.create_task(timed("GET", served.url(p),
                                              headers={"X-Auth-Token": t}))
                    for t, p in tokens]
            await asyncio.sleep(0.3)
            quick, _ = await timed("GET", f"http://127.0.0.1:{PORT}/")
            done = await asyncio.gather(*slow)
            return quick, [d for d, _ in done], [s for _, s in done]

    served.proxy.delay = 2.0
    try:
        quick, durations, statuses = asyncio.run(scenario())
    finally:
        served.proxy.delay = 0.0
    assert statuses == [200] * 4
    assert quick < 1.0, quick
    assert max(durations) < 5.0, durations  # side by side: 4 x 2 s would be 8 s


def test_no_token_or_password_in_the_log(served: Served) -> None:
    token, project = _login(served.cloud, served.cloud.user)
    assert httpx.get(served.url(project), headers={"X-Auth-Token": token}).status_code == 200
    httpx.get(served.url(project), headers={"X-Auth-Token": token[:-4] + "AAAA"})
    text = served.log.read_text()
    assert "keystonemiddleware" in text or "auth_token" in text  # debug logging was on
    assert token not in text and token[:-4] not in text
    assert f"password = {SERVICE_PASSWORD}" not in text
    assert f'"password": "{SERVICE_PASSWORD}"' not in text
