"""AWS::EC2::SecurityGroup, EIP and EIPAssociation against the real cloud, through
``openstack stack ...`` as the user of the cloud's second project (as test_aws_types).

Each test creates a stack, updates it in place, replaces a resource, deletes it and
reads every step back from Neutron. Stacks (and so the objects named after them) are
named ``ax-...``; ``cloud_leaks`` fails a test that leaves an object behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    as_user,
    cli,
    gone,
    outputs_of,
    physical_ids,
    serve_on_catalog_ports,
    template_file,
    unique_name,
)
from tests.cloud.test_aws_types import AWS_CLOUD

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "ax-"
"""Every object these tests make is named so (``cloud_leaks``)."""


@pytest.fixture(scope="module")
def aws_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, AWS_CLOUD)


@pytest.fixture(scope="module")
def served(aws_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, as test_aws_types' user."""
    yield from serve_on_catalog_ports(aws_cloud, tmp_path_factory, "aws-more-serve")


GROUP = """heat_template_version: 2013-05-23
parameters:
  port: {type: string, default: "22"}
  description: {type: string, default: first}
resources:
  sg:
    type: AWS::EC2::SecurityGroup
    properties:
      GroupDescription: {get_param: description}
      SecurityGroupIngress:
        - {IpProtocol: tcp, FromPort: {get_param: port}, ToPort: {get_param: port},
           CidrIp: 0.0.0.0/0}
        - {IpProtocol: icmp, FromPort: "-1", ToPort: "-1", CidrIp: 10.0.0.0/8}
      SecurityGroupEgress:
        - {IpProtocol: tcp, FromPort: "443", ToPort: "443", CidrIp: 0.0.0.0/0}
outputs:
  ref: {value: {get_resource: sg}}
"""


def _rules(conn: Any, group: str) -> dict[tuple[Any, ...], str]:
    return {(r.direction, r.ether_type, r.protocol, r.port_range_min, r.port_range_max,
             r.remote_ip_prefix): r.id
            for r in conn.network.security_group_rules(security_group_id=group)}


def test_security_group_rules_update_in_place_and_description_replaces(
        served: Serving, aws_cloud: Cloud) -> None:
    """The rules as listed (Neutron's default egress rules gone, since egress is listed);
    a changed port swaps that rule alone; a new description makes a new group."""
    name = unique_name(LEAK_PREFIX)
    conn = aws_cloud.connect()
    first = second = None
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template_file(served, GROUP),
                      name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        first = physical_ids(served, name)["sg"]
        group = conn.network.get_security_group(first)
        assert group.name.startswith(f"{name}-sg-") and group.description == "first"
        assert outputs_of(cli(served, "stack", "show", name, "-f", "json"))["ref"] == first
        rules = _rules(conn, first)
        assert set(rules) == {("ingress", "IPv4", "tcp", 22, 22, "0.0.0.0/0"),
                              ("ingress", "IPv4", "icmp", None, None, "10.0.0.0/8"),
                              ("egress", "IPv4", "tcp", 443, 443, "0.0.0.0/0")}
        icmp = rules[("ingress", "IPv4", "icmp", None, None, "10.0.0.0/8")]

        updated = cli(served, "stack", "update", "--wait", "--existing", "--parameter",
                      "port=80", name, "-f", "json")
        assert updated["stack_status"] == "UPDATE_COMPLETE", updated
        assert physical_ids(served, name)["sg"] == first
        rules = _rules(conn, first)
        assert set(rules) == {("ingress", "IPv4", "tcp", 80, 80, "0.0.0.0/0"),
                              ("ingress", "IPv4", "icmp", None, None, "10.0.0.0/8"),
                              ("egress", "IPv4", "tcp", 443, 443, "0.0.0.0/0")}
        assert rules[("ingress", "IPv4", "icmp", None, None, "10.0.0.0/8")] == icmp

        replaced = cli(served, "stack", "update", "--wait", "--existing", "--parameter",
                       "description=second", name, "-f", "json")
        assert replaced["stack_status"] == "UPDATE_COMPLETE", replaced
        second = physical_ids(served, name)["sg"]
        assert second != first
        assert conn.network.get_security_group(second).description == "second"
        assert gone(conn.network.get_security_group, first)
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
    try:
        assert second is not None and gone(conn.network.get_security_group, second)
    finally:
        conn.close()


PORT = ("{network: {get_resource: net}, "
        "fixed_ips: [{subnet: {get_resource: subnet}}]}")


def _eips(*, instance: bool, target: str, domain: bool, allocation: str) -> str:
    """A server on a routed subnet, an EIP (given to the server when ``instance``; with
    ``Domain: vpc`` when ``domain``), a spare EIP, and an association of ``allocation``'s
    floating IP with the port ``target``."""
    lines = (["InstanceId: {get_resource: server}"] if instance else []) + (
        ["Domain: vpc"] if domain else [])
    props = "".join(f"\n      {line}" for line in lines) if lines else " {}"
    return f"""heat_template_version: 2013-05-23
resources:
  net: {{type: OS::Neutron::Net}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {{network: {{get_resource: net}}, cidr: 10.44.0.0/24}}
  router:
    type: OS::Neutron::Router
    properties: {{external_gateway_info: {{network: public}}}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {{router: {{get_resource: router}}, subnet: {{get_resource: subnet}}}}
  port_s:
    type: OS::Neutron::Port
    properties: {PORT}
  port_a:
    type: OS::Neutron::Port
    properties: {PORT}
  port_b:
    type: OS::Neutron::Port
    properties: {PORT}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-fake
      flavor: m1.tiny
      networks: [{{port: {{get_resource: port_s}}}}]
  ip:
    type: AWS::EC2::EIP
    depends_on: interface
    properties:{props}
  spare:
    type: AWS::EC2::EIP
    depends_on: interface
  assoc:
    type: AWS::EC2::EIPAssociation
    depends_on: interface
    properties:
      AllocationId: {{get_attr: [{allocation}, AllocationId]}}
      NetworkInterfaceId: {{get_resource: {target}}}
outputs:
  ref: {{value: {{get_resource: ip}}}}
  allocation: {{value: {{get_attr: [ip, AllocationId]}}}}
"""


def _update(served: Serving, name: str, text: str) -> None:
    done = cli(served, "stack", "update", "--wait", "-t", template_file(served, text), name,
               "-f", "json")
    assert done["stack_status"] == "UPDATE_COMPLETE", done


def test_eip_and_association_create_update_replace_delete(
        served: Serving, aws_cloud: Cloud) -> None:
    """An EIP given to a server and taken back in place, replaced for a new Domain; an
    association moved to another port in place, and replaced for a new address and a
    new port; every floating IP gone with the stack."""
    name = unique_name(LEAK_PREFIX)
    conn = aws_cloud.connect()
    made: set[str] = set()
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template_file(
            served, _eips(instance=True, target="port_a", domain=False, allocation="spare")),
            name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        ids = physical_ids(served, name)
        made |= {ids["ip"], ids["spare"]}
        ip, spare = conn.network.get_ip(ids["ip"]), conn.network.get_ip(ids["spare"])
        assert ip.port_id == ids["port_s"] and spare.port_id == ids["port_a"]
        assert outputs_of(cli(served, "stack", "show", name, "-f", "json")) == {
            "ref": ip.floating_ip_address,
                                     "allocation": ids["ip"]}
        assert ids["assoc"] == ids["spare"]

        _update(served, name, _eips(instance=False, target="port_b", domain=False,
                                    allocation="spare"))
        after = physical_ids(served, name)
        assert (after["ip"], after["spare"]) == (ids["ip"], ids["spare"])
        assert conn.network.get_ip(ids["ip"]).port_id is None
        assert conn.network.get_ip(ids["spare"]).port_id == ids["port_b"]

        _update(served, name, _eips(instance=True, target="port_a", domain=True,
                                    allocation="ip"))
        after = physical_ids(served, name)
        made.add(after["ip"])
        assert after["ip"] != ids["ip"] and after["assoc"] == after["ip"]
        assert gone(conn.network.get_ip, ids["ip"])
        new = conn.network.get_ip(after["ip"])
        # the new EIP went to the server, then the new association moved it to port_a
        assert new.port_id == ids["port_a"]
        assert conn.network.get_ip(ids["spare"]).port_id is None
        shown = outputs_of(cli(served, "stack", "show", name, "-f", "json"))
        assert shown == {"ref": new.floating_ip_address, "allocation": after["ip"]}
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
    try:
        assert made and all(gone(conn.network.get_ip, ident) for ident in made)
    finally:
        conn.close()
