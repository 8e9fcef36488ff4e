"""The Neutron types' schemas, translations and checks (pure: no cloud)."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.engine.service.type_schemas import _visible_properties
from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.openstack.neutron.api import is_conflict, is_not_found, neutron_error
from hotplate.resources.openstack.neutron.base import (
    ResourceInError,
    ResourceUnknownStatus,
    is_built,
)
from hotplate.resources.openstack.neutron.floating_ip import FloatingIP, FloatingIPAssociation
from hotplate.resources.openstack.neutron.net import Net
from hotplate.resources.openstack.neutron.port import Port
from hotplate.resources.openstack.neutron.router import Router, RouterGateway, RouterInterface
from hotplate.resources.openstack.neutron.security_group import (
    SecurityGroup,
    SecurityGroupRule,
    rule_key,
)
from hotplate.resources.openstack.neutron.subnet import Subnet
from hotplate.resources.support import Status
from hotplate.resources.translation import Rule

WHERE = ("resources", "r", "properties")
TYPES: tuple[type[Resource], ...] = (Net, Subnet, Router, RouterInterface, RouterGateway,
                                      SecurityGroup, SecurityGroupRule, FloatingIP,
                                      FloatingIPAssociation, Port)


def _error(cls: type[Resource], raw: dict[str, Any]) -> str:
    with pytest.raises(StackValidationFailed) as caught:
        cls.validate(raw, WHERE)
    return str(caught.value)


@pytest.mark.parametrize("cls", TYPES)
def test_every_type_reads_as_heats(cls: type[Resource]) -> None:
    assert cls.default_client_name == "neutron"
    for rule in cls.translation_rules:  # every rule names declared properties
        assert rule.path[0] in cls.properties_schema
        if rule.rule is Rule.RESOLVE:
            assert rule.finder
    for name, schema in cls.properties_schema.items():
        assert schema.description or schema.support_status.status is Status.HIDDEN, name


def test_hidden_properties_work_but_are_not_shown() -> None:
    assert "network_id" not in _visible_properties(Subnet)
    assert "network" in _visible_properties(Subnet)
    assert Subnet.validate({"network_id": "n", "cidr": "10.0.0.0/24"}, WHERE)["network"] == "n"
    assert "l3_agent_id" not in _visible_properties(Router)
    assert Router.validate({"l3_agent_id": "a"}, WHERE)["l3_agent_ids"] == ["a"]
    assert RouterGateway.support_status.status is Status.HIDDEN
    props = RouterInterface.validate({"router_id": "r", "subnet_id": "s"}, WHERE)
    assert (props["router"], props["subnet"]) == ("r", "s")
    assert FloatingIP.validate({"floating_network_id": "p"}, WHERE)["floating_network"] == "p"


def test_subnet_checks_say_what_heat_says() -> None:
    assert _error(Subnet, {"network": "n"}) == (
        "At least one of the following properties must be specified: subnetpool, cidr.")
    assert _error(Subnet, {"network": "n", "cidr": "10.0.0.0/24", "subnetpool": "p"}) == (
        "Cannot define the following properties at the same time: subnetpool, cidr.")
    assert _error(Subnet, {"network": "n", "cidr": "10.0.0.0/24",
                           "ipv6_ra_mode": "slaac"}) == (
        "ipv6_ra_mode and ipv6_address_mode are not supported for ipv4.")
    assert _error(Subnet, {"network": "n", "cidr": "10.0.0.0/24", "gateway_ip": "x"}) == (
        'Gateway IP address "x" is in invalid format.')
    assert _error(Subnet, {"cidr": "10.0.0.0/24"}).endswith("Property network not assigned")
    assert Subnet.validate({"network": "n", "cidr": "10.0.0.0/24", "gateway_ip": ""},
                           WHERE)["gateway_ip"] == ""


def test_value_specs_may_not_set_a_property() -> None:
    assert _error(Net, {"value_specs": {"shared": True, "name": "x"}}) == (
        "name, shared not allowed in value_specs")
    assert Net.validate({"value_specs": {"mtu": 1400}}, WHERE)["value_specs"] == {"mtu": 1400}


def test_router_interface_needs_exactly_one_of_subnet_and_port() -> None:
    assert _error(RouterInterface, {"router": "r"}) == (
        "At least one of the following properties must be specified: subnet, port.")
    assert _error(RouterInterface, {"router": "r", "subnet": "s", "port": "p"}) == (
        "Cannot define the following properties at the same time: subnet, port.")


def test_router_agents_and_modes() -> None:
    assert _error(Router, {"l3_agent_ids": ["a", "b"]}) == (
        "Non HA routers can only have one L3 agent.")
    assert _error(Router, {"ha": True, "distributed": True}) == (
        "Cannot define the following properties at the same time: distributed, ha.")


def test_security_group_rules_and_names() -> None:
    assert _error(SecurityGroup, {"name": "default"}) == (
        'Security groups cannot be assigned the name "default".')
    rules = SecurityGroup.validate({"rules": [{"protocol": 6}]}, WHERE)["rules"]
    assert rules == [{"direction": "ingress", "ethertype": "IPv4", "port_range_min": None,
                      "port_range_max": None, "protocol": "6",
                      "remote_mode": "remote_ip_prefix", "remote_group_id": None,
                      "remote_ip_prefix": None, "description": None}]
    assert "is not an allowed value" in _error(SecurityGroup, {"rules": [{"protocol": "x"}]})
    assert _error(SecurityGroupRule, {"security_group": "g", "port_range_min": 90,
                                      "port_range_max": 80}) == (
        "The minimum port number must be less than or equal to the maximum port number.")
    assert SecurityGroupRule.validate({"security_group": "g", "protocol": "icmp",
                                       "port_range_min": 8, "port_range_max": 0}, WHERE)
    assert rule_key({"direction": "ingress", "port_range_min": 22}) == \
        rule_key({"direction": "ingress", "port_range_min": "22"})


def test_floating_ip_fixed_address_needs_a_port() -> None:
    assert _error(FloatingIP, {"floating_network": "p", "fixed_ip_address": "10.0.0.3"}) == (
        "fixed_ip_address cannot be specified without port_id.")


def test_update_in_place_or_replace() -> None:
    old = Subnet.validate({"network": "n", "cidr": "10.0.0.0/24"}, WHERE)
    renamed = Subnet.validate({"network": "n", "cidr": "10.0.0.0/24", "name": "x"}, WHERE)
    moved = Subnet.validate({"network": "n", "cidr": "10.1.0.0/24"}, WHERE)
    assert not Subnet.needs_replacement(old, renamed)
    assert Subnet.needs_replacement(old, moved)
    assert Net.needs_replacement(Net.validate({}, WHERE),
                                 Net.validate({"tenant_id": "t"}, WHERE))
    assert not Net.needs_replacement(Net.validate({}, WHERE),
                                     Net.validate({"name": "x", "tags": ["a"]}, WHERE))
    iface = RouterInterface.validate({"router": "r", "subnet": "s"}, WHERE)
    assert RouterInterface.needs_replacement(iface, {**iface, "subnet": "t"})


def test_status_mapping() -> None:
    assert is_built("ACTIVE") and is_built("DOWN") and not is_built("BUILD")
    with pytest.raises(ResourceInError, match='Went to status ERROR due to "Unknown"'):
        is_built("ERROR")
    with pytest.raises(ResourceUnknownStatus,
                       match='Resource is not built - Unknown status FOO due to "Unknown"'):
        is_built("FOO")


def test_neutron_errors_are_named_as_neutronclient_names_them() -> None:
    from hotplate.cloud.errors import CloudConflict, CloudError, CloudNotFound, CloudOverLimit

    in_use = neutron_error(CloudConflict("409", 409), "NetworkInUse", "Unable to complete")
    assert type(in_use).__name__ == "NetworkInUseClient" and isinstance(in_use, CloudConflict)
    assert is_conflict(in_use) and not is_not_found(in_use)
    gone = neutron_error(CloudNotFound("404", 404), "NetworkNotFound", "Network x not found.")
    assert type(gone).__name__ == "NetworkNotFoundClient" and isinstance(gone, CloudNotFound)
    assert is_not_found(gone)
    quota = neutron_error(CloudOverLimit("409", 409), "OverQuota", "Quota exceeded")
    assert type(quota).__name__ == "OverQuotaClient" and not is_conflict(quota)
    bad = neutron_error(CloudError("400", 400), "HTTPBadRequest", "Invalid input")
    assert type(bad).__name__ == "BadRequest" and str(bad) == "Invalid input"
    assert bad.status == 400  # type: ignore[attr-defined]


def test_port_reads_heats_old_names_and_refuses_ips_with_no_ips() -> None:
    props = Port.validate({"network_id": "n", "fixed_ips": [{"subnet_id": "s"}]}, WHERE)
    assert props["network"] == "n" and props["fixed_ips"][0]["subnet"] == "s"
    assert "network_id" not in _visible_properties(Port)
    assert _error(Port, {"network": "n", "fixed_ips": [{"subnet": "s"}],
                         "no_fixed_ips": True}) == (
        "Cannot define the following properties at the same time: fixed_ips, no_fixed_ips.")
    assert "binding:vnic_type" in _error(Port, {"network": "n",
                                                "binding:vnic_type": "weird"})


def test_port_replacement_policy_replaces_on_any_change() -> None:
    old = Port.validate({"network": "n", "name": "a"}, WHERE)
    new = Port.validate({"network": "n", "name": "b"}, WHERE)
    assert not Port.needs_replacement(old, new)
    always = Port.validate({"network": "n", "name": "b",
                            "replacement_policy": "REPLACE_ALWAYS"}, WHERE)
    assert Port.needs_replacement(old, always)
    moved = Port.validate({"network": "m", "name": "a"}, WHERE)
    assert Port.needs_replacement(old, moved)  # network cannot be updated
