"""The web view's login against the project's real Keystone (``hotplate serve --auth
keystone``): a user's password is traded for a Keystone token, the session cookie then
stands for it on ``/v1`` with Heat's policy and the session's CSRF value, and a reader
may look but not change. Every stack a test makes, it deletes."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cloud.locate import Cloud
from tests.cloud.serving import PORT, Serving, keystone_serve

READER = "hotplate-demo-reader"
BASE = f"http://127.0.0.1:{PORT}"
TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"nothing": {"type": "OS::Heat::None"}}}


def _password_login(cloud: Cloud, name: str) -> dict[str, str]:
    """The login form's fields for the clouds.yaml's user ``name``."""
    import openstack.config

    files = [cloud.config_file] if cloud.config_file else None
    auth = openstack.config.OpenStackConfig(config_files=files).get_one(
        cloud=name).config["auth"]
    return {"username": auth["username"], "password": auth["password"],
            "project_name": auth["project_name"],
            "user_domain_name": auth.get("user_domain_name") or "Default",
            "project_domain_name": auth.get("project_domain_name") or "Default"}


@pytest.fixture(scope="module")
def serving(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    with keystone_serve(cloud, Path(tmp_path_factory.mktemp("ui-keystone"))) as served:
        yield served


def _logged_in(cloud: Cloud, name: str) -> tuple[httpx.Client, dict[str, Any]]:
    client = httpx.Client(base_url=BASE, timeout=60)
    answer = client.post("/ui/session", json=_password_login(cloud, name))
    assert answer.status_code == 200, answer.text
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    return client, answer.json()


def _wait_deleted(client: httpx.Client, url: str) -> None:
    """Until the stack reads DELETE_COMPLETE (a deleted stack still shows by its id)."""
    deadline = time.monotonic() + 120
    while True:
        shown = client.get(url)
        if shown.status_code == 404 or shown.json()["stack"]["stack_status"] == "DELETE_COMPLETE":
            return
        assert time.monotonic() < deadline, shown.json()["stack"]["stack_status"]
        time.sleep(0.5)


def test_a_member_logs_in_with_a_password_and_changes_stacks_with_the_csrf_value(
        cloud: Cloud, serving: Serving) -> None:
    client, session = _logged_in(cloud, cloud.user)
    with closing(client):
        assert session["auth"] == "keystone" and session["can_apply"] is True
        project = session["project_id"]
        assert client.get("/ui/session").json()["user"] == session["user"]
        assert client.get(f"/v1/{project}/stacks").status_code == 200

        name = f"ui-{uuid.uuid4().hex[:8]}"
        body = {"stack_name": name, "template": TEMPLATE}
        refused = client.post(f"/v1/{project}/stacks", json=body)
        assert refused.status_code == 403 and "CSRF" in refused.text
        csrf = {"X-CSRF-Token": session["csrf_token"]}
        made = client.post(f"/v1/{project}/stacks", json=body, headers=csrf)
        assert made.status_code == 201, made.text
        url = f"/v1/{project}/stacks/{name}/{made.json()['stack']['id']}"
        try:
            assert client.get(url).json()["stack"]["stack_name"] == name
        finally:
            assert client.delete(url, headers=csrf).status_code == 204
            _wait_deleted(client, url)

        assert client.request("DELETE", "/ui/session", headers=csrf).status_code == 204
        client.cookies.clear()
        assert client.get("/ui/session").status_code == 401


def test_a_reader_sees_but_may_not_create(cloud: Cloud, serving: Serving) -> None:
    client, session = _logged_in(cloud, READER)
    with closing(client):
        assert session["can_apply"] is False and "reader" in session["roles"]
        project = session["project_id"]
        assert client.get(f"/v1/{project}/stacks").status_code == 200
        refused = client.post(f"/v1/{project}/stacks", headers={
            "X-CSRF-Token": session["csrf_token"]},
            json={"stack_name": f"ui-{uuid.uuid4().hex[:8]}", "template": TEMPLATE})
        assert refused.status_code == 403, refused.text


def test_a_wrong_password_is_refused(cloud: Cloud, serving: Serving) -> None:
    wrong = {**_password_login(cloud, cloud.user), "password": "not-the-password"}
    answer = httpx.post(f"{BASE}/ui/session", json=wrong, timeout=60)
    assert answer.status_code == 401 and "set-cookie" not in answer.headers
