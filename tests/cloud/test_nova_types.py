"""Nova's types against the project's real Nova, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]``; each test drives it
with the unchanged openstack CLI as a user of the cloud's second project
(``OS_NOVA_CLOUD``, default ``hotplate-alt-demo``: the demo project is busy with
other suites, whose leak checks would take this module's objects for theirs) and
reads the result back from Nova, Neutron, Cinder and Glance. ``cloud_leaks`` fails
a test that leaves a server, key pair, server group, volume, image or Neutron
object behind (and deletes it).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    as_user,
    cli,
    connected,
    gone,
    outputs_of,
    physical_ids,
    serve_on_catalog_ports,
    server_deleted,
    template_file,
    unique_name,
)

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "nv-"
"""Every Nova, Cinder and Glance object these tests make is named so (``cloud_leaks``)."""

PUBLIC_KEY = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFK1GBLGuh8wgl28vIL0EI1m7//Louik04uMEk14"
              "wWUU hp-nova")
OTHER_KEY = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHFZk/508uAcxoMK+1hkk8AMcZVD/4wrl3+eR3E9eXOt "
             "hp-nova-2")


NOVA_CLOUD = os.environ.get("OS_NOVA_CLOUD") or "hotplate-alt-demo"


@pytest.fixture(scope="module")
def nova_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, NOVA_CLOUD)


@pytest.fixture(scope="module")
def user_conn(nova_cloud: Cloud) -> Iterator[Any]:
    """This module's user (``NOVA_CLOUD``), in place of the suites' demo user."""
    yield from connected(nova_cloud)


@pytest.fixture(scope="module")
def served(nova_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, as this module's user."""
    yield from serve_on_catalog_ports(nova_cloud, tmp_path_factory, "nova-serve")


def _delete(served: Serving, stack: str) -> None:
    cli(served, "stack", "delete", "--yes", "--wait", stack, check=False)


KEYS = """heat_template_version: 2021-04-16
parameters:
  key_name: {type: string}
  per_host: {type: number, default: 2}
  public_key: {type: string, default: "@KEY@"}
resources:
  key:
    type: OS::Nova::KeyPair
    properties:
      name: {get_param: key_name}
      public_key: {get_param: public_key}
  group:
    type: OS::Nova::ServerGroup
    properties:
      policies: [anti-affinity]
      rules: {max_server_per_host: {get_param: per_host}}
outputs:
  ref: {value: {get_resource: key}}
  public: {value: {get_attr: [key, public_key]}}
  private: {value: {get_attr: [key, private_key]}}
  group: {value: {get_attr: [group, show]}}
""".replace("@KEY@", PUBLIC_KEY)


def test_keypair_and_server_group(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    key_name = f"{name}-key"
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template_file(served, KEYS),
                      "--parameter", f"key_name={key_name}", name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        ids = physical_ids(served, name)
        assert ids["key"] == key_name
        assert user_conn.compute.get_keypair(key_name).public_key.strip() == PUBLIC_KEY
        group = user_conn.compute.get_server_group(ids["group"])
        assert group.name.startswith(f"{name}-group-")
        assert group.policy == "anti-affinity" and group.rules == {"max_server_per_host": 2}
        outputs = outputs_of(cli(served, "stack", "show", name, "-f", "json"))
        assert outputs["ref"] == key_name and outputs["public"] == PUBLIC_KEY
        assert outputs["private"] == "" and outputs["group"]["id"] == ids["group"]

        # Any change replaces: new rules are a new group, the old one goes.
        updated = cli(served, "stack", "update", "--wait", "-t", template_file(served, KEYS),
                      "--parameter", f"key_name={key_name}", "--parameter", "per_host=3",
                      name, "-f", "json")
        assert updated["stack_status"] == "UPDATE_COMPLETE", updated
        after = physical_ids(served, name)
        assert after["key"] == key_name and after["group"] != ids["group"]
        assert user_conn.compute.get_server_group(after["group"]).rules == \
            {"max_server_per_host": 3}
        assert gone(user_conn.compute.get_server_group, ids["group"])

        # A new public key under the same name: a replacement, which can take the name
        # because the old pair is deleted first (prepare_for_replace, as in Heat).
        rekeyed = cli(served, "stack", "update", "--wait", "--existing", "--parameter",
                      f"public_key={OTHER_KEY}", name, "-f", "json")
        assert rekeyed["stack_status"] == "UPDATE_COMPLETE", rekeyed
        assert physical_ids(served, name)["key"] == key_name
        assert user_conn.compute.get_keypair(key_name).public_key.strip() == OTHER_KEY
    finally:
        _delete(served, name)
    assert gone(user_conn.compute.get_keypair, key_name)


GENERATED = """heat_template_version: 2021-04-16
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: nv-generated, save_private_key: true}
"""


def test_a_keypair_without_public_key_fails_as_heats(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    try:
        cli(served, "stack", "create", "--wait", "-t", template_file(served, GENERATED), name,
            check=False)
        shown = cli(served, "stack", "show", name, "-f", "json")
        assert shown["stack_status"] == "CREATE_FAILED", shown
        assert shown["stack_status_reason"] == (
            "Resource CREATE failed: StackValidationFailed: resources.key: The public_key "
            "property is required by the nova API version currently used."), shown
    finally:
        _delete(served, name)


SERVER = """heat_template_version: 2021-04-16
parameters:
  server_name: {type: string}
  flavor: {type: string, default: m1.tiny}
  meta: {type: json, default: {a: "1"}}
  image: {type: string, default: cirros-fake}
  tags: {type: comma_delimited_list, default: web}
  boot: {type: string, default: "#!/bin/sh\\necho hello\\n"}
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: {list_join: ["-", [{get_param: "OS::stack_name"}, key]]},
                 public_key: @KEY@}
  group:
    type: OS::Nova::ServerGroup
    properties: {policies: [soft-affinity]}
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    # Neutron picks a free address at random for a port that names none (the
    # DHCP port, the server's own port): kept off the one named below.
    properties: {network: {get_resource: net}, cidr: 10.41.0.0/24,
                 allocation_pools: [{start: 10.41.0.100, end: 10.41.0.250}]}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  fip:
    type: OS::Neutron::FloatingIP
    depends_on: iface
    properties: {floating_network: public}
  server:
    type: OS::Nova::Server
    depends_on: iface
    properties:
      name: {get_param: server_name}
      image: {get_param: image}
      flavor: {get_param: flavor}
      key_name: {get_resource: key}
      availability_zone: nova
      config_drive: true
      admin_pass: s3cret
      security_groups: [default]
      scheduler_hints: {group: {get_resource: group}}
      user_data_format: RAW
      user_data: {get_param: boot}
      user_data_update_policy: IGNORE
      metadata: {get_param: meta}
      tags: {get_param: tags}
      networks:
        - network: {get_attr: [net, name]}      # a name, resolved to the id
          fixed_ip: 10.41.0.50
        - subnet: {get_resource: subnet}         # a port the server makes itself
          floating_ip: {get_resource: fip}
outputs:
  first: {value: {get_attr: [server, first_address]}}
  networks: {value: {get_attr: [server, networks]}}
  addresses: {value: {get_attr: [server, addresses]}}
  name: {value: {get_attr: [server, name]}}
  tags: {value: {get_attr: [server, tags]}}
  show: {value: {get_attr: [server, show]}}
""".replace("@KEY@", PUBLIC_KEY)


def test_server_create_update_resize_rebuild_delete(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, SERVER)
    ids: dict[str, str] = {}
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template,
                      "--parameter", f"server_name={name}-vm", name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        ids = physical_ids(served, name)
        server = user_conn.compute.get_server(ids["server"])
        assert server.status == "ACTIVE" and server.name == f"{name}-vm"
        assert server.metadata == {"a": "1"}
        assert server.flavor["original_name"] == "m1.tiny"
        assert server.key_name == f"{name}-key" and server.availability_zone == "nova"
        assert server.has_config_drive in (True, "True")
        assert ids["server"] in user_conn.compute.get_server_group(ids["group"]).member_ids
        ports = list(user_conn.network.ports(device_id=ids["server"]))
        assert {p.network_id for p in ports} == {ids["net"]}
        assert "10.41.0.50" in [ip["ip_address"] for p in ports for ip in p.fixed_ips]
        default = next(iter(user_conn.network.security_groups(name="default"))).id
        assert all(p.security_group_ids == [default] for p in ports)
        made = [p for p in ports if p.name == "server-port-1"]
        assert len(made) == 1
        fip = user_conn.network.get_ip(ids["fip"])
        assert fip.port_id == made[0].id
        outputs = outputs_of(cli(served, "stack", "show", name, "-f", "json"))
        assert outputs["name"] == f"{name}-vm" and outputs["tags"] == ["web"]
        net_name = user_conn.network.get_network(ids["net"]).name
        assert sorted(outputs["networks"]) == sorted([net_name, ids["net"]])
        assert fip.floating_ip_address in outputs["networks"][net_name]
        assert outputs["first"] in outputs["networks"][net_name]
        entry = next(a for a in outputs["addresses"][ids["net"]] if a["port"] == made[0].id)
        assert entry["network"]["id"] == ids["net"] and entry["subnets"][0]["id"] == ids["subnet"]
        assert outputs["show"]["id"] == ids["server"]

        # In place: name, metadata and tags; then a resize (RESIZE policy).
        # (user_data_update_policy IGNORE: new boot data changes nothing.)
        in_place = ["server_name=" + name, "meta={\"b\": \"2\"}", "tags=web,db",
                    "boot=#!/bin/sh"]
        for params, check in (
            (in_place, lambda s: s.name == name and s.metadata == {"b": "2"}
             and {t for t in s.tags if not t.startswith("hotplate-")} == {"db", "web"}),
            ([*in_place, "flavor=m1.small"],
             lambda s: s.flavor["original_name"] == "m1.small"),
        ):
            args = [a for p in params for a in ("--parameter", p)]
            updated = cli(served, "stack", "update", "--wait", "-t", template, *args, name,
                          "-f", "json")
            assert updated["stack_status"] == "UPDATE_COMPLETE", updated
            assert physical_ids(served, name)["server"] == ids["server"]
            server = user_conn.compute.get_server(ids["server"])
            assert server.status == "ACTIVE" and check(server), server
        # A rebuild onto another image (REBUILD policy): same server, new image.
        other = user_conn.image.create_image(name=f"{name}-img", disk_format="raw",
                                             container_format="bare", data=b"\0" * 1024,
                                             allow_duplicates=True)
        _wait_image(user_conn, other.id)
        args = [a for p in (*in_place, "flavor=m1.small", f"image={other.id}")
                for a in ("--parameter", p)]
        rebuilt = cli(served, "stack", "update", "--wait", "-t", template, *args, name,
                      "-f", "json")
        assert rebuilt["stack_status"] == "UPDATE_COMPLETE", rebuilt
        assert physical_ids(served, name)["server"] == ids["server"]
        server = user_conn.compute.get_server(ids["server"])
        assert server.status == "ACTIVE" and server.image["id"] == other.id
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
        for image in user_conn.image.images(name=f"{name}-img"):
            user_conn.image.delete_image(image.id)
    if ids:
        assert server_deleted(user_conn.compute, ids["server"])
        assert not list(user_conn.network.ports(device_id=ids["server"]))


def _wait_image(conn: Any, ident: str) -> None:
    deadline = time.monotonic() + 60
    while conn.image.get_image(ident).status != "active":
        assert time.monotonic() < deadline, "the test's image never went active"
        time.sleep(1.0)


APART = """heat_template_version: 2021-04-16
resources:
  group:
    type: OS::Nova::ServerGroup
    properties: {name: nv-apart, policies: [anti-affinity]}
  s1:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      scheduler_hints: {group: {get_resource: group}}
  s2:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      scheduler_hints: {group: {get_resource: group}}
"""


def test_a_server_going_error_fails_with_novas_fault(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    try:
        # One host, two servers that must not share one: the second goes ERROR.
        cli(served, "stack", "create", "--wait", "-t", template_file(served, APART), name,
            check=False)
        shown = cli(served, "stack", "show", name, "-f", "json")
        assert shown["stack_status"] == "CREATE_FAILED", shown
        reason = shown["stack_status_reason"]
        assert reason.startswith("Resource CREATE failed: ResourceInError: resources.s"), reason
        # Scheduled apart, or together and then rescheduled by the host's late check:
        # either way Nova's fault, in Heat's words.
        assert re.search(r': Went to status ERROR due to "Message: (No valid host was found\. '
                         r'|Exceeded maximum number of retries\. )', reason), reason
        assert reason.endswith(', Code: 500"'), reason
    finally:
        _delete(served, name)


BOOT = """heat_template_version: 2021-04-16
parameters:
  volume: {type: string}
  port: {type: string}
resources:
  boot:
    type: OS::Nova::Server
    properties:
      flavor: m1.tiny
      block_device_mapping_v2: [{volume_id: {get_param: volume}, boot_index: 0}]
      networks: [{port: {get_param: port}}]
      user_data_format: RAW
  kept:
    type: OS::Nova::Server
    deletion_policy: Retain
    properties:
      image: cirros-fake
      flavor: m1.tiny
      user_data_format: RAW
      networks: [{allocate_network: none}]
"""


def _volume(served: Serving, name: str, user_conn: Any) -> str:
    """A blank bootable volume (this cloud's Cinder cannot copy an image: no dataplane;
    the fake hypervisor boots anything)."""
    made = cli(served, "volume", "create", "--size", "1", name, "-f", "json")
    deadline = time.monotonic() + 120
    while (status := user_conn.block_storage.get_volume(made["id"]).status) != "available":
        assert status != "error" and time.monotonic() < deadline, f"the test's volume: {status}"
        time.sleep(1.0)
    cli(served, "volume", "set", "--bootable", made["id"])
    return str(made["id"])


def test_boot_from_volume_on_a_port_and_retain(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    net = user_conn.network.create_network(name=f"{name}-net")
    user_conn.network.create_subnet(network_id=net.id, ip_version=4, cidr="10.42.0.0/24",
                                    name=f"{name}-subnet")
    port = user_conn.network.create_port(network_id=net.id, name=f"{name}-port")
    volume = _volume(served, f"{name}-vol", user_conn)
    kept = None
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template_file(served, BOOT),
                      "--parameter", f"volume={volume}", "--parameter", f"port={port.id}",
                      name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        ids = physical_ids(served, name)
        kept = ids["kept"]
        boot = user_conn.compute.get_server(ids["boot"])
        assert boot.status == "ACTIVE" and not boot.image.get("id")
        assert [a["id"] for a in boot.attached_volumes] == [volume]
        assert user_conn.network.get_port(port.id).device_id == ids["boot"]
        cli(served, "stack", "delete", "--yes", "--wait", name)
        assert server_deleted(user_conn.compute, ids["boot"])
        assert user_conn.compute.get_server(kept).status == "ACTIVE"  # Retain
        assert user_conn.network.get_port(port.id).device_id == ""  # not Heat's: kept
        deadline = time.monotonic() + 60
        while user_conn.block_storage.get_volume(volume).status != "available":
            assert time.monotonic() < deadline, "the volume stayed attached"
            time.sleep(1.0)
    finally:
        _delete(served, name)
        if kept is not None:
            user_conn.compute.delete_server(kept)
            _wait_gone(user_conn, kept)
        user_conn.network.delete_port(port.id)
        user_conn.network.delete_network(net.id)
        user_conn.block_storage.delete_volume(volume)
        deadline = time.monotonic() + 120
        while not gone(user_conn.block_storage.get_volume, volume):
            assert time.monotonic() < deadline, "the test's volume stayed"
            time.sleep(1.0)


def _wait_gone(conn: Any, server: str) -> None:
    deadline = time.monotonic() + 120
    while not gone(conn.compute.get_server, server):
        assert time.monotonic() < deadline, f"server {server} stayed"
        time.sleep(1.0)


NETS = """heat_template_version: 2021-04-16
parameters:
  flavor: {type: string, default: m1.tiny}
resources:
  net1: {type: OS::Neutron::Net}
  subnet1:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net1}, cidr: 10.43.1.0/24}
  net2: {type: OS::Neutron::Net}
  subnet2:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net2}, cidr: 10.43.2.0/24}
  server:
    type: OS::Nova::Server
    depends_on: [subnet1, subnet2]
    properties:
      image: cirros-fake
      flavor: {get_param: flavor}
      flavor_update_policy: REPLACE
      user_data_format: RAW
      networks: @NETWORKS@
"""


def _nets_template(served: Serving, *subnets: str) -> str:
    """The template with one network entry per named subnet resource (``{subnet: ...}``)."""
    entries = ", ".join(f"{{subnet: {{get_resource: {s}}}}}" for s in subnets)
    return template_file(served, NETS.replace("@NETWORKS@", f"[{entries}]"))


def _server_nets(conn: Any, server: str) -> dict[str, str]:
    return {p.network_id: p.name for p in conn.network.ports(device_id=server)}


def test_networks_change_by_interfaces_replace_and_rollback(served: Serving,
                                                           user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    def update(*subnets: str, flavor: str = "m1.tiny", rollback: bool = False,
               ) -> dict[str, Any]:
        extra = ["--rollback", "enabled"] if rollback else []
        cli(served, "stack", "update", "--wait", *extra, "-t",
            _nets_template(served, *subnets), "--parameter", f"flavor={flavor}", name,
            check=not rollback)
        shown: dict[str, Any] = cli(served, "stack", "show", name, "-f", "json")
        return shown

    try:
        cli(served, "stack", "create", "--wait", "-t", _nets_template(served, "subnet1"),
            name)
        ids = physical_ids(served, name)
        assert _server_nets(user_conn, ids["server"]) == {ids["net1"]: "server-port-0"}

        # A second network: attached to the same server, its port numbered among the
        # entries attached by this update, as Heat names it.
        assert update("subnet1", "subnet2")["stack_status"] == "UPDATE_COMPLETE"
        assert physical_ids(served, name)["server"] == ids["server"]
        assert _server_nets(user_conn, ids["server"]) == {ids["net1"]: "server-port-0",
                                                          ids["net2"]: "server-port-0"}
        # The first one gone: detached, and the port Heat made for it deleted.
        first = [p.id for p in user_conn.network.ports(network_id=ids["net1"])]
        assert update("subnet2")["stack_status"] == "UPDATE_COMPLETE"
        assert _server_nets(user_conn, ids["server"]) == {ids["net2"]: "server-port-0"}
        assert not [p for p in user_conn.network.ports(network_id=ids["net1"])
                    if p.id in first]

        # A failed update (a network with no subnet for its port) is rolled back. The
        # server is still fine (needs_replace_failed), so the rollback updates it in
        # place: same server, its port kept.
        shown = update("subnet2", "net1", rollback=True)
        assert shown["stack_status"] == "ROLLBACK_COMPLETE", shown
        assert physical_ids(served, name)["server"] == ids["server"]
        assert _server_nets(user_conn, ids["server"]) == {ids["net2"]: "server-port-0"}

        # flavor_update_policy REPLACE: a new server, the old one (and its port) gone.
        assert update("subnet2", flavor="m1.small")["stack_status"] == \
            "UPDATE_COMPLETE"
        new = physical_ids(served, name)["server"]
        assert new != ids["server"]
        assert user_conn.compute.get_server(new).flavor["original_name"] == "m1.small"
        assert server_deleted(user_conn.compute, ids["server"])
        assert _server_nets(user_conn, new) == {ids["net2"]: "server-port-0"}
    finally:
        _delete(served, name)


SNAPSHOT = """heat_template_version: 2021-04-16
resources:
  server:
    type: OS::Nova::Server
    deletion_policy: Snapshot
    properties:
      image: cirros-fake
      flavor: m1.tiny
      user_data_format: RAW
      networks: [{allocate_network: none}]
"""


def test_snapshot_deletion_policy_keeps_an_image(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    images: list[str] = []
    try:
        cli(served, "stack", "create", "--wait", "-t", template_file(served, SNAPSHOT), name)
        server = physical_ids(served, name)["server"]
        cli(served, "stack", "delete", "--yes", name)
        deadline = time.monotonic() + 120
        while not (images := [i.id for i in user_conn.image.images()
                              if str(i.name).startswith(f"{name}-server-")]):
            assert time.monotonic() < deadline, "no snapshot image was made"
            time.sleep(1.0)
        # The fake hypervisor uploads nothing: the test stands in for it, and the delete,
        # which waits for the image to be active, goes on.
        image = images[0]
        user_conn.image.update_image(image, disk_format="raw", container_format="bare")
        stored = user_conn.image.put(f"/images/{image}/file", data=b"\0" * 1024,
                                     headers={"Content-Type": "application/octet-stream"})
        assert stored.status_code == 204, stored.text
        while cli(served, "stack", "show", name, check=False).returncode == 0:
            assert time.monotonic() < deadline + 120, "the stack was not deleted"
            time.sleep(1.0)
        assert server_deleted(user_conn.compute, server)
        assert user_conn.image.get_image(image).status == "active"  # kept, as in Heat
    finally:
        _delete(served, name)
        for image in images:
            user_conn.image.delete_image(image, ignore_missing=True)


SOFTWARE = """heat_template_version: 2021-04-16
parameters:
  transport: {type: string, default: POLL_SERVER_CFN}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\necho hi\\n"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      user_data_format: SOFTWARE_CONFIG
      user_data: "#!/bin/sh\\necho boot\\n"
      software_config_transport: {get_param: transport}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
  cloud_config:
    type: OS::Heat::CloudConfig
    properties: {cloud_config: {runcmd: [echo raw]}}
  raw:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{allocate_network: none}]
      user_data_format: RAW
      user_data: {get_resource: cloud_config}   # a config's id: its config is sent
outputs:
  occ: {value: {get_attr: [server, os_collect_config]}}
"""


def test_software_config_server(served: Serving, user_conn: Any, admin_conn: Any) -> None:
    import base64
    import email
    import json

    name = unique_name(LEAK_PREFIX)
    template = template_file(served, SOFTWARE)
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template, name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        ids = physical_ids(served, name)
        occ = outputs_of(cli(served, "stack", "show", name, "-f", "json"))["occ"]
        assert occ["collectors"] == ["cfn", "local"]
        assert occ["cfn"]["path"] == "server.Metadata" and occ["cfn"]["stack_name"] == name
        metadata = cli(served, "stack", "resource", "metadata", name, "server", "-f", "json")
        assert metadata["os-collect-config"] == occ
        assert [d["name"] for d in metadata["deployments"]] == [
            cli(served, "software", "config", "show", ids["config"], "-f", "json")["name"]]
        # The boot data: Heat's parts, the user data and the collector configuration.
        shown = admin_conn.compute.get(f"/servers/{ids['server']}",
                                       microversion="2.3").json()["server"]
        boot = email.message_from_string(
            base64.b64decode(shown["OS-EXT-SRV-ATTR:user_data"]).decode())
        parts = {p.get_filename(): p.get_payload(decode=True) for p in boot.get_payload()}
        assert b"echo boot" in parts[None]
        assert parts["part-handler.py"].startswith(b"#part-handler")  # writes cfn-init-data
        assert json.loads(parts["cfn-init-data"])["os-collect-config"] == occ
        raw = admin_conn.compute.get(f"/servers/{ids['raw']}",
                                     microversion="2.3").json()["server"]
        sent = base64.b64decode(raw["OS-EXT-SRV-ATTR:user_data"]).decode()
        assert sent.startswith("#cloud-config\n") and "echo raw" in sent, sent

        # ZAQAR_MESSAGE needs Zaqar, which this cloud's catalog lacks: the create fails.
        zaqar = f"{name}-z"
        cli(served, "stack", "create", "--wait", "-t", template, "--parameter",
            "transport=ZAQAR_MESSAGE", zaqar, check=False)
        failed = cli(served, "stack", "show", zaqar, "-f", "json")
        assert failed["stack_status"] == "CREATE_FAILED", failed
        assert failed["stack_status_reason"] == (
            "Resource CREATE failed: EndpointNotFound: resources.server: Could not find "
            "requested endpoint in Service Catalog."), failed
    finally:
        _delete(served, f"{name}-z")
        _delete(served, name)


def test_suspend_resume_and_check(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, SNAPSHOT.replace("deletion_policy: Snapshot",
                                                      "deletion_policy: Delete"))
    try:
        cli(served, "stack", "create", "--wait", "-t", template, name)
        server = physical_ids(served, name)["server"]
        cli(served, "stack", "suspend", "--wait", name)
        assert cli(served, "stack", "show", name, "-f", "json")["stack_status"] == \
            "SUSPEND_COMPLETE"
        assert user_conn.compute.get_server(server).status == "SUSPENDED"
        cli(served, "stack", "resume", "--wait", name)
        assert user_conn.compute.get_server(server).status == "ACTIVE"
        cli(served, "stack", "check", "--wait", name)
        shown = cli(served, "stack", "show", name, "-f", "json")
        assert shown["stack_status"] == "CHECK_COMPLETE", shown
    finally:
        _delete(served, name)


ON_PORT = """heat_template_version: 2021-04-16
parameters:
  port: {type: string}
  flavor: {type: string, default: m1.tiny}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: {get_param: flavor}
      flavor_update_policy: REPLACE
      user_data_format: RAW
      networks: [{port: {get_param: port}}]
"""


def test_a_replacement_takes_over_the_port(served: Serving, user_conn: Any) -> None:
    name = unique_name(LEAK_PREFIX)
    net = user_conn.network.create_network(name=f"{name}-net")
    user_conn.network.create_subnet(network_id=net.id, ip_version=4, cidr="10.44.0.0/24",
                                    name=f"{name}-subnet")
    port = user_conn.network.create_port(network_id=net.id, name=f"{name}-port")
    template = template_file(served, ON_PORT)
    try:
        cli(served, "stack", "create", "--wait", "-t", template, "--parameter",
            f"port={port.id}", name)
        old = physical_ids(served, name)["server"]
        # prepare_for_replace detaches the port from the old server for the new one.
        updated = cli(served, "stack", "update", "--wait", "--existing", "--parameter",
                      "flavor=m1.small", name, "-f", "json")
        assert updated["stack_status"] == "UPDATE_COMPLETE", updated
        new = physical_ids(served, name)["server"]
        assert new != old and server_deleted(user_conn.compute, old)
        assert user_conn.network.get_port(port.id).device_id == new
    finally:
        _delete(served, name)
        user_conn.network.delete_port(port.id)
        user_conn.network.delete_network(net.id)
