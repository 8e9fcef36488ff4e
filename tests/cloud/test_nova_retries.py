"""The Nova plugins' own protocol against the real Nova: a create retried after its
engine died finds what the first try made instead of making a second.

The plugin runs with a small context of its own (ids, a clock the test moves, a
caller's cloud), as the engine's would give it; nothing of Nova is faked. The
user is the one of ``test_nova_types`` (the cloud's second project).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from hotplate.cloud import Clouds
from hotplate.cloud.settings import CloudSettings
from hotplate.resources.base import Attempt
from hotplate.resources.openstack.nova.keypair import KeyPair
from hotplate.resources.openstack.nova.server import Server, attempt_tag
from hotplate.resources.openstack.nova.server_group import ServerGroup
from tests.cloud.clients import PluginContext, token_context
from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.test_nova_types import NOVA_CLOUD, PUBLIC_KEY

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "nr-"
WHERE = ("resources", "r", "properties")


@pytest.fixture(scope="module")
def user_conn(cloud: Cloud) -> Iterator[Any]:
    conn = dataclasses.replace(cloud, user=NOVA_CLOUD).connect()
    yield conn
    conn.close()


@pytest.fixture
def ctx(cloud: Cloud, user_conn: Any) -> PluginContext:
    caller = Clouds(CloudSettings(region_name_for_services=cloud.region)).for_context(
        token_context(cloud, user_conn))
    return PluginContext(caller, f"nr-{uuid.uuid4().hex[:8]}", resource_name="server")


def _wait(check: Any, data: Any, what: str) -> None:
    deadline = time.monotonic() + 120
    while check(data) is not True:
        assert time.monotonic() < deadline, f"{what} did not finish"
        time.sleep(1.0)


def test_a_retried_server_create_finds_the_server(ctx: PluginContext, user_conn: Any) -> None:
    props = Server.validate({"flavor": "m1.tiny", "image": "cirros-fake",
                             "user_data_format": "RAW",
                             "networks": [{"allocate_network": "none"}]}, WHERE)
    props = Server.resolve_properties(props, ctx.cloud)
    first = Server("server", props, ctx)
    first.attempt = Attempt("a-token", retry=False)
    first.handle_create()
    made = first.resource_id
    assert made is not None
    try:
        again = Server("server", props, ctx)  # its engine died before recording the id
        again.attempt = Attempt("a-token", retry=True)
        again.handle_create()
        assert again.resource_id == made
        named = [s.id for s in user_conn.compute.servers(name=f"^{ctx.physical_resource_name()}$")]
        assert named == [made]
        _wait(again.check_create_complete, None, "the create")
        assert again.get_attribute("tags") == []
        assert attempt_tag("a-token") in user_conn.compute.get_server(made).tags
        other = Server("server", props, ctx)  # a new action: a new token, a new server
        other.attempt = Attempt("b-token", retry=True)
        assert other._made_before() is None
    finally:
        gone = Server("server", props, ctx, resource_id=made)
        _wait(gone.check_delete_complete, gone.handle_delete(), "the delete")
    # Deleting what is gone already is fine, as in Heat.
    gone = Server("server", props, ctx, resource_id=made)
    _wait(gone.check_delete_complete, gone.handle_delete(), "the second delete")


def test_retried_keypair_and_group_creates_take_what_the_first_made(
        ctx: PluginContext, user_conn: Any) -> None:
    key_props = KeyPair.validate({"name": f"{ctx.stack_name}-k", "public_key": PUBLIC_KEY},
                                 WHERE)
    group_props = ServerGroup.validate({}, WHERE)
    made: list[Any] = []
    try:
        for retry in (False, True):
            key = KeyPair("key", key_props, ctx)
            key.attempt = Attempt("t", retry=retry)
            key.handle_create()
            group = ServerGroup("group", group_props, ctx)
            group.attempt = Attempt("t", retry=retry)
            group.handle_create()
            made.append((key, group))
        assert made[0][0].resource_id == made[1][0].resource_id == f"{ctx.stack_name}-k"
        assert made[0][1].resource_id == made[1][1].resource_id
        assert made[1][1].get_attribute("show")["name"] == ctx.physical_resource_name()
    finally:
        for key, group in made[:1]:
            key.handle_delete()
            group.handle_delete()


class WallClock:
    """Real time: the other server builds while the plugin waits."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def test_a_rollback_takes_its_port_back_from_a_replacement_still_building(
        ctx: PluginContext, user_conn: Any) -> None:
    """A rollback that cancelled the replacement's create right after Nova answered it
    (the engine waits for its id): the replacement is let finish building, on the
    port, then the port is taken from it and attached to the old server again."""
    ctx.clock = WallClock()  # type: ignore[assignment]
    net = user_conn.network.create_network(name=f"{ctx.stack_name}-net")
    user_conn.network.create_subnet(network_id=net.id, ip_version=4, cidr="10.45.0.0/24",
                                    name=f"{ctx.stack_name}-subnet")
    port = user_conn.network.create_port(network_id=net.id, name=f"{ctx.stack_name}-port")
    props = Server.resolve_properties(Server.validate(
        {"flavor": "m1.tiny", "image": "cirros-fake", "user_data_format": "RAW",
         "networks": [{"port": port.id}]}, WHERE), ctx.cloud)
    old = Server("server", props, ctx)
    old.attempt = Attempt("a-token", retry=False)
    replacement = None
    try:
        old.handle_create()
        _wait(old.check_create_complete, None, "the create")
        old.prepare_for_replace()  # the port let go, for the replacement
        _wait(lambda _: not user_conn.network.get_port(port.id).device_id, None, "the detach")
        replacement = user_conn.compute.create_server(
            name=f"{ctx.stack_name}-new", image_id=props["image"],
            flavor_id=user_conn.compute.find_flavor("m1.tiny", ignore_missing=False).id,
            networks=[{"port": port.id}])
        old.replacement = Server("server", props, ctx, resource_id=replacement.id)
        old.restore_prev_rsrc(convergence=True)
        assert user_conn.network.get_port(port.id).device_id == old.resource_id
        assert user_conn.compute.get_server(replacement.id).status == "ACTIVE"
        assert user_conn.compute.get_server(old.resource_id).status == "ACTIVE"
        assert [i.port_id for i in user_conn.compute.server_interfaces(old.resource_id)] == [
            port.id]
    finally:
        if replacement is not None:
            user_conn.compute.delete_server(replacement.id)
            user_conn.compute.wait_for_delete(replacement, wait=120)
        if old.resource_id is not None:
            _wait(old.check_delete_complete, old.handle_delete(), "the delete")
        user_conn.network.delete_port(port.id, ignore_missing=True)
        user_conn.network.delete_network(net.id)
