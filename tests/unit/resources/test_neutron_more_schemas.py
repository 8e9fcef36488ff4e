"""The other Neutron types (pools, scopes, QoS, RBAC, provider networks, segments, trunks,
extra routes): schemas, checks, bodies and diffs, pure (no cloud)."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.openstack.neutron.address_scope import AddressScope
from hotplate.resources.openstack.neutron.extrarouteset import (
    ExtraRouteSet,
    duplicate,
    route_changes,
)
from hotplate.resources.openstack.neutron.provider_net import ProviderNet, provider_body
from hotplate.resources.openstack.neutron.qos import (
    QoSBandwidthLimitRule,
    QoSDscpMarkingRule,
    QoSMinimumBandwidthRule,
    QoSMinimumPacketRateRule,
    QoSPolicy,
)
from hotplate.resources.openstack.neutron.rbac_policy import RBACPolicy
from hotplate.resources.openstack.neutron.router import Router, RouterInterface
from hotplate.resources.openstack.neutron.segment import Segment
from hotplate.resources.openstack.neutron.subnetpool import SubnetPool, is_prefix_subset
from hotplate.resources.openstack.neutron.trunk import Trunk, subport_changes
from hotplate.resources.support import Status
from hotplate.resources.translation import Rule
from hotplate.template import parse_template
from hotplate.template.implicit_deps import implicit_edges, with_implicit_dependencies

WHERE = ("resources", "r", "properties")
TYPES: dict[str, type[Resource]] = {
    "OS::Neutron::ExtraRouteSet": ExtraRouteSet, "OS::Neutron::AddressScope": AddressScope,
    "OS::Neutron::SubnetPool": SubnetPool, "OS::Neutron::QoSPolicy": QoSPolicy,
    "OS::Neutron::QoSBandwidthLimitRule": QoSBandwidthLimitRule,
    "OS::Neutron::QoSDscpMarkingRule": QoSDscpMarkingRule,
    "OS::Neutron::QoSMinimumBandwidthRule": QoSMinimumBandwidthRule,
    "OS::Neutron::QoSMinimumPacketRateRule": QoSMinimumPacketRateRule,
    "OS::Neutron::RBACPolicy": RBACPolicy, "OS::Neutron::ProviderNet": ProviderNet,
    "OS::Neutron::Segment": Segment, "OS::Neutron::Trunk": Trunk,
}
EXTENSIONS = {
    "OS::Neutron::ExtraRouteSet": "extraroute-atomic", "OS::Neutron::AddressScope":
    "address-scope", "OS::Neutron::SubnetPool": "subnet_allocation",
    "OS::Neutron::QoSPolicy": "qos", "OS::Neutron::QoSBandwidthLimitRule": "qos",
    "OS::Neutron::QoSDscpMarkingRule": "qos",
    "OS::Neutron::QoSMinimumBandwidthRule": "qos-bw-minimum-ingress",
    "OS::Neutron::QoSMinimumPacketRateRule": "qos-pps-minimum",
    "OS::Neutron::RBACPolicy": "rbac-policies", "OS::Neutron::ProviderNet": "provider",
    "OS::Neutron::Segment": "segment", "OS::Neutron::Trunk": "trunk",
}
"""Heat 27.0.1's ``required_service_extension`` of each type."""


def _error(cls: type[Resource], raw: dict[str, Any]) -> str:
    with pytest.raises(StackValidationFailed) as caught:
        cls.validate(raw, WHERE)
    return str(caught.value)


def test_types_are_registered_with_heats_extensions() -> None:
    registered = {e.name: e.load() for e in entry_points(group="hotplate.resources")}
    for name, cls in TYPES.items():
        assert registered[name] is cls
        assert cls.default_client_name == "neutron"
        assert cls.required_service_extension == EXTENSIONS[name]
        for rule in cls.translation_rules:
            assert rule.path[0] in cls.properties_schema
            assert rule.rule is not Rule.RESOLVE or rule.finder
        for prop, schema in cls.properties_schema.items():
            assert schema.description, (name, prop)
    assert "OS::Neutron::ExtraRoute" not in registered  # unsupported in Heat 27.0.1


def test_support_versions_and_defaults() -> None:
    assert SubnetPool.support_status.version == "6.0.0"
    assert QoSMinimumPacketRateRule.support_status.version == "19.0.0"
    assert ExtraRouteSet.support_status.status is Status.SUPPORTED
    assert ProviderNet.validate({"network_type": "vxlan"}, WHERE)["shared"] is True
    assert AddressScope.validate({}, WHERE)["ip_version"] == 4
    rule = QoSBandwidthLimitRule.validate({"policy": "p", "max_kbps": 10}, WHERE)
    assert (rule["max_burst_kbps"], rule["direction"]) == (0, "egress")
    assert "any" in _error(QoSBandwidthLimitRule,
                           {"policy": "p", "max_kbps": 1, "direction": "any"})
    QoSMinimumPacketRateRule.validate({"policy": "p", "min_kpps": 1, "direction": "any"}, WHERE)
    assert "42" in _error(QoSDscpMarkingRule, {"policy": "p", "dscp_mark": 42})


def test_subnet_pool_bounds_and_prefixes() -> None:
    assert _error(SubnetPool, {"prefixes": ["10.0.0.0/8"], "min_prefixlen": 28,
                               "max_prefixlen": 24}) == (
        "Illegal prefix bounds: max_prefixlen=24, min_prefixlen=28.")
    assert _error(SubnetPool, {"prefixes": ["10.0.0.0/8"], "default_prefixlen": 30,
                               "max_prefixlen": 24}) == (
        "Illegal prefix bounds: max_prefixlen=24, default_prefixlen=30.")
    assert _error(SubnetPool, {"prefixes": ["10.0.0.0/8"], "default_prefixlen": 20,
                               "min_prefixlen": 24}) == (
        "Illegal prefix bounds: min_prefixlen=24, default_prefixlen=20.")
    assert "prefixes" in _error(SubnetPool, {"prefixes": []})
    assert is_prefix_subset(["10.0.0.0/24"], ["10.0.0.0/25", "10.0.0.128/25"])
    assert is_prefix_subset(["10.0.0.0/24"], ["10.0.0.0/16", "fd00::/64"])
    assert not is_prefix_subset(["10.0.0.0/24", "10.0.1.0/24"], ["10.0.0.0/24"])
    assert not is_prefix_subset(["fd00::/64"], ["10.0.0.0/8"])


def test_rbac_actions_by_object_type() -> None:
    good = {"object_type": "network", "object_id": "n", "target_tenant": "t",
            "action": "access_as_external"}
    RBACPolicy.validate(good, WHERE)
    assert _error(RBACPolicy, {**good, "object_type": "qos_policy"}) == (
        'resources.r.properties.action: Invalid action "access_as_external" for object type '
        "qos_policy. Valid actions: access_as_shared")
    assert RBACPolicy.resolves_properties()

    class Finder:
        def find(self, kind: str, name: str) -> str:
            return f"{kind}:{name}"

    resolved = RBACPolicy.resolve_properties({**good, "object_type": "subnetpool"}, Finder())
    assert resolved["object_id"] == "subnetpool:n"
    props = RBACPolicy.validate(good, WHERE)
    assert not RBACPolicy.needs_replacement(props, {**props, "target_tenant": "u"})
    assert RBACPolicy.needs_replacement(props, {**props, "object_id": "m"})


def test_provider_network_checks_and_body() -> None:
    assert _error(ProviderNet, {"network_type": "flat", "segmentation_id": "3"}) == (
        "segmentation_id not allowed for network types: local, flat")
    assert _error(ProviderNet, {"network_type": "vxlan", "physical_network": "p"}) == (
        "physical_network not allowed for network types: vxlan, gre, geneve, flat")
    assert provider_body({"name": "n", "network_type": "vlan", "physical_network": "p",
                          "segmentation_id": "7", "router_external": True}) == {
        "name": "n", "provider:network_type": "vlan", "provider:physical_network": "p",
        "provider:segmentation_id": "7", "router:external": True}
    assert "qos_policy" not in ProviderNet.properties_schema


def test_segment_checks() -> None:
    base = {"network": "n"}
    assert _error(Segment, {**base, "network_type": "vlan", "segmentation_id": 5}) == (
        "physical_network is required for vlan provider network.")
    assert _error(Segment, {**base, "network_type": "vlan", "physical_network": "p"}) == (
        "segmentation_id is required for vlan provider network.")
    assert _error(Segment, {**base, "network_type": "flat", "physical_network": "p",
                            "segmentation_id": 3}) == (
        "segmentation_id is prohibited for flat provider network.")
    assert _error(Segment, {**base, "network_type": "geneve", "physical_network": "p"}) == (
        "physical_network is prohibited for geneve provider network.")
    assert _error(Segment, {**base, "network_type": "vlan", "physical_network": "p",
                            "segmentation_id": 4095}) == (
        "Up to 4094 VLAN network segments can exist on each physical_network.")
    Segment.validate({**base, "network_type": "vxlan"}, WHERE)


def test_trunk_subports_diffed_one_by_one() -> None:
    a = {"port": "a", "segmentation_type": "vlan", "segmentation_id": 1}
    b = {"port": "b", "segmentation_type": "vlan", "segmentation_id": 2}
    moved = {**b, "segmentation_id": 3}
    assert subport_changes([a, b], [a, moved]) == ([b], [moved])
    assert subport_changes([], [a]) == ([], [a])
    assert subport_changes([a], [a]) == ([], [])
    props = Trunk.validate({"port": "p", "sub_ports": [a]}, WHERE)
    assert not Trunk.needs_replacement(props, {**props, "sub_ports": [b], "name": "x"})
    assert Trunk.properties_schema["port"].immutable
    assert "4094" in _error(Trunk, {"port": "p", "sub_ports": [{**a, "segmentation_id": 5000}]})


def test_extra_routes_diffed_and_duplicates_refused() -> None:
    one = {"destination": "10.1.0.0/24", "nexthop": "10.0.0.5"}
    two = {"destination": "10.2.0.0/24", "nexthop": "10.0.0.5"}
    three = {"destination": "10.3.0.0/24", "nexthop": "10.0.0.6"}
    assert route_changes([one, two], [one, three]) == ([two], [three])
    error = duplicate("r1", [two, one], [three, one])
    assert error is not None and str(error) == (
        "The Resource (r1,10.1.0.0/24=10.0.0.5) already exists.")
    assert duplicate("r1", [two], [one, three]) is None
    props = ExtraRouteSet.validate({"router": "r", "routes": [one]}, WHERE)
    assert not ExtraRouteSet.needs_replacement(props, {**props, "routes": [two]})
    assert ExtraRouteSet.needs_replacement(props, {**props, "router": "s"})


def test_extra_routes_wait_for_the_interfaces_of_their_router() -> None:
    template = parse_template({"heat_template_version": "2021-04-16", "resources": {
        "router": {"type": "OS::Neutron::Router"},
        "other": {"type": "OS::Neutron::Router"},
        "iface": {"type": "OS::Neutron::RouterInterface",
                  "properties": {"router": {"get_resource": "router"}, "subnet": "s"}},
        "elsewhere": {"type": "OS::Neutron::RouterInterface",
                      "properties": {"router": {"get_resource": "other"}, "subnet": "s"}},
        "routes": {"type": "OS::Neutron::ExtraRouteSet",
                   "properties": {"router": {"get_resource": "router"}}},
    }})
    kinds = {"router": Router, "other": Router, "iface": RouterInterface,
             "elsewhere": RouterInterface, "routes": ExtraRouteSet}
    edges = implicit_edges(template, kinds, lambda k: getattr(k, "implicit_requires", None),
                           {})
    text = with_implicit_dependencies(template, edges).dependencies().to_text()
    assert "routes -> iface, router" in text.splitlines()

def test_qos_rules_live_under_their_policy() -> None:
    assert QoSPolicy.collection == "qos/policies" and QoSPolicy.list_key == "policies"
    for cls in (QoSBandwidthLimitRule, QoSDscpMarkingRule, QoSMinimumBandwidthRule,
                QoSMinimumPacketRateRule):
        assert cls.collection == f"{cls.entity}s"
        assert not cls.names_itself
        props = cls.validate({"policy": "p", **_rule_value(cls)}, WHERE)
        assert cls.needs_replacement(props, {**props, "policy": "q"})
        assert [r.finder for r in cls.translation_rules] == ["qos_policy"]


def _rule_value(cls: type[Resource]) -> dict[str, Any]:
    key = next(k for k, s in cls.properties_schema.items() if s.required and k != "policy")
    return {key: 16}
