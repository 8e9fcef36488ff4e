"""Sessions across API processes that share the key, and Keystone logins: a token, or
a user's password traded for one at a Keystone (here a small stand-in speaking
Keystone's v3 API, its tokens validated by keystonemiddleware's real filter)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import embedded
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from hotplate.ui import event_stream
from hotplate.ui.routes import UiOptions
from hotplate.ui.session import COOKIE, SessionCodec, derive_key
from tests.api.keystone_support import TokenTable, keystone_tokens
from tests.ui_server.conftest import client, codec
from tests.ui_server.sse import Stream

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def engine_rpc(tmp_path: Path) -> Iterator[tuple[EngineRpc, str]]:
    url = f"sqlite:///{tmp_path / 'hotplate.sqlite'}"
    engine, transport = embedded(url, workers=4)
    try:
        yield EngineRpc(transport, host=engine.deps.host), url
    finally:
        engine.stop()
        transport.stop()


def test_a_revoked_token_ends_its_open_stream(engine_rpc: tuple[EngineRpc, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_stream, "KEEPALIVE_SECS", 0.5)
    rpc, url = engine_rpc
    store = AuthStore(make_engine(url, pool_size=2))
    token = store.create_token("revoked", "member")
    app = create_app(rpc, auth=store, ui=UiOptions(codec=codec()))
    with BackgroundServer(app) as base:
        web = client(base)
        csrf = web.post("/ui/session", json={"token": token}).json()["csrf_token"]
        made = web.post("/v1/revoked/stacks", headers={"X-CSRF-Token": csrf}, json={
            "stack_name": "s", "template": {"heat_template_version": "2015-10-15"}})
        assert made.status_code == 201, made.text
        page = Stream(httpx.Client(base_url=base, cookies=web.cookies),
                      f"/ui/stream/revoked/stacks/{made.json()['stack']['id']}").start()
        try:
            page.wait_for(lambda: any(f.comment == ": keepalive" for f in page.frames))
            assert not page.ended.is_set()
            assert store.revoke_token(token)
            assert page.ended.wait(10)
        finally:
            page.stop()
        assert app.state.ui_streams.watching() == 0


def test_every_api_process_with_the_key_accepts_the_session(
        engine_rpc: tuple[EngineRpc, str]) -> None:
    rpc, url = engine_rpc
    store = AuthStore(make_engine(url, pool_size=2))
    token = store.create_token("shared", "member")
    apps = [create_app(rpc, auth=store, ui=UiOptions(codec=codec())) for _ in range(2)]
    stranger = create_app(rpc, auth=store,
                          ui=UiOptions(codec=SessionCodec(derive_key("not the key"))))
    with ExitStack() as stack:
        first, second, other = (stack.enter_context(BackgroundServer(app))
                                for app in (*apps, stranger))
        login = client(first)
        body = login.post("/ui/session", json={"token": token}).json()
        cookie = {COOKIE: login.cookies[COOKIE]}
        on_second = httpx.Client(base_url=second, cookies=cookie)
        stack.callback(on_second.close)
        assert on_second.get("/ui/session").json() == body
        made = on_second.post("/v1/shared/stacks", headers={"X-CSRF-Token": body["csrf_token"]},
                              json={"stack_name": "s", "template": {
                                  "heat_template_version": "2015-10-15"}})
        assert made.status_code == 201, made.text
        on_other = httpx.Client(base_url=other, cookies=cookie)
        stack.callback(on_other.close)
        assert on_other.get("/ui/session").status_code == 401
        assert on_other.get("/v1/shared/stacks").status_code == 401


class FakeKeystone(BaseHTTPRequestHandler):
    """Keystone's v3 version document and password authentication, nothing else."""

    table: TokenTable
    users = {"alice": ("wonderland", "proj-a", ["member", "reader"]),
             "rita": ("reads", "proj-a", ["reader"])}

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        base = f"http://{self.headers['Host']}/v3/"
        self._reply(200, {"version": {"id": "v3.14", "status": "stable",
                                      "links": [{"rel": "self", "href": base}],
                                      "media-types": []}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["auth"]["identity"]["password"]["user"]
        project = body["auth"]["scope"]["project"]
        known = self.users.get(user["name"])
        if known is None or known[0] != user["password"] or project["name"] != known[1]:
            self._reply(401, {"error": {"code": 401, "message": "The request you have made "
                                        "requires authentication.", "title": "Unauthorized"}})
            return
        token = self.table.issue(known[1], known[2], user=user["name"], expires_in=600)
        self._reply(201, self.table.bodies[token], {"X-Subject-Token": token})


@pytest.fixture
def keystone(tmp_path: Path,
             engine_rpc: tuple[EngineRpc, str]) -> Iterator[tuple[str, TokenTable]]:
    table = TokenTable()
    handler = type("Handler", (FakeKeystone,), {"table": table})
    fake = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    tokens = keystone_tokens(table, tmp_path)
    tokens.auth_url = f"http://127.0.0.1:{fake.server_address[1]}/v3"
    app = create_app(engine_rpc[0], auth=tokens, ui=UiOptions(codec=codec()))
    try:
        with BackgroundServer(app) as base:
            yield base, table
    finally:
        fake.shutdown()
        fake.server_close()


def test_a_keystone_token_logs_in(keystone: tuple[str, TokenTable]) -> None:
    base, table = keystone
    token = table.issue("proj-k", ["member", "reader"], expires_in=120)
    web = client(base)
    answer = web.post("/ui/session", json={"token": token})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["auth"] == "keystone" and body["user"] == "alice"
    assert body["project_id"] == "proj-k" and body["can_apply"] is True
    max_age = int(answer.headers["set-cookie"].split("Max-Age=")[1].split(";")[0])
    assert 100 <= max_age <= 120  # the token's expiry bounds the cookie
    assert web.get("/v1/proj-k/stacks").status_code == 200
    assert web.post("/v1/proj-k/stacks", json={}).status_code == 403  # no csrf
    refused = client(base).post("/ui/session", json={"token": "gAAAAunknown"})
    assert refused.status_code == 401
    stack_user = client(base)
    assert stack_user.post("/ui/session", json={
        "token": table.issue("proj-k", ["heat_stack_user"])}).json()["can_apply"] is False
    denied = stack_user.get("/ui/stream/proj-k/stacks/any")
    assert denied.status_code == 403 and "events:index" in denied.json()["error"]


def test_a_keystone_password_logs_in(keystone: tuple[str, TokenTable]) -> None:
    base, _ = keystone
    web = client(base)
    answer = web.post("/ui/session", json={
        "username": "alice", "password": "wonderland", "project_name": "proj-a",
        "user_domain_name": "Default", "project_domain_name": "Default"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["user"] == "alice" and answer.json()["project_id"] == "proj-a"
    assert web.get("/ui/session").status_code == 200
    assert web.get("/v1/proj-a/stacks").status_code == 200
    reader = client(base)
    body = reader.post("/ui/session", json={"username": "rita", "password": "reads",
                                            "project_name": "proj-a"}).json()
    assert body["roles"] == ["reader"] and body["can_apply"] is False
    wrong = client(base).post("/ui/session", json={"username": "alice", "password": "no",
                                                   "project_name": "proj-a"})
    assert wrong.status_code == 401 and "refused" in wrong.json()["error"]
    partial = client(base).post("/ui/session", json={"username": "alice"})
    assert partial.status_code == 400
