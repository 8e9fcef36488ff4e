"""The web view's login against the project's real Keystone (``hotplate serve --auth
keystone``): a user's password is traded for a Keystone token, or a token Keystone issued
is given as it is; the session cookie then stands for it on ``/v1`` with Heat's policy
and the session's CSRF value, lives no longer than the token, and a reader may look but
not change. Without a session the server says it takes Keystone's login. Every stack a
test makes, it deletes."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
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


def password_login(cloud: Cloud, name: str) -> dict[str, str]:
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


def _keystone_token(cloud: Cloud, name: str) -> Any:
    """A token Keystone issues to clouds.yaml's user ``name`` (keystoneauth's AccessInfo:
    the token, its user, project, roles and expiry as Keystone gave them)."""
    conn = cloud.connect(name)
    with closing(conn):
        return conn.session.auth.get_access(conn.session)


def _max_age(answer: httpx.Response) -> int:
    return int(answer.headers["set-cookie"].split("Max-Age=")[1].split(";")[0])


def _logged_in(cloud: Cloud, name: str) -> tuple[httpx.Client, dict[str, Any]]:
    client = httpx.Client(base_url=BASE, timeout=60)
    answer = client.post("/ui/session", json=password_login(cloud, name))
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
        keystone = _keystone_token(cloud, cloud.user)
        assert (session["user"], session["project_id"]) == (
            password_login(cloud, cloud.user)["username"], keystone.project_id)
        assert set(session["roles"]) == set(keystone.role_names)
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
        assert session["can_apply"] is False
        # The roles are those Keystone put in the reader's token: reader, nothing more.
        assert sorted(session["roles"]) == sorted(_keystone_token(cloud, READER).role_names) \
            == ["reader"]
        project = session["project_id"]
        assert client.get(f"/v1/{project}/stacks").status_code == 200
        refused = client.post(f"/v1/{project}/stacks", headers={
            "X-CSRF-Token": session["csrf_token"]},
            json={"stack_name": f"ui-{uuid.uuid4().hex[:8]}", "template": TEMPLATE})
        assert refused.status_code == 403, refused.text


def test_a_wrong_password_or_a_partial_body_is_refused(cloud: Cloud, serving: Serving) -> None:
    fields = password_login(cloud, cloud.user)
    wrong = {**fields, "password": "not-the-password"}
    answer = httpx.post(f"{BASE}/ui/session", json=wrong, timeout=60)
    assert answer.status_code == 401 and "set-cookie" not in answer.headers
    assert "refused" in answer.json()["error"]
    partial = httpx.post(f"{BASE}/ui/session", json={"username": fields["username"]},
                         timeout=60)
    assert partial.status_code == 400 and "set-cookie" not in partial.headers


def test_a_keystone_token_logs_in_and_the_cookie_ends_with_it(cloud: Cloud,
                                                              serving: Serving) -> None:
    access = _keystone_token(cloud, cloud.user)
    before = time.time()
    with closing(httpx.Client(base_url=BASE, timeout=60)) as client:
        answer = client.post("/ui/session", json={"token": access.auth_token})
        after = time.time()
        assert answer.status_code == 200, answer.text
        session = answer.json()
        assert session["auth"] == "keystone" and session["can_apply"] is True
        assert session["project_id"] == access.project_id
        assert set(session["roles"]) == set(access.role_names)
        # The cookie lives until the token ends ([ui] session_lifetime, 12 hours, at most).
        ends = access.expires.timestamp()
        assert min(ends - after, 43200) - 2 <= _max_age(answer) <= min(ends - before, 43200)
        shown = datetime.fromisoformat(session["expires_at"].replace("Z", "+00:00"))
        assert abs(shown.timestamp() - min(ends, before + 43200)) < 2, (shown, access.expires)
        assert client.get(f"/v1/{access.project_id}/stacks").status_code == 200


def test_without_a_session_the_refusal_names_the_keystone_login(serving: Serving) -> None:
    answer = httpx.get(f"{BASE}/ui/session", timeout=60)
    assert answer.status_code == 401 and "set-cookie" not in answer.headers
    assert answer.json()["auth"] == "keystone"
    assert httpx.get(f"{BASE}/v1/any/stacks", cookies={"hotplate_ui": "not-a-session"},
                     timeout=60).status_code == 401
