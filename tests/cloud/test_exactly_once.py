"""Exactly once against the real cloud: a create retried after its engine died finds
what the first try made by the attempt's mark, which goes with the object (a
Cinder volume's metadata key; a Neutron port's tag set at create, the ports a
server makes too), and makes nothing; a network, which Neutron 29 cannot tag at
create, is found by its physical name; a volume's attachment, which Nova cannot mark,
by the server and volume it joins (Nova refuses a second attach of them).

A port takes tags at create only where Neutron's ML2 runs the extension driver
``tag_ports_during_bulk_creation`` (cloud/write-configs.sh enables it); on a
cloud started without it the port is made unmarked, and the test puts the mark
on it as the create would have, so the retry's lookup, the mark's hiding and its
keeping are still tried against the real Neutron.

The mark is left out of ``show`` and the attributes, and kept by a metadata or
tags update.

Each plugin runs with a small context of its own, as the engine's would give it
(``test_neutron_retries.PluginContext``); an engine that "dies" after the POST is a
plugin whose ``handle_create`` made the object and whose id was never recorded:
another plugin of the same resource is then told it is a retry, with the same
token. The names are the template's own and shared by two resources here, so
only the mark can tell the object of this attempt. Nothing of the cloud is faked.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hotplate.cloud import Clouds
from hotplate.cloud.settings import CloudSettings
from hotplate.resources.base import Attempt
from hotplate.resources.openstack.attempt_marks import (
    ATTEMPT_METADATA_KEY,
    attempt_tag,
    part_tag,
)
from hotplate.resources.openstack.cinder.volume import CinderVolume
from hotplate.resources.openstack.cinder.volume_attachment import CinderVolumeAttachment
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.neutron.net import Net
from hotplate.resources.openstack.neutron.port import Port
from hotplate.resources.openstack.neutron.subnet import Subnet
from hotplate.resources.openstack.nova.server import Server
from hotplate.resources.openstack.nova.server_ports import ServerPorts
from tests.cloud.clients import PluginContext, token_context
from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.test_nova_types import NOVA_CLOUD

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "eo-"


@pytest.fixture(scope="module")
def user_conn(cloud: Cloud) -> Iterator[Any]:
    conn = dataclasses.replace(cloud, user=NOVA_CLOUD).connect()
    yield conn
    conn.close()


@pytest.fixture
def ctx(cloud: Cloud, user_conn: Any) -> PluginContext:
    caller = Clouds(CloudSettings(region_name_for_services=cloud.region)).for_context(
        token_context(cloud, user_conn))
    return PluginContext(caller, f"eo-{uuid.uuid4().hex[:8]}")


def _where(name: str) -> tuple[str, str, str]:
    return ("resources", name, "properties")


def _wait(check: Callable[[Any], Any], data: Any, what: str) -> None:
    deadline = time.monotonic() + 120
    while check(data) is not True:
        assert time.monotonic() < deadline, f"{what} did not finish"
        time.sleep(0.5)


def _tries(kind: Any, name: str, raw: dict[str, Any], ctx: PluginContext,
           token: str) -> tuple[Any, Any]:
    """A first try, and its retry after the first try's engine died after the POST."""
    props = kind.validate(raw, _where(name))
    props = kind.resolve_properties(props, ctx.cloud)
    first = kind(name, props, dataclasses.replace(ctx, resource_name=name))
    first.attempt = Attempt(token, retry=False)
    first.handle_create()
    again = kind(name, props, dataclasses.replace(ctx, resource_name=name))
    again.attempt = Attempt(token, retry=True)
    again.handle_create()
    return first, again


def _marked_as_at_create(ctx: PluginContext, user_conn: Any, port: str, mark: str) -> None:
    """Where Neutron took no tags in the port's create body, put the mark on as the
    create would have (the port's other tags kept)."""
    if NeutronApi(ctx.cloud).takes_tags_at_create("ports"):
        assert mark in user_conn.network.get_port(port).tags
        return
    found = user_conn.network.get_port(port)
    user_conn.network.set_tags(found, [*found.tags, mark])


def _delete(plugin: Any) -> None:
    data = plugin.handle_delete()
    deadline = time.monotonic() + 120
    while plugin.check_delete_complete(data) is not True:
        assert time.monotonic() < deadline, f"{plugin.name} was not deleted"
        plugin.ctx.clock.sleep(1.0)
        time.sleep(0.5)


def test_a_retried_volume_create_finds_the_volume_by_its_mark(
        ctx: PluginContext, user_conn: Any) -> None:
    name = f"{ctx.stack_name}-shared"
    raw = {"size": 1, "name": name, "metadata": {"role": "data"}}
    first, again = _tries(CinderVolume, "vol", raw, ctx, "vol-token")
    try:
        assert again.resource_id == first.resource_id
        named = [v.id for v in user_conn.block_storage.volumes(name=name)]
        assert named == [first.resource_id]
        _wait(again.check_create_complete, None, "the volume's create")
        mark = attempt_tag("vol-token")
        raw_metadata = user_conn.block_storage.get_volume(first.resource_id).metadata
        assert raw_metadata == {"role": "data", ATTEMPT_METADATA_KEY: mark}
        assert again.get_attribute("show")["metadata"] == {"role": "data"}
        assert again.get_attribute("metadata_values") == {"role": "data"}
        assert ATTEMPT_METADATA_KEY not in again.get_attribute("metadata")
        # Another resource of the same name, its own create: a volume of its own.
        other = CinderVolume("vol2", CinderVolume.validate(raw, _where("vol2")),
                             dataclasses.replace(ctx, resource_name="vol2"))
        other.attempt = Attempt("other-token", retry=True)
        other.handle_create()
        try:
            assert other.resource_id not in (None, first.resource_id)
        finally:
            _wait(other.check_create_complete, None, "the other volume's create")
            _delete(other)
        # The user's metadata replaced: the mark stays, and stays hidden.
        new = dict(again.properties, metadata={"role": "logs"})
        assert again.handle_update(new, {"metadata": {"role": "logs"}}) is None
        raw_metadata = user_conn.block_storage.get_volume(first.resource_id).metadata
        assert raw_metadata == {"role": "logs", ATTEMPT_METADATA_KEY: mark}
        assert again.get_attribute("metadata_values") == {"role": "logs"}
    finally:
        _delete(first)


def test_a_retried_port_create_finds_the_port_by_its_mark(
        ctx: PluginContext, user_conn: Any) -> None:
    # Neutron 29 takes no tags in a network's create body: a retried network create
    # finds the network by the physical name it would have made (no name given).
    net, net_again = _tries(Net, "net", {"tags": ["blue"]}, ctx, "net-token")
    made: list[Any] = [net]
    try:
        assert net_again.resource_id == net.resource_id
        physical = net.physical_resource_name()
        assert [n.id for n in user_conn.network.networks(name=physical)] == [net.resource_id]
        net_tags = set(user_conn.network.get_network(net.resource_id).tags)
        assert net_tags - {attempt_tag("net-token")} == {"blue"}
        assert net_again.get_attribute("show")["tags"] == ["blue"]
        # The port's name is the template's, shared: only its mark finds it.
        shared = f"{ctx.stack_name}-shared"
        mark = attempt_tag("port-token")
        props = Port.validate({"network": net.resource_id, "name": shared, "tags": ["red"]},
                              _where("port"))
        port = Port("port", props, dataclasses.replace(ctx, resource_name="port"))
        port.attempt = Attempt("port-token", retry=False)
        port.handle_create()
        made.insert(0, port)
        _marked_as_at_create(ctx, user_conn, str(port.resource_id), mark)
        port_again = Port("port", props, dataclasses.replace(ctx, resource_name="port"))
        port_again.attempt = Attempt("port-token", retry=True)
        port_again.handle_create()
        assert port_again.resource_id == port.resource_id
        assert [p.id for p in user_conn.network.ports(name=shared)] == [port.resource_id]
        assert sorted(user_conn.network.get_port(port.resource_id).tags) == sorted(
            ["red", mark])
        assert port_again.get_attribute("show")["tags"] == ["red"]
        assert port_again.get_attribute("network")["tags"] == ["blue"]
        # Another resource of the same name, its own create: a port of its own.
        other = Port("port2", Port.validate({"network": net.resource_id, "name": shared},
                                            _where("port2")),
                     dataclasses.replace(ctx, resource_name="port2"))
        other.attempt = Attempt("other-token", retry=True)
        other.handle_create()
        made.insert(0, other)
        assert other.resource_id not in (None, port.resource_id)
        # The user's tags replaced: the mark stays, and stays hidden.
        new = dict(port_again.properties, tags=["green"])
        port_again.handle_update(new, {"tags": ["green"]})
        assert sorted(user_conn.network.get_port(port.resource_id).tags) == sorted(
            ["green", mark])
        assert port_again.get_attribute("show")["tags"] == ["green"]
        new = dict(port_again.properties, tags=[])
        port_again.handle_update(new, {"tags": []})
        assert user_conn.network.get_port(port.resource_id).tags == [mark]
    finally:
        for plugin in made:
            _delete(plugin)


def test_a_retried_server_create_takes_the_port_its_first_try_made(
        ctx: PluginContext, user_conn: Any) -> None:
    net = Net("net", Net.validate({}, _where("net")),
              dataclasses.replace(ctx, resource_name="net"))
    net.handle_create()
    subnet = Subnet("subnet", Subnet.validate({"network": net.resource_id,
                                               "cidr": "10.93.0.0/24"}, _where("subnet")),
                    dataclasses.replace(ctx, resource_name="subnet"))
    subnet.handle_create()
    raw = {"flavor": "m1.tiny", "image": "cirros-fake", "user_data_format": "RAW",
           "networks": [{"subnet": subnet.resource_id}]}
    props = Server.resolve_properties(Server.validate(raw, _where("server")), ctx.cloud)
    server_ctx = dataclasses.replace(ctx, resource_name="server")
    first = Server("server", props, server_ctx)
    first.attempt = Attempt("server-token", retry=False)
    # The first try made the server's port and died before asking Nova for the server.
    port_id = ServerPorts(first).create_internal(props["networks"][0], 0, [])
    _marked_as_at_create(ctx, user_conn, port_id, part_tag("server-token", "port-0"))
    server_ctx.stored.clear()  # nor was the port recorded
    again = Server("server", props, server_ctx)
    again.attempt = Attempt("server-token", retry=True)
    try:
        again.handle_create()
        assert again.resource_id is not None
        ports = list(user_conn.network.ports(network_id=net.resource_id))
        ours = [p for p in ports if not str(p.device_owner or "").startswith("network:")]
        assert [p.id for p in ours] == [port_id]
        assert ours[0].tags == [part_tag("server-token", "port-0")]
        assert again.ports.ids() == [port_id]
        _wait(again.check_create_complete, None, "the server's create")
        server_mark = attempt_tag("server-token")
        assert user_conn.compute.get_server(again.resource_id).tags == [server_mark]
        assert again.get_attribute("show")["tags"] == []
        # The user's tags replaced: the server's mark stays, and stays hidden.
        assert again.handle_update(dict(props, tags=["web"]), {"tags": ["web"]}) == []
        assert sorted(user_conn.compute.get_server(again.resource_id).tags) == sorted(
            ["web", server_mark])
        assert again.get_attribute("tags") == ["web"]
        assert again.get_attribute("show")["tags"] == ["web"]
    finally:
        gone = Server("server", props, server_ctx, resource_id=again.resource_id)
        _wait(gone.check_delete_complete, gone.handle_delete(), "the server's delete")
        _delete(subnet)
        _delete(net)


def test_a_retried_attachment_create_takes_the_attachment_its_first_try_made(
        ctx: PluginContext, user_conn: Any) -> None:
    raw = {"flavor": "m1.tiny", "image": "cirros-fake",
           "networks": [{"allocate_network": "none"}]}
    props = Server.resolve_properties(Server.validate(raw, _where("server")), ctx.cloud)
    server = Server("server", props, dataclasses.replace(ctx, resource_name="server"))
    volume = CinderVolume("vol", CinderVolume.validate({"size": 1}, _where("vol")),
                          dataclasses.replace(ctx, resource_name="vol"))
    _wait(server.check_create_complete, server.handle_create(), "the server's create")
    _wait(volume.check_create_complete, volume.handle_create(), "the volume's create")
    raw = {"instance_uuid": server.resource_id, "volume_id": volume.resource_id}
    try:
        # The first try's engine died once Nova took the attach, before its id was kept.
        first, again = _tries(CinderVolumeAttachment, "attach", raw, ctx, "attach-token")
        assert first.resource_id == volume.resource_id
        assert again.resource_id == volume.resource_id
        _wait(again.check_create_complete, None, "the attachment's create")
        attached = user_conn.block_storage.get_volume(volume.resource_id)
        assert attached.status == "in-use"
        assert [a["server_id"] for a in attached.attachments] == [server.resource_id]
        _delete(again)
        assert user_conn.block_storage.get_volume(volume.resource_id).attachments == []
    finally:
        _wait(server.check_delete_complete, server.handle_delete(), "the server's delete")
        _not_listed(user_conn, str(server.resource_id))
        _delete(volume)


def _not_listed(user_conn: Any, server: str) -> None:
    """Wait until Nova no longer lists the server: it shows DELETED (done, for Heat and
    hotplate alike) a moment before it stops listing it, and the leak check lists."""
    deadline = time.monotonic() + 120
    while server in {s.id for s in user_conn.compute.servers()}:
        assert time.monotonic() < deadline, f"server {server} is still listed"
        time.sleep(0.5)
