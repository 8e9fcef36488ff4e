"""Implicit dependencies: the Neutron types' rules as graph edges (pure, golden text)."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import CircularDependencyException
from hotplate.resources.openstack.neutron.floating_ip import FloatingIP, FloatingIPAssociation
from hotplate.resources.openstack.neutron.net import Net
from hotplate.resources.openstack.neutron.port import Port
from hotplate.resources.openstack.neutron.router import Router, RouterGateway, RouterInterface
from hotplate.resources.openstack.neutron.subnet import Subnet
from hotplate.template import parse_template
from hotplate.template.implicit_deps import implicit_edges, with_implicit_dependencies

KINDS: dict[str, Any] = {
    "OS::Neutron::Net": Net, "OS::Neutron::Subnet": Subnet, "OS::Neutron::Port": Port,
    "OS::Neutron::Router": Router, "OS::Neutron::RouterInterface": RouterInterface,
    "OS::Neutron::RouterGateway": RouterGateway, "OS::Neutron::FloatingIP": FloatingIP,
    "OS::Neutron::FloatingIPAssociation": FloatingIPAssociation,
}


def _graph(resources: dict[str, Any], params: dict[str, Any] | None = None) -> str:
    template = parse_template({"heat_template_version": "2021-04-16",
                               "resources": resources})
    kinds = {name: KINDS.get(d.type) for name, d in template.resources.items()}
    edges = implicit_edges(template, kinds, lambda k: getattr(k, "implicit_requires", None),
                           params or {})
    return with_implicit_dependencies(template, edges).dependencies().to_text()


NET = {"type": "OS::Neutron::Net"}


def _subnet(net: Any = None, **props: Any) -> dict[str, Any]:
    return {"type": "OS::Neutron::Subnet",
            "properties": {"network": net or {"get_resource": "net"}, "cidr": "10.0.0.0/24",
                           **props}}


def test_a_port_waits_for_every_subnet_of_its_network() -> None:
    text = _graph({
        "net": NET, "other": NET,
        "a": _subnet(), "b": _subnet({"get_resource": "net"}),
        "c": _subnet({"get_resource": "other"}),
        "port": {"type": "OS::Neutron::Port", "properties": {
            "network": {"get_resource": "net"}}},
    })
    assert "port -> a, b, net" in text.splitlines()


def test_a_deprecated_network_id_and_a_name_compare_as_written() -> None:
    text = _graph({
        "sub": {"type": "OS::Neutron::Subnet",
                "properties": {"network_id": "private", "cidr": "10.0.0.0/24"}},
        "port": {"type": "OS::Neutron::Port", "properties": {"network": "private"}},
        "elsewhere": {"type": "OS::Neutron::Port", "properties": {"network": "public"}},
    })
    assert text.splitlines() == ["elsewhere", "port -> sub", "sub"]


def test_a_floating_ip_waits_for_what_makes_its_network_reachable() -> None:
    text = _graph({
        "net": NET, "sub": _subnet(),
        "router": {"type": "OS::Neutron::Router",
                   "properties": {"external_gateway_info": {"network": "public"}}},
        "gw": {"type": "OS::Neutron::RouterGateway",
               "properties": {"router_id": {"get_resource": "router"}, "network": "public"}},
        "iface": {"type": "OS::Neutron::RouterInterface",
                  "properties": {"router": {"get_resource": "router"},
                                 "subnet": {"get_resource": "sub"}}},
        "port": {"type": "OS::Neutron::Port", "properties": {
            "network": {"get_resource": "net"},
            "fixed_ips": [{"subnet": {"get_resource": "sub"}}]}},
        "fip": {"type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public",
                               "port_id": {"get_resource": "port"}}},
        "assoc": {"type": "OS::Neutron::FloatingIPAssociation",
                  "properties": {"floatingip_id": {"get_resource": "fip"},
                                 "port_id": {"get_resource": "port"}}},
    })
    lines = text.splitlines()
    assert "fip -> gw, iface, port, router" in lines
    assert "assoc -> fip, iface, port" in lines
    assert "gw -> iface, router" in lines  # the gateway after the router's interfaces
    assert "port -> net, sub" in lines


def test_a_port_without_fixed_ips_makes_a_floating_ip_wait_for_its_networks_interface(
        ) -> None:
    text = _graph({
        "net": NET, "sub": _subnet(), "far": _subnet({"get_resource": "other"}),
        "other": NET,
        "iface": {"type": "OS::Neutron::RouterInterface",
                  "properties": {"router": "r", "subnet": {"get_resource": "sub"}}},
        "far_iface": {"type": "OS::Neutron::RouterInterface",
                      "properties": {"router": "r", "subnet": {"get_resource": "far"}}},
        "port": {"type": "OS::Neutron::Port", "properties": {
            "network": {"get_resource": "net"}}},
        "fip": {"type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public",
                               "port_id": {"get_resource": "port"}}},
    })
    assert "fip -> iface, port" in text.splitlines()


def test_parameters_are_read_and_unknown_kinds_add_nothing() -> None:
    template = parse_template({
        "heat_template_version": "2021-04-16",
        "parameters": {"net": {"type": "string"}},
        "resources": {"sub": _subnet({"get_param": "net"}),
                      "port": {"type": "OS::Neutron::Port",
                               "properties": {"network": {"get_param": "net"}}},
                      "x": {"type": "OS::Heat::None"}}})
    kinds = {"sub": Subnet, "port": Port}
    def rule(k: Any) -> Any:
        return getattr(k, "implicit_requires", None)
    assert implicit_edges(template, kinds, rule, {"net": "n1"}) == [("port", "sub")]
    assert implicit_edges(template, {}, rule, {"net": "n1"}) == []
    assert with_implicit_dependencies(template, []) is template


def test_a_cycle_through_an_implicit_edge_is_reported_as_heat_reports_it() -> None:
    with pytest.raises(CircularDependencyException) as caught:
        _graph({
            "net": NET,
            "sub": {**_subnet(), "depends_on": "port"},
            "port": {"type": "OS::Neutron::Port",
                     "properties": {"network": {"get_resource": "net"}}},
        })
    assert str(caught.value).startswith("Circular Dependency Found: ")
    assert "port" in str(caught.value) and "sub" in str(caught.value)
