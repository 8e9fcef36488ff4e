"""The rest of Neutron's types against the project's real Neutron, through ``openstack stack ...``.

Few stacks, many checks each: the demo user's address scope, subnet pool, RBAC
policy, trunk and extra routes (create, update in place, one replacement, a
refused update, delete); the admin's QoS policy with its four kinds of rule and
a provider network (admin-only types, as in Heat's policy: the demo user is
refused them); the segment type where the cloud offers segments; and a Neutron network made by the
stack of an ``OS::Heat::Stack`` in this region, which acts with its parent's trust.
``network_leaks`` / ``admin_network_leaks`` fail a test that leaves a Neutron
object behind.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.cloud.leaks import admin_network_leaks, network_leaks  # noqa: F401  (fixtures)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    cli,
    delete_stack,
    gone,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

USER = """heat_template_version: 2021-04-16
parameters:
  prefixes: {type: comma_delimited_list, default: "10.51.0.0/24"}
  pool_name: {type: string, default: pool-a}
  target: {type: string}
  vlan: {type: number, default: 101}
  hop: {type: string, default: "10.51.0.10"}
resources:
  scope:
    type: OS::Neutron::AddressScope
    properties: {ip_version: 4}
  pool:
    type: OS::Neutron::SubnetPool
    properties:
      name: {get_param: pool_name}
      prefixes: {get_param: prefixes}
      address_scope: {get_attr: [scope, show, name]}   # a name to resolve
      default_prefixlen: 26
      min_prefixlen: 24
      tags: [one]
  net: {type: OS::Neutron::Net}
  net2: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, subnetpool: {get_resource: pool}}
  router: {type: OS::Neutron::Router}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  routes:                   # after iface by an implicit dependency only
    type: OS::Neutron::ExtraRouteSet
    properties:
      router: {get_resource: router}
      routes:
        - {destination: 192.168.10.0/24, nexthop: {get_param: hop}}
        - {destination: 192.168.20.0/24, nexthop: {get_param: hop}}
  parent:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}, fixed_ips: [{subnet: {get_resource: subnet}}]}
  child:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}, fixed_ips: [{subnet: {get_resource: subnet}}]}
  trunk:
    type: OS::Neutron::Trunk
    properties:
      name: trunk-a
      port: {get_resource: parent}
      sub_ports:
        - {port: {get_resource: child}, segmentation_type: vlan,
           segmentation_id: {get_param: vlan}}
  rbac:
    type: OS::Neutron::RBACPolicy
    properties:
      object_type: network
      object_id: {get_attr: [net, name]}          # a name to resolve
      action: access_as_shared
      target_tenant: {get_param: target}
outputs:
  trunk_port: {value: {get_attr: [trunk, port_id]}}
  scope_show: {value: {get_attr: [scope, show]}}
"""

ADMIN = """heat_template_version: 2021-04-16
parameters:
  max_kbps: {type: number, default: 1000}
  dscp: {type: number, default: 16}
  policy_name: {type: string}
  net_name: {type: string, default: pnet-a}
  external: {type: boolean, default: false}
  description: {type: string, default: first}
  vlan: {type: string, default: "3901"}
resources:
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {name: {get_param: policy_name}, description: {get_param: description}}
  limit:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: {get_resource: qos}, max_kbps: {get_param: max_kbps},
                 max_burst_kbps: 100}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties:
      policy: {get_attr: [qos, show, name]}      # a name to resolve
      dscp_mark: {get_param: dscp}
  minbw:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties: {policy: {get_resource: qos}, min_kbps: 500, direction: egress}
  minpps:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties: {policy: {get_resource: qos}, min_kpps: 1000, direction: any}
  pnet:
    type: OS::Neutron::ProviderNet
    properties:
      name: {get_param: net_name}
      network_type: vlan
      physical_network: public
      segmentation_id: {get_param: vlan}
      shared: false
      router_external: {get_param: external}
outputs:
  rules: {value: {get_attr: [qos, rules]}}
"""


def _routes(conn: Any, router: str) -> set[tuple[str, str]]:
    return {(r["destination"], r["nexthop"]) for r in conn.network.get_router(router).routes}


def _subports(conn: Any, trunk: str) -> set[tuple[str, int]]:
    return {(s["port_id"], s["segmentation_id"])
            for s in conn.network.get_trunk(trunk).sub_ports}


@pytest.mark.usefixtures("network_leaks")
def test_pool_scope_rbac_trunk_and_routes(served: Serving, user_conn: Any,
                                          admin_conn: Any) -> None:
    name = f"nx-{uuid.uuid4().hex[:8]}"
    target = admin_conn.current_project_id
    other = admin_conn.identity.find_project("service", ignore_missing=False).id
    template = template_file(served, USER)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"target={target}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        net = user_conn.network
        scope = net.get_address_scope(ids["scope"])
        assert scope.name.startswith(f"{name}-scope-") and scope.ip_version == 4
        pool = net.get_subnet_pool(ids["pool"])
        assert pool.name == "pool-a" and pool.prefixes == ["10.51.0.0/24"]
        assert pool.address_scope_id == scope.id and pool.default_prefix_length == 26
        assert pool.tags == ["one"]
        subnet = net.get_subnet(ids["subnet"])
        assert subnet.subnet_pool_id == pool.id and subnet.cidr.endswith("/26")
        assert ids["routes"] == ids["router"]
        assert _routes(user_conn, ids["router"]) == {("192.168.10.0/24", "10.51.0.10"),
                                                     ("192.168.20.0/24", "10.51.0.10")}
        trunk = net.get_trunk(ids["trunk"])
        assert trunk.name == "trunk-a" and trunk.port_id == ids["parent"]
        assert _subports(user_conn, ids["trunk"]) == {(ids["child"], 101)}
        rbac = net.get_rbac_policy(ids["rbac"])
        assert (rbac.object_type, rbac.object_id, rbac.action, rbac.target_project_id) == \
            ("network", ids["net"], "access_as_shared", target)
        outputs = outputs_of(show_stack(served, name))
        assert outputs["trunk_port"] == ids["parent"]
        assert outputs["scope_show"]["id"] == scope.id

        # In place: the pool grows and is renamed, one route changes (the other stays),
        # the subport moves to another VLAN, the RBAC policy targets another project.
        # Replaced: the RBAC policy of the other network (its object_id cannot change).
        changed = USER.replace("192.168.20.0/24", "192.168.30.0/24").replace(
            "object_id: {get_attr: [net, name]}", "object_id: {get_resource: net2}")
        params = ["--parameter", f"target={other}", "--parameter", "vlan=102",
                  "--parameter", "prefixes=10.51.0.0/24,10.51.1.0/24",
                  "--parameter", "pool_name=pool-b"]
        updated = stack_action(served, "update", "-t", template_file(served, changed), *params,
                               name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        after = physical_ids(served, name)
        assert after["rbac"] != ids["rbac"] and gone(net.get_rbac_policy, ids["rbac"])
        assert {k: v for k, v in after.items() if k != "rbac"} == \
            {k: v for k, v in ids.items() if k != "rbac"}
        ids = after
        pool = net.get_subnet_pool(ids["pool"])
        assert pool.name == "pool-b"  # Neutron merges the two halves
        assert sorted(pool.prefixes) in (["10.51.0.0/23"], ["10.51.0.0/24", "10.51.1.0/24"])
        assert _routes(user_conn, ids["router"]) == {("192.168.10.0/24", "10.51.0.10"),
                                                     ("192.168.30.0/24", "10.51.0.10")}
        assert _subports(user_conn, ids["trunk"]) == {(ids["child"], 102)}
        rbac = net.get_rbac_policy(ids["rbac"])
        assert (rbac.object_id, rbac.target_project_id) == (ids["net2"], other)

        # A pool's prefixes may only grow: Heat's text, before Neutron is asked.
        shrunk = [*params[:4], "--parameter", "pool_name=pool-b",
                  "--parameter", "prefixes=10.51.0.0/24"]
        failed = stack_action(served, "update", "-t", template_file(served, changed), *shrunk,
                              name, stack=name)
        assert failed == "UPDATE_FAILED"
        reason = show_stack(served, name)["stack_status_reason"]
        assert "Property prefixes updated value ['10.51.0.0/24'] should be superset of " \
               "existing value ['10.51.0.0/24', '10.51.1.0/24']." in reason, reason
    finally:
        delete_stack(served, name)
    if ids:
        assert gone(user_conn.network.get_trunk, ids["trunk"])
        assert gone(user_conn.network.get_subnet_pool, ids["pool"])
        assert gone(user_conn.network.get_address_scope, ids["scope"])
        assert gone(user_conn.network.get_router, ids["router"])


@pytest.mark.usefixtures("admin_network_leaks", "network_leaks")
def test_qos_and_provider_network_as_admin(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = f"nq-{uuid.uuid4().hex[:8]}"
    policy = f"{name}-policy"
    template = template_file(served, ADMIN)

    refused = cli(served, "stack", "create", "-t", template, "--parameter",
                  f"policy_name={policy}", f"{name}-demo", check=False)
    assert refused.returncode != 0
    assert "You are not authorized to use resource_types:OS::Neutron::QoSPolicy." in \
        refused.stderr or "resource_types:OS::Neutron::ProviderNet" in refused.stderr, \
        refused.stderr

    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, "--parameter",
                               f"policy_name={policy}", name, stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        net = admin_conn.network
        qos = net.get_qos_policy(ids["qos"])
        assert qos.name == policy and qos.description == "first"
        assert net.get_qos_bandwidth_limit_rule(ids["limit"], qos).max_kbps == 1000
        assert net.get_qos_dscp_marking_rule(ids["dscp"], qos).dscp_mark == 16
        assert net.get_qos_minimum_bandwidth_rule(ids["minbw"], qos).min_kbps == 500
        assert net.get_qos_minimum_packet_rate_rule(ids["minpps"], qos).min_kpps == 1000
        pnet = net.get_network(ids["pnet"])
        assert (pnet.provider_network_type, pnet.provider_physical_network,
                pnet.provider_segmentation_id) == ("vlan", "public", 3901)
        assert pnet.name == "pnet-a" and pnet.is_router_external is False

        updated = stack_action(served, "update", "-t", template, "--parameter",
                               f"policy_name={policy}", "--parameter", "max_kbps=2000",
                               "--parameter", "dscp=26", "--parameter", "net_name=pnet-b",
                               "--parameter", "external=true", "--parameter", "description=second",
                               name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        assert net.get_qos_bandwidth_limit_rule(ids["limit"], qos).max_kbps == 2000
        assert net.get_qos_dscp_marking_rule(ids["dscp"], qos).dscp_mark == 26
        pnet = net.get_network(ids["pnet"])
        assert pnet.name == "pnet-b" and pnet.is_router_external is True
        assert net.get_qos_policy(ids["qos"]).description == "second"
        # The policy's attributes as its update left them: with its rules, made before.
        rules = outputs_of(show_stack(served, name, admin))["rules"]
        assert {r["id"] for r in rules} == {ids[k] for k in ("limit", "dscp", "minbw",
                                                              "minpps")}
    finally:
        delete_stack(served, name, admin)
        delete_stack(served, f"{name}-demo")
    if ids:
        assert gone(admin_conn.network.get_qos_policy, ids["qos"])
        assert gone(admin_conn.network.get_network, ids["pnet"])


SEGMENT = """heat_template_version: 2021-04-16
resources:
  net: {type: OS::Neutron::Net}
  segment:
    type: OS::Neutron::Segment
    properties: {network: {get_resource: net}, network_type: vxlan, name: seg-a}
"""


@pytest.mark.usefixtures("admin_network_leaks")
def test_segment_where_the_cloud_offers_segments(served: Serving, admin_conn: Any) -> None:
    if not any(e.alias == "segment" for e in admin_conn.network.extensions()):
        pytest.skip("the cloud's Neutron has no segments service plug-in (extension "
                    "'segment'): hotplate, as Heat, does not offer OS::Neutron::Segment")
    admin = served.cloud.admin
    name = f"ns-{uuid.uuid4().hex[:8]}"
    try:
        created = stack_action(served, "create", "-t", template_file(served, SEGMENT), name,
                               stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        segment = admin_conn.network.get_segment(ids["segment"])
        assert segment.name == "seg-a" and segment.network_id == ids["net"]
        changed = SEGMENT.replace("name: seg-a", "name: seg-b")
        assert stack_action(served, "update", "-t", template_file(served, changed), name,
                            stack=name, cloud=admin) == "UPDATE_COMPLETE"
        assert physical_ids(served, name, admin) == ids
        assert admin_conn.network.get_segment(ids["segment"]).name == "seg-b"
    finally:
        delete_stack(served, name, admin)


INLINE = """heat_template_version: 2016-10-14
parameters:
  net_name: {type: string}
resources:
  child:
    type: OS::Heat::Stack
    properties:
      parameters: {net_name: {get_param: net_name}}
      template: |
        heat_template_version: 2016-10-14
        parameters:
          net_name: {type: string}
        resources:
          net:
            type: OS::Neutron::Net
            properties: {name: {get_param: net_name}}
        outputs:
          net_id: {value: {get_resource: net}}
outputs:
  net_id: {value: {get_attr: [child, outputs, net_id]}}
"""

WITHOUT_CHILD = """heat_template_version: 2016-10-14
parameters:
  net_name: {type: string}
resources:
  own:
    type: OS::Neutron::Net
    properties: {name: {get_param: net_name}}
"""


def _output(shown: dict[str, Any], key: str) -> Any:
    return next(o["output_value"] for o in shown.get("outputs") or []
                if o["output_key"] == key)


def test_a_child_stack_makes_its_network_in_the_owners_project(
        served: Serving, user_conn: Any) -> None:
    name = f"nc-{uuid.uuid4().hex[:8]}"
    net_name = f"{name}-net"
    try:
        created = stack_action(served, "create", "-t", template_file(served, INLINE),
                               "--parameter", f"net_name={net_name}", name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name).get("stack_status_reason")
        net_id = _output(show_stack(served, name), "net_id")
        net = user_conn.network.get_network(net_id)
        assert net.name == net_name
        assert net.project_id == user_conn.current_project_id
        assert "child" in physical_ids(served, name)

        # The child goes; the trust it shared stays the parent's, which acts with it next.
        updated = stack_action(served, "update", "-t", template_file(served, WITHOUT_CHILD),
                               "--parameter", f"net_name={net_name}-own", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name).get("stack_status_reason")
        assert not list(user_conn.network.networks(name=net_name))
        again = stack_action(served, "update", "-t", template_file(served, WITHOUT_CHILD),
                             "--parameter", f"net_name={net_name}-own2", name, stack=name)
        assert again == "UPDATE_COMPLETE", show_stack(served, name).get("stack_status_reason")
        own = user_conn.network.get_network(physical_ids(served, name)["own"])
        assert own.name == f"{net_name}-own2"
    finally:
        delete_stack(served, name)
    assert not list(user_conn.network.networks(name=net_name))
    assert not list(user_conn.network.networks(name=f"{net_name}-own2"))
