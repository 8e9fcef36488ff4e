"""Sessions across API processes that share the key, a revoked token ending its open
stream, and a Keystone token's login (keystonemiddleware's real filter, asking a table
of token bodies). A user's password traded for a token at the real Keystone is
``tests/cloud/test_ui_keystone_login.py``'s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

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


@pytest.fixture
def keystone(tmp_path: Path,
             engine_rpc: tuple[EngineRpc, str]) -> Iterator[tuple[str, TokenTable]]:
    """A Keystone-mode app whose tokens are checked by keystonemiddleware's filter
    against a table of token bodies."""
    table = TokenTable()
    app = create_app(engine_rpc[0], auth=keystone_tokens(table, tmp_path),
                     ui=UiOptions(codec=codec()))
    with BackgroundServer(app) as base:
        yield base, table


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
