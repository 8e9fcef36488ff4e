"""Neutron's types against the project's real Neutron, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]`` (its plugins act with the
stack's trust); each test drives it with the unchanged openstack CLI as the demo
user and reads the result back from Neutron. ``network_leaks`` fails a test that
leaves a Neutron object behind (and deletes it).

The helpers that drive the CLI and wait on stacks are ``tests/cloud/stacks.py``'s.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    PUBLIC,
    cli,
    delete_stack,
    gone,
    heat_client,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

pytestmark = pytest.mark.usefixtures("network_leaks")

NETWORK = """heat_template_version: 2021-04-16
parameters:
  net_name: {type: string}
  cidr: {type: string, default: 10.31.0.0/24}
  ports: {type: comma_delimited_list, default: "22"}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: net_name}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network_id: {get_attr: [net, name]}   # the deprecated name, a name to resolve
      cidr: {get_param: cidr}
  router:
    type: OS::Neutron::Router
    properties:
      external_gateway_info: {network: @PUBLIC@}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        repeat:
          for_each: {<%port%>: {get_param: ports}}
          template: {protocol: tcp, port_range_min: <%port%>, port_range_max: <%port%>}
  rule:
    type: OS::Neutron::SecurityGroupRule
    properties:
      security_group: {get_resource: sg}
      protocol: udp
      port_range_min: 53
      port_range_max: 53
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: @PUBLIC@}
outputs:
  net_show: {value: {get_attr: [net, show]}}
  subnet_network: {value: {get_attr: [subnet, network_id]}}
  fip_address: {value: {get_attr: [fip, floating_ip_address]}}
  gateway: {value: {get_attr: [router, external_gateway_info]}}
""".replace("@PUBLIC@", PUBLIC)

def _public(conn: Any) -> str:
    return str(next(iter(conn.network.networks(name=PUBLIC))).id)


def test_network_stack_create_update_replace_delete(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    net_name = f"{name}-net"
    template = template_file(served, NETWORK)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter",
                               f"net_name={net_name}", name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        net = user_conn.network.get_network(ids["net"])
        assert net.name == net_name
        subnet = user_conn.network.get_subnet(ids["subnet"])
        assert subnet.network_id == net.id and subnet.cidr == "10.31.0.0/24"
        router = user_conn.network.get_router(ids["router"])
        assert router.external_gateway_info["network_id"] == \
            _public(user_conn)
        assert ids["iface"] == f"{router.id}:subnet_id={subnet.id}"
        rules = user_conn.network.get_security_group(ids["sg"]).security_group_rules
        assert {(r["protocol"], r["port_range_min"]) for r in rules
                if r["direction"] == "ingress"} == {("tcp", 22), ("udp", 53)}
        outputs = outputs_of(cli(served, "stack", "show", name, "-f", "json"))  # the CLI's view
        assert outputs["net_show"]["id"] == net.id and outputs["net_show"]["name"] == net_name
        assert outputs["subnet_network"] == net.id
        assert outputs["fip_address"] == user_conn.network.get_ip(ids["fip"]).floating_ip_address

        # In place: a new name, one more rule, and the subnet's network given by id
        # rather than by name (the same network: no replacement).
        in_place = NETWORK.replace("network_id: {get_attr: [net, name]}",
                                   "network: {get_resource: net}")
        updated = stack_action(served, "update", "-t", template_file(served, in_place),
                               "--parameter", f"net_name={net_name}-2",
                               "--parameter", "ports=22,80", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name) == ids
        assert user_conn.network.get_network(ids["net"]).name == f"{net_name}-2"
        # As in Heat, the group's rules property owns every rule of the group: its
        # update removes the rule the separate SecurityGroupRule added.
        rules = user_conn.network.get_security_group(ids["sg"]).security_group_rules
        assert {(r["protocol"], r["port_range_min"]) for r in rules
                if r["direction"] == "ingress"} == {("tcp", 22), ("tcp", 80)}

        # Replacement: a new CIDR needs a new subnet, and so a new interface.
        replaced = stack_action(served, "update", "-t", template_file(served, in_place),
                                "--parameter", f"net_name={net_name}-2",
                                "--parameter", "ports=22,80",
                                "--parameter", "cidr=10.32.0.0/24", name, stack=name)
        assert replaced == "UPDATE_COMPLETE", show_stack(served, name)
        after = physical_ids(served, name)
        assert after["subnet"] != ids["subnet"] and after["iface"] != ids["iface"]
        assert {k: v for k, v in after.items() if k not in ("subnet", "iface")} == \
            {k: v for k, v in ids.items() if k not in ("subnet", "iface")}
        assert user_conn.network.get_subnet(after["subnet"]).cidr == "10.32.0.0/24"
        assert gone(user_conn.network.get_subnet, ids["subnet"])
    finally:
        delete_stack(served, name)
    assert gone(user_conn.network.get_network, ids["net"])
    assert gone(user_conn.network.get_router, ids["router"])


FAILING = """heat_template_version: 2021-04-16
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.33.0.0/24}
"""


def test_a_failed_update_is_rolled_back(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    try:
        stack_action(served, "create", "-t", template_file(served, FAILING), name, stack=name)
        ids = physical_ids(served, name)
        overlapping = FAILING + """  again:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.33.0.128/25}
"""
        rolled = stack_action(served, "update", "--rollback", "enabled", "-t",
                              template_file(served, overlapping), name, stack=name,
                              until=("ROLLBACK_COMPLETE", "ROLLBACK_FAILED"))
        assert rolled == "ROLLBACK_COMPLETE", show_stack(served, name)
        events = heat_client(served).events.list(name)
        failed = [e for e in events if e.resource_name == "again"
                  and e.resource_status == "CREATE_FAILED"]
        assert failed, events
        reason = failed[0].resource_status_reason
        assert reason.startswith(
            "BadRequest: resources.again: Invalid input for operation: Requested subnet with "
            "cidr: 10.33.0.128/25 for network: "), reason
        assert "overlaps with another subnet" in reason
        assert [s.id for s in user_conn.network.subnets(network_id=ids["net"])] == \
            [ids["subnet"]]
    finally:
        delete_stack(served, name)


RETAINED = """heat_template_version: 2021-04-16
resources:
  kept:
    type: OS::Neutron::Net
    deletion_policy: Retain
  router: {type: OS::Neutron::Router}
  gateway:
    type: OS::Neutron::RouterGateway
    properties: {router_id: {get_resource: router}, network_id: @PUBLIC@}
""".replace("@PUBLIC@", PUBLIC)


def test_retain_keeps_the_network_and_a_hidden_gateway_works(served: Serving,
                                                              user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    kept = None
    try:
        stack_action(served, "create", "-t", template_file(served, RETAINED), name, stack=name)
        ids = physical_ids(served, name)
        kept = ids["kept"]
        public = _public(user_conn)
        assert ids["gateway"] == f"{ids['router']}:{public}"
        gateway = user_conn.network.get_router(ids["router"]).external_gateway_info
        assert gateway["network_id"] == public
        assert stack_action(served, "delete", name, stack=name) == "DELETE_COMPLETE"
        assert user_conn.network.get_network(kept).name.startswith(f"{name}-kept-")
        assert gone(user_conn.network.get_router, ids["router"])
    finally:
        delete_stack(served, name)
        if kept is not None:
            user_conn.network.delete_network(kept, ignore_missing=True)


def test_abandon_and_adopt_a_network_stack(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    adopted = f"{name}-adopted"
    ids: dict[str, str] = {}
    try:
        stack_action(served, "create", "-t", template_file(served, FAILING), name, stack=name)
        ids = physical_ids(served, name)
        data = cli(served, "stack", "abandon", name, "-f", "json")
        assert user_conn.network.get_network(ids["net"]) is not None  # abandoned, not deleted
        adopt_file = served.tmp / f"{name}.json"
        adopt_file.write_text(json.dumps(data))
        done = stack_action(served, "adopt", "--adopt-file", str(adopt_file), adopted,
                            stack=adopted)
        assert done == "ADOPT_COMPLETE", show_stack(served, adopted)
        assert physical_ids(served, adopted) == ids
        assert stack_action(served, "delete", adopted, stack=adopted) == "DELETE_COMPLETE"
        assert gone(user_conn.network.get_network, ids["net"])
    finally:
        delete_stack(served, adopted)
        delete_stack(served, name)
        if ids:
            user_conn.network.delete_subnet(ids["subnet"], ignore_missing=True)
            user_conn.network.delete_network(ids["net"], ignore_missing=True)
