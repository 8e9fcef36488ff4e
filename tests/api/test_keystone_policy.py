"""Heat's API policy defaults: reader, member, admin, and the stack user's few routes.

Through keystonemiddleware's auth_token (its way to Keystone answering from a table),
and the table itself against every route the API serves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api import EngineRpc, create_app, policy
from hotplate.api.background import BackgroundServer
from hotplate.app import embedded
from tests.api.helpers import value_template
from tests.api.keystone_support import TokenTable, keystone_tokens

MEMBER = ["member", "reader"]  # Keystone's implied roles are in a token's list
ADMIN = ["admin", "member", "reader"]


@dataclass
class Policed:
    base: str
    table: TokenTable
    stack: str
    """/stacks/<name>/<id> of a stack of project p1 with a resource 'source'."""

    def get(self, token: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(f"{self.base}/v1/p1{path}", headers={"X-Auth-Token": token},
                         follow_redirects=False, **kwargs)

    def post(self, token: str, path: str, body: Any) -> httpx.Response:
        return httpx.post(f"{self.base}/v1/p1{path}", headers={"X-Auth-Token": token},
                          json=body, follow_redirects=False)


@pytest.fixture(scope="module")
def policed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Policed]:
    tmp = Path(tmp_path_factory.mktemp("ks-policy"))
    engine, transport = embedded(f"sqlite:///{tmp / 'hotplate.sqlite'}", workers=4)
    table = TokenTable()
    app = create_app(EngineRpc(transport, host=engine.deps.host),
                     auth=keystone_tokens(table, tmp))
    try:
        with BackgroundServer(app) as base:
            member = table.issue("p1", MEMBER)
            created = httpx.post(f"{base}/v1/p1/stacks", headers={"X-Auth-Token": member},
                                 json={"stack_name": "pol", "template": value_template()})
            assert created.status_code == 201, created.text
            yield Policed(base, table, f"/stacks/pol/{created.json()['stack']['id']}")
    finally:
        engine.stop()
        transport.stop()


def _refused(resp: httpx.Response, rule: str) -> None:
    assert resp.status_code == 403, resp.text
    assert resp.json() == {
        "code": 403, "title": "Forbidden", "explanation": "Access was denied to this resource.",
        "error": {"type": "Forbidden", "message": f"You are not authorized to use {rule}.",
                  "traceback": None}}


def test_a_reader_reads_and_checks_but_cannot_write(policed: Policed) -> None:
    reader = policed.table.issue("p1", ["reader"])
    assert policed.get(reader, "/stacks").status_code == 200
    assert policed.get(reader, policed.stack).status_code == 200
    assert policed.get(reader, policed.stack + "/resources").status_code == 200
    _refused(policed.post(reader, "/stacks", {"stack_name": "no", "template": value_template()}),
             "stacks:create")
    _refused(httpx.delete(f"{policed.base}/v1/p1{policed.stack}",
                          headers={"X-Auth-Token": reader}), "stacks:delete")
    _refused(policed.post(reader, policed.stack + "/actions", {"suspend": None}),
             "actions:suspend")
    assert policed.post(reader, policed.stack + "/actions", {"check": None}).status_code == 200
    _refused(policed.post(reader, "/validate", {"template": value_template()}),
             "stacks:validate_template")


def test_a_stack_user_reaches_only_signals_metadata_and_lookups(policed: Policed) -> None:
    stack_user = policed.table.issue("p1", ["heat_stack_user"])
    resource = policed.stack + "/resources/source"
    assert policed.get(stack_user, resource + "/metadata").status_code == 200
    signalled = policed.post(stack_user, resource + "/signal", {"data": "x"})
    assert signalled.status_code != 403, signalled.text  # the policy lets it through
    lookup = policed.get(stack_user, "/stacks/pol")
    assert lookup.status_code == 302, lookup.text
    assert policed.get(stack_user, "/software_deployments/metadata/srv").status_code == 200
    _refused(policed.get(stack_user, "/stacks"), "stacks:index")
    _refused(policed.get(stack_user, policed.stack), "stacks:show")
    _refused(policed.get(stack_user, resource), "resource:show")
    _refused(policed.get(stack_user, policed.stack + "/events"), "events:index")
    _refused(policed.post(stack_user, "/stacks", {"stack_name": "x",
                                                  "template": value_template()}),
             "stacks:create")
    _refused(policed.get(stack_user, "/software_configs"), "software_configs:index")


def test_services_are_for_admins_and_every_project_is_for_nobody(policed: Policed) -> None:
    member = policed.table.issue("p1", MEMBER)
    admin = policed.table.issue("p1", ADMIN)
    _refused(policed.get(member, "/services"), "service:index")
    assert policed.get(admin, "/services").status_code == 200
    for token in (member, admin):
        _refused(policed.get(token, "/stacks", params={"global_tenant": "true"}),
                 "stacks:global_index")
        _refused(policed.get(token, "/software_configs", params={"global_tenant": "true"}),
                 "software_configs:global_index")


def test_a_role_unknown_to_heat_grants_nothing(policed: Policed) -> None:
    owner = policed.table.issue("p1", ["heat_stack_owner"])
    _refused(policed.get(owner, "/stacks"), "stacks:index")


def test_every_route_has_a_policy() -> None:
    app = create_app(EngineRpc(transport=None))  # type: ignore[arg-type]
    names = {route.endpoint.__name__
             for included in app.routes if hasattr(included, "original_router")
             for route in included.original_router.routes
             if "{project_id}" in route.path}
    assert names == set(policy.ROUTE_RULES)
    assert {rule for rule in policy.ROUTE_RULES.values() if rule} <= set(policy.RULES)


def test_rules_read_as_heats_personas() -> None:
    assert policy.allows("stacks:create", ["Member"])  # roles compare without case
    assert not policy.allows("stacks:create", ["reader"])
    assert policy.allows("resource:signal", ["heat_stack_user"])
    assert not policy.allows("stacks:global_index", ["admin", "member", "reader"])
    assert not policy.allows("no:such_rule", ["admin"])
    assert policy.implied_roles("admin") == {"admin", "member", "reader"}
    assert policy.implied_roles("reader") == {"reader"}
