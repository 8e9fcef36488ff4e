"""OS::Neutron::Port against the project's real Neutron, through ``openstack stack ...``.

Create, an in-place update, a replacement that keeps the port's fixed IP (the
old port hands it over: ``prepare_for_replace``), the rollback of a failed
update after such a replacement (the old port takes it back:
``restore_prev_rsrc``), and delete. ``network_leaks`` fails a test that leaves a
Neutron object behind.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from hotplate.resources.openstack.attempt_marks import marks_of, tags_without_marks
from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    PUBLIC,
    delete_stack,
    gone,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

pytestmark = pytest.mark.usefixtures("network_leaks")

PORT = """heat_template_version: 2021-04-16
parameters:
  port_name: {type: string, default: first}
  mac: {type: string, default: "fa:16:3e:00:00:01"}
  fail: {type: boolean, default: false}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    # Neutron picks a free address at random for a port that names none (the
    # DHCP port, the server's own port): kept off the one named below.
    properties: {network: {get_resource: net}, cidr: 10.41.0.0/24,
                 allocation_pools: [{start: 10.41.0.100, end: 10.41.0.250}]}
  sg:
    type: OS::Neutron::SecurityGroup
    properties: {rules: [{protocol: tcp, port_range_min: 22, port_range_max: 22}]}
  port:
    type: OS::Neutron::Port
    properties:
      name: {get_param: port_name}
      network: {get_resource: net}
      mac_address: {get_param: mac}
      fixed_ips: [{subnet: {get_resource: subnet}, ip_address: 10.41.0.50}]
      security_groups: [{get_resource: sg}]
      allowed_address_pairs: [{ip_address: 10.41.0.200}]
      tags: [one]
  user:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [port, fixed_ips, 0, ip_address]}
      fail: {get_param: fail}
outputs:
  ip: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
  subnet_cidr: {value: {get_attr: [port, subnets, 0, cidr]}}
  network_id: {value: {get_attr: [port, network, id]}}
  mac: {value: {get_attr: [port, mac_address]}}
  status: {value: {get_attr: [port, status]}}
"""


def _ips(port: Any) -> list[str]:
    return [ip["ip_address"] for ip in port.fixed_ips]


def test_port_create_update_replace_delete(served: Serving, user_conn: Any) -> None:
    name = f"np-{uuid.uuid4().hex[:8]}"
    template = template_file(served, PORT)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        port = user_conn.network.get_port(ids["port"])
        assert port.name == "first" and port.network_id == ids["net"]
        assert _ips(port) == ["10.41.0.50"]
        assert port.security_group_ids == [ids["sg"]]
        assert port.mac_address == "fa:16:3e:00:00:01"
        assert [p["ip_address"] for p in port.allowed_address_pairs] == ["10.41.0.200"]
        # The user's tags, beside the create's mark where Neutron takes tags at create
        # (test_exactly_once's subject).
        assert tags_without_marks(port.tags) == ["one"]
        assert len(marks_of(port.tags)) <= 1, port.tags
        outputs = outputs_of(show_stack(served, name))
        assert outputs["ip"] == "10.41.0.50" and outputs["subnet_cidr"] == "10.41.0.0/24"
        assert outputs["network_id"] == ids["net"] and outputs["mac"] == port.mac_address
        assert outputs["status"] in ("DOWN", "ACTIVE")

        # In place: a new name.
        updated = stack_action(served, "update", "-t", template, "--parameter", "port_name=second",
                               name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name) == ids
        assert user_conn.network.get_port(ids["port"]).name == "second"

        # A new MAC address needs a new port; it takes the old one's fixed IP, which
        # the old port gave up first (else Neutron refuses the address as in use).
        replaced = stack_action(served, "update", "-t", template,
                                "--parameter", "port_name=second",
                                "--parameter", "mac=fa:16:3e:00:00:02", name, stack=name)
        assert replaced == "UPDATE_COMPLETE", show_stack(served, name)
        after = physical_ids(served, name)
        assert after["port"] != ids["port"]
        new = user_conn.network.get_port(after["port"])
        assert _ips(new) == ["10.41.0.50"] and new.mac_address == "fa:16:3e:00:00:02"
        assert gone(user_conn.network.get_port, ids["port"])
        ids = after
    finally:
        delete_stack(served, name)
    if ids:
        assert gone(user_conn.network.get_port, ids["port"])
        assert gone(user_conn.network.get_network, ids["net"])


def test_rollback_after_a_replacement_gives_the_fixed_ip_back(served: Serving,
                                                              user_conn: Any) -> None:
    name = f"np-{uuid.uuid4().hex[:8]}"
    template = template_file(served, PORT)
    try:
        stack_action(served, "create", "-t", template, name, stack=name)
        ids = physical_ids(served, name)
        # The port is replaced (new MAC, same IP), then its user fails its update:
        # the rollback takes the old port back, with its address.
        rolled = stack_action(served, "update", "--rollback", "enabled", "-t", template,
                              "--parameter", "mac=fa:16:3e:00:00:03", "--parameter", "fail=true",
                              name, stack=name, until=("ROLLBACK_COMPLETE", "ROLLBACK_FAILED"))
        assert rolled == "ROLLBACK_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name)["port"] == ids["port"]
        old = user_conn.network.get_port(ids["port"])
        assert _ips(old) == ["10.41.0.50"]
        ports = list(user_conn.network.ports(network_id=ids["net"],
                                             device_owner=""))
        assert [p.id for p in ports] == [ids["port"]]  # the replacement is gone
    finally:
        delete_stack(served, name)


IMPLICIT = """heat_template_version: 2021-04-16
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.42.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: @PUBLIC@}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  port:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}}
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: @PUBLIC@, port_id: {get_resource: port}}
""".replace("@PUBLIC@", PUBLIC)


def test_implicit_dependencies_without_depends_on(served: Serving, user_conn: Any) -> None:
    """Nothing references the subnet from the port, nor the interface from the floating
    IP: the port waits for its network's subnet (it gets an address from it), and the
    floating IP for the interface that makes the port reachable (Neutron refuses it
    otherwise), as Heat orders them."""
    name = f"np-{uuid.uuid4().hex[:8]}"
    try:
        created = stack_action(served, "create", "-t", template_file(served, IMPLICIT), name,
                               stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        port = user_conn.network.get_port(ids["port"])
        assert [ip["subnet_id"] for ip in port.fixed_ips] == [ids["subnet"]]
        assert user_conn.network.get_ip(ids["fip"]).port_id == ids["port"]
    finally:
        delete_stack(served, name)
