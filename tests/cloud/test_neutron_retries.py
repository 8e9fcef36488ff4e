"""A Neutron plugin's own protocol against the real Neutron: a create retried after its
engine died finds what the first try made, a delete refused while the network is in
use is asked again and then waits until the network is gone.

The plugin runs with a small context of its own (ids, a clock the test moves, the
demo user's cloud), as the engine's would give it; nothing of Neutron is faked.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.cloud import Clouds
from hotplate.cloud.settings import CloudSettings
from hotplate.resources.base import Attempt, CheckAgain
from hotplate.resources.openstack.neutron.net import Net
from tests.cloud.clients import PluginContext, token_context
from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud

pytestmark = pytest.mark.usefixtures("network_leaks")


@pytest.fixture
def ctx(cloud: Cloud, user_conn: Any) -> Iterator[PluginContext]:
    caller = Clouds(CloudSettings(region_name_for_services=cloud.region)).for_context(
        token_context(cloud, user_conn))
    yield PluginContext(caller, f"rt-{uuid.uuid4().hex[:8]}")


def _net(ctx: PluginContext, *, retry: bool, resource_id: str | None = None) -> Net:
    plugin = Net("net", Net.validate({}, ("resources", "net", "properties")), ctx,
                 resource_id=resource_id)
    plugin.attempt = Attempt("token", retry=retry)
    return plugin


def _delete(plugin: Net) -> None:
    data = plugin.handle_delete()
    for _ in range(120):
        if plugin.check_delete_complete(data) is True:
            return
        plugin.ctx.clock.sleep(1.0)  # type: ignore[attr-defined]
    pytest.fail("the network was not deleted")


def test_a_retried_create_finds_the_network_the_first_try_made(ctx: PluginContext,
                                                                user_conn: Any) -> None:
    first = _net(ctx, retry=False)
    first.handle_create()
    assert first.resource_id is not None
    try:
        # Its engine died before recording the id; another engine tries again.
        again = _net(ctx, retry=True)
        again.handle_create()
        assert again.resource_id == first.resource_id
        named = list(user_conn.network.networks(name=ctx.physical_resource_name()))
        assert [n.id for n in named] == [first.resource_id]
        assert again.check_create_complete(None) is True
        assert again.get_attribute("show")["name"] == ctx.physical_resource_name()
    finally:
        _delete(_net(ctx, retry=False, resource_id=first.resource_id))
    # A second delete of what is already gone is fine, as in Heat.
    _delete(_net(ctx, retry=False, resource_id=first.resource_id))


def test_a_delete_refused_while_in_use_is_asked_again(ctx: PluginContext,
                                                       user_conn: Any) -> None:
    plugin = _net(ctx, retry=False)
    plugin.handle_create()
    port = user_conn.network.create_port(network_id=plugin.resource_id, name=f"{ctx.stack_name}")
    try:
        data = plugin.handle_delete()  # 409: the port still uses the network
        waited = plugin.check_delete_complete(data)
        assert isinstance(waited, CheckAgain)
        assert user_conn.network.get_network(plugin.resource_id) is not None
        user_conn.network.delete_port(port, ignore_missing=True)
        ctx.clock.sleep(5.0)
        done = plugin.check_delete_complete(data)
        for _ in range(60):
            if done is True:
                break
            ctx.clock.sleep(1.0)
            done = plugin.check_delete_complete(data)
        assert done is True
    finally:
        user_conn.network.delete_port(port, ignore_missing=True)
        user_conn.network.delete_network(plugin.resource_id, ignore_missing=True)
