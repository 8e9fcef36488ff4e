"""TOKEN_SIGNAL tokens through real heatclient: a token may signal, and read the
metadata of, its one resource; everything else is 403."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc as heat_exc

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import Engine, embedded
from hotplate.db.auth_store import AuthStore
from hotplate.db.engine import make_engine
from hotplate.model.ids import StackId
from hotplate.model.stack_users import ResourceOwner
from tests.api.helpers import create_complete

GROUP = {"heat_template_version": "2016-10-14", "resources": {
    "group": {"type": "OS::Heat::AutoScalingGroup",
              "properties": {"min_size": 1, "max_size": 3,
                             "resource": {"type": "OS::Heat::None"}}},
    "up": {"type": "OS::Heat::ScalingPolicy",
           "properties": {"adjustment_type": "change_in_capacity", "cooldown": 0,
                          "auto_scaling_group_id": {"get_resource": "group"},
                          "scaling_adjustment": 1}}}}


class Served:
    def __init__(self, base: str, admin: str, engine: Engine) -> None:
        self.base, self.admin, self.engine = base, admin, engine

    def client(self, token: str) -> Any:
        from heatclient.client import Client

        return Client("1", endpoint=f"{self.base}/v1/admin", token=token)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('sigtok')) / 'hotplate.sqlite'}"
    engine, transport = embedded(url, workers=8)
    db = make_engine(url, pool_size=4)
    store = AuthStore(db)
    admin = store.create_token("admin", "admin")
    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=store)
    try:
        with BackgroundServer(app) as base:
            yield Served(base, admin, engine)
    finally:
        engine.stop()
        transport.stop()
        db.dispose()


def _members(hc: Any, stack_id: str) -> int:
    group = hc.resources.get(stack_id, "group")
    return len(hc.resources.list(group.physical_resource_id))


def test_a_signal_token_reaches_only_its_resource(served: Served) -> None:
    admin = served.client(served.admin)
    stack_id = create_complete(admin, GROUP, name="tokened")
    store = served.engine.deps.store
    row = next(r for r in store.list_resources(StackId(stack_id)) if r.name == "up")
    token = store.issue_signal_token(  # type: ignore[attr-defined]
        ResourceOwner(row.id, stack_id, "tokened", "up", "admin"))
    hc = served.client(token)
    path = f"tokened/{stack_id}"

    assert hc.resources.metadata(path, "up") == {}
    hc.resources.signal(path, "up")
    start = time.monotonic()
    while _members(admin, stack_id) != 2 and time.monotonic() - start < 30:
        time.sleep(0.1)
    assert _members(admin, stack_id) == 2

    for refused in (
        lambda: hc.resources.signal(path, "group"),
        lambda: hc.resources.metadata(path, "group"),
        lambda: hc.resources.get(path, "up"),
        lambda: hc.stacks.get(path),
        lambda: list(hc.stacks.list()),
        lambda: hc.stacks.delete(path),
    ):
        with pytest.raises(heat_exc.HTTPForbidden):
            refused()
    assert admin.stacks.get(stack_id).stack_status == "CREATE_COMPLETE"

    # Forgetting the resource's credentials revokes the token.
    store.forget_stack_user(row.id)  # type: ignore[attr-defined]
    with pytest.raises(heat_exc.HTTPUnauthorized):
        hc.resources.metadata(path, "up")
