"""``--auth keystone``: tokens validated by keystonemiddleware's auth_token in the API.

The filter is keystonemiddleware's own; only its way to Keystone answers from a table
(``keystone_support``). What the engine receives is Heat's context.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import embedded
from tests.api.helpers import value_template
from tests.api.keystone_support import TokenTable, keystone_tokens


class RecordingRpc(EngineRpc):
    """The engine topic, noting each call's context."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.contexts: list[tuple[str, dict[str, Any]]] = []

    def call(self, ctxt: Mapping[str, Any], method: str, **kwargs: Any) -> Any:
        self.contexts.append((method, dict(ctxt)))
        return super().call(ctxt, method, **kwargs)


@dataclass
class KeystoneApi:
    base: str
    table: TokenTable
    rpc: RecordingRpc

    def url(self, project: str, path: str = "/stacks") -> str:
        return f"{self.base}/v1/{project}{path}"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KeystoneApi]:
    tmp = Path(tmp_path_factory.mktemp("ks-tokens"))
    engine, transport = embedded(f"sqlite:///{tmp / 'hotplate.sqlite'}", workers=4)
    rpc = RecordingRpc(transport, host=engine.deps.host)
    table = TokenTable()
    app = create_app(rpc, auth=keystone_tokens(table, tmp))
    try:
        with BackgroundServer(app) as base:
            yield KeystoneApi(base, table, rpc)
    finally:
        engine.stop()
        transport.stop()


def _refused_by_filter(resp: httpx.Response) -> None:
    """keystonemiddleware's own 401, as heat-api's callers get it."""
    assert resp.status_code == 401, resp.text
    assert resp.json() == {"error": {
        "code": 401, "title": "Unauthorized",
        "message": "The request you have made requires authentication."}}
    assert resp.headers["www-authenticate"] == 'Keystone uri="http://keystone.invalid:5000/v3"'


def test_no_unknown_or_expired_token_is_the_filters_401(api: KeystoneApi) -> None:
    _refused_by_filter(httpx.get(api.url("p1")))
    _refused_by_filter(httpx.get(api.url("p1"), headers={"X-Auth-Token": "not-a-token"}))
    expired = api.table.issue("p1", ["member", "reader"], expires_in=-5)
    _refused_by_filter(httpx.get(api.url("p1"), headers={"X-Auth-Token": expired}))


def test_identity_headers_sent_by_the_caller_count_for_nothing(api: KeystoneApi) -> None:
    forged = {"X-Identity-Status": "Confirmed", "X-Project-Id": "p1", "X-Roles": "admin",
              "X-Auth-Token": "forged"}
    _refused_by_filter(httpx.get(api.url("p1"), headers=forged))
    reader = api.table.issue("p1", ["reader"])
    resp = httpx.post(api.url("p1"), headers={**forged, "X-Auth-Token": reader},
                      json={"stack_name": "forged", "template": value_template()})
    assert resp.status_code == 403, resp.text  # the token's roles, not the header's
    assert resp.json()["error"]["message"] == "You are not authorized to use stacks:create."


def test_versions_need_no_token(api: KeystoneApi) -> None:
    assert httpx.get(f"{api.base}/").status_code == 300


def test_the_engine_gets_heats_context(api: KeystoneApi) -> None:
    token = api.table.issue("p-ctx", ["member", "reader", "heat_stack_owner"], user="carol")
    global_id = "req-0b3ec2e2-7a6c-4a38-9b43-4d0f1b3c9e6a"
    headers = {"X-Auth-Token": token, "X-Region-Name": "RegionOne",
               "X-OpenStack-Request-ID": global_id}
    api.rpc.contexts.clear()
    created = httpx.post(api.url("p-ctx"), headers=headers,
                         json={"stack_name": "ctx", "template": value_template()})
    assert created.status_code == 201, created.text
    ctxt = next(c for m, c in api.rpc.contexts if m == "create_stack")
    assert ctxt["auth_token"] == token
    assert ctxt["auth_token_info"]["token"]["catalog"][0]["type"] == "orchestration"
    assert ctxt["auth_token_info"]["token"]["project"]["id"] == "p-ctx"
    assert (ctxt["user_id"], ctxt["user"], ctxt["username"]) == ("carol-id", "carol-id", "carol")
    assert ctxt["user_domain_id"] == ctxt["project_domain_id"] == "default"
    assert ctxt["project_id"] == ctxt["tenant_id"] == ctxt["tenant"] == "p-ctx"
    assert ctxt["project_name"] == "p-ctx-name"
    assert sorted(ctxt["roles"]) == ["heat_stack_owner", "member", "reader"]
    assert ctxt["is_admin"] is False
    assert ctxt["region_name"] == "RegionOne"
    assert ctxt["auth_url"] == "http://keystone.invalid:5000/v3"
    assert ctxt["request_id"].startswith("req-") and ctxt["request_id"] != global_id
    assert ctxt["global_request_id"] == global_id
    assert ctxt["trust_id"] is None and ctxt["password"] is None


def test_a_token_is_validated_once_then_cached(api: KeystoneApi) -> None:
    token = api.table.issue("p-cache", ["reader"])
    for _ in range(5):
        assert httpx.get(api.url("p-cache"), headers={"X-Auth-Token": token}).status_code == 200
    assert api.table.asked.count(token) == 1


def test_another_projects_url_is_heats_403(api: KeystoneApi) -> None:
    token = api.table.issue("p-a", ["member", "reader"])
    resp = httpx.get(api.url("p-b"), headers={"X-Auth-Token": token})
    assert resp.status_code == 403
    assert resp.json()["error"] == {"type": "HTTPForbidden",
                                    "message": "Access was denied to this resource.",
                                    "traceback": None}


def test_a_cloud_admin_acts_in_its_own_project(api: KeystoneApi) -> None:
    admin = api.table.issue("p-admin", ["admin", "member", "reader"])
    api.rpc.contexts.clear()
    created = httpx.post(api.url("p-elsewhere"), headers={"X-Auth-Token": admin},
                         json={"stack_name": "adm", "template": value_template()})
    assert created.status_code == 201, created.text
    assert "/v1/p-admin/stacks/adm/" in created.json()["stack"]["links"][0]["href"]
    ctxt = next(c for m, c in api.rpc.contexts if m == "create_stack")
    assert ctxt["is_admin"] is True and ctxt["project_id"] == "p-admin"
    # The admin role outside Keystone's admin project is a project's admin only.
    local = api.table.issue("p-local", ["admin", "member", "reader"], is_admin_project=False)
    assert httpx.get(api.url("p-elsewhere"), headers={"X-Auth-Token": local}).status_code == 403
    assert httpx.get(api.url("p-local"), headers={"X-Auth-Token": local}).status_code == 200


def test_validation_does_not_block_the_event_loop(api: KeystoneApi) -> None:
    """While Keystone takes a second per token, other requests are answered at once,
    and several validations run side by side."""
    tokens = [api.table.issue("p-slow", ["reader"]) for _ in range(4)]

    async def scenario() -> tuple[float, list[float], list[int]]:
        async with httpx.AsyncClient(timeout=30) as client:
            async def timed(coro: Any) -> tuple[float, int]:
                start = time.monotonic()
                resp = await coro
                return time.monotonic() - start, resp.status_code

            slow = [asyncio.create_task(timed(client.get(
                api.url("p-slow"), headers={"X-Auth-Token": t}))) for t in tokens]
            await asyncio.sleep(0.2)  # the validations are under way
            quick, _ = await timed(client.get(f"{api.base}/"))
            done = await asyncio.gather(*slow)
            return quick, [d for d, _ in done], [s for _, s in done]

    api.table.delay = 1.0
    try:
        quick, durations, statuses = asyncio.run(scenario())
    finally:
        api.table.delay = 0.0
    assert statuses == [200] * 4
    assert quick < 0.5, quick
    assert max(durations) < 2.5, durations  # side by side, not one after another
