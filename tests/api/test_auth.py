"""Token authentication: 401 without a valid token, 403 outside the token's project
or for a reader's writes, admins anywhere; heatclient works with a real token."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer, free_port
from hotplate.app import embedded
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from tests.api.helpers import value_template, wait_status


@dataclass
class AuthApi:
    base: str
    tokens: dict[str, str]
    """admin (project admin), a / b (members of A / B), a_reader (reader of A)."""

    def endpoint(self, project: str) -> str:
        return f"{self.base}/v1/{project}"

    def client(self, project: str, token: str) -> Any:
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint(project), token=token)


@pytest.fixture(scope="module")
def auth_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthApi]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('auth')) / 'hotplate.sqlite'}"
    engine, transport = embedded(url, workers=8)  # migrates the database
    db = make_engine(url, pool_size=4)
    store = AuthStore(db)
    tokens = {
        "admin": store.create_token("admin", "admin"),
        "a": store.create_token("A", "member"),
        "b": store.create_token("B", "member"),
        "a_reader": store.create_token("A", "reader"),
    }
    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=store)
    try:
        with BackgroundServer(app) as base:
            yield AuthApi(base, tokens)
    finally:
        engine.stop()
        transport.stop()
        db.dispose()


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as client:
        yield client


def _fault(resp: httpx.Response, status: int, error_type: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body: dict[str, Any] = resp.json()
    assert body["code"] == status
    assert body["title"] and body["explanation"]
    assert body["error"]["type"] == error_type
    assert body["error"]["message"]
    assert body["error"]["traceback"] is None
    return body


def _create(http: httpx.Client, api: AuthApi, project: str, token: str,
            name: str) -> httpx.Response:
    return http.post(f"{api.endpoint(project)}/stacks", headers={"X-Auth-Token": token},
                     json={"stack_name": name, "template": value_template()})


def test_no_token_is_401(auth_api: AuthApi, http: httpx.Client) -> None:
    body = _fault(http.get(f"{auth_api.endpoint('A')}/stacks"), 401, "HTTPUnauthorized")
    assert body["title"] == "Unauthorized"
    _fault(http.post(f"{auth_api.endpoint('A')}/stacks", json={}), 401, "HTTPUnauthorized")


def test_unknown_token_is_401(auth_api: AuthApi, http: httpx.Client) -> None:
    resp = http.get(f"{auth_api.endpoint('A')}/stacks", headers={"X-Auth-Token": "nope"})
    _fault(resp, 401, "HTTPUnauthorized")


def test_versions_need_no_token(auth_api: AuthApi, http: httpx.Client) -> None:
    resp = http.get(f"{auth_api.base}/")
    assert resp.status_code == 300
    assert resp.json()["versions"][0]["id"] == "v1.0"


def test_token_of_another_project_is_403(auth_api: AuthApi, http: httpx.Client) -> None:
    headers = {"X-Auth-Token": auth_api.tokens["a"]}
    _fault(http.get(f"{auth_api.endpoint('B')}/stacks", headers=headers), 403, "Forbidden")
    _fault(_create(http, auth_api, "B", auth_api.tokens["a"], "intruder"), 403, "Forbidden")


def test_a_project_does_not_see_another_projects_stacks(auth_api: AuthApi,
                                                        http: httpx.Client) -> None:
    assert _create(http, auth_api, "B", auth_api.tokens["b"], "b_private").status_code == 201
    mine = http.get(f"{auth_api.endpoint('A')}/stacks",
                    headers={"X-Auth-Token": auth_api.tokens["a"]})
    assert mine.status_code == 200
    assert [s["stack_name"] for s in mine.json()["stacks"]] == []
    theirs = http.get(f"{auth_api.endpoint('B')}/stacks",
                      headers={"X-Auth-Token": auth_api.tokens["b"]})
    assert "b_private" in [s["stack_name"] for s in theirs.json()["stacks"]]
    # Nor by name under its own URL.
    shown = http.get(f"{auth_api.endpoint('A')}/stacks/b_private",
                     headers={"X-Auth-Token": auth_api.tokens["a"]})
    _fault(shown, 404, "EntityNotFound")


def test_reader_reads_but_does_not_write(auth_api: AuthApi, http: httpx.Client) -> None:
    assert _create(http, auth_api, "A", auth_api.tokens["a"], "a_shared").status_code == 201
    reader = {"X-Auth-Token": auth_api.tokens["a_reader"]}
    listed = http.get(f"{auth_api.endpoint('A')}/stacks", headers=reader)
    assert listed.status_code == 200
    assert "a_shared" in [s["stack_name"] for s in listed.json()["stacks"]]
    shown = http.get(f"{auth_api.endpoint('A')}/stacks/a_shared", headers=reader,
                     follow_redirects=True)
    assert shown.status_code == 200
    assert shown.json()["stack"]["stack_name"] == "a_shared"
    _fault(_create(http, auth_api, "A", auth_api.tokens["a_reader"], "nope"), 403,
           "Forbidden")
    stack_url = shown.json()["stack"]["links"][0]["href"]
    _fault(http.delete(stack_url, headers=reader), 403, "Forbidden")


def test_admin_passes_any_url_and_acts_in_its_own_project(
    auth_api: AuthApi, http: httpx.Client
) -> None:
    """Heat: an admin is exempt from the URL check; its own project replaces the URL's."""
    admin = {"X-Auth-Token": auth_api.tokens["admin"]}
    created_b = _create(http, auth_api, "B", auth_api.tokens["b"], "b_for_admin")
    assert created_b.status_code == 201
    created = _create(http, auth_api, "B", auth_api.tokens["admin"], "made_by_admin")
    assert created.status_code == 201  # no 403 for the admin on /v1/B
    listed = http.get(f"{auth_api.endpoint('B')}/stacks", headers=admin)
    assert listed.status_code == 200
    names = [s["stack_name"] for s in listed.json()["stacks"]]
    assert "made_by_admin" in names and "b_for_admin" not in names
    theirs = http.get(f"{auth_api.endpoint('B')}/stacks",
                      headers={"X-Auth-Token": auth_api.tokens["b"]})
    assert "made_by_admin" not in [s["stack_name"] for s in theirs.json()["stacks"]]
    # By id, an admin sees any project's stack.
    b_id = created_b.json()["stack"]["id"]
    shown = http.get(f"{auth_api.endpoint('B')}/stacks/{b_id}", headers=admin,
                     follow_redirects=True)
    assert shown.status_code == 200
    assert shown.json()["stack"]["stack_name"] == "b_for_admin"


def test_heatclient_with_a_real_token(auth_api: AuthApi) -> None:
    hc = auth_api.client("A", auth_api.tokens["a"])
    hc.stacks.create(stack_name="via_heatclient", template=value_template("hej"))
    stack = wait_status(hc, "via_heatclient")
    assert stack.stack_status == "CREATE_COMPLETE"
    assert hc.stacks.output_show("via_heatclient", "message")["output"]["output_value"] == \
        "hej, world"


def test_heatclient_with_a_bad_token_is_refused(auth_api: AuthApi) -> None:
    from heatclient import exc

    with pytest.raises(exc.HTTPUnauthorized):
        auth_api.client("A", "not-a-token").stacks.list().__next__()


def test_serve_issues_an_admin_token_on_first_start(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--data-dir", str(tmp_path / "var")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        endpoint = f"http://127.0.0.1:{port}/v1/admin"
        assert proc.stdout.readline().strip() == f"hotplate API at {endpoint}"
        assert "admin token" in proc.stdout.readline()
        words = proc.stdout.readline().split()
        assert words[:3] == ["openstack", "--os-auth-type", "admin_token"]
        assert words[3] == "--os-token" and words[5:] == ["--os-endpoint", endpoint,
                                                          "stack", "list"]
        token = words[4]
        deadline = time.monotonic() + 20
        while True:
            try:
                resp = httpx.get(f"{endpoint}/stacks", headers={"X-Auth-Token": token},
                                 timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "hotplate serve did not start"
                time.sleep(0.05)
        assert resp.status_code == 200, resp.text
        assert httpx.get(f"{endpoint}/stacks", timeout=5).status_code == 401
    finally:
        proc.terminate()
        proc.wait(20)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def test_token_create_prints_a_token_that_works(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from hotplate.cli.main import main

    data_dir = str(tmp_path / "var")
    assert main(["token", "create", "--project", "P", "--role", "reader",
                 "--data-dir", data_dir]) == 0
    token = capsys.readouterr().out.strip()
    db = make_engine(f"sqlite:///{tmp_path / 'var' / 'hotplate.sqlite'}", pool_size=1)
    try:
        assert AuthStore(db).authenticate(token) == ("P", "reader")
    finally:
        db.dispose()
