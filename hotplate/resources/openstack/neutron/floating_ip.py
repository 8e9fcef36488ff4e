"""OS::Neutron::FloatingIP and FloatingIPAssociation (Heat's ``floatingip.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import CheckResult
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.neutron.api import ignoring, is_not_found
from hotplate.resources.openstack.neutron.base import NeutronResource, either, peers_of
from hotplate.resources.openstack.neutron.port import Port
from hotplate.resources.openstack.neutron.router import Router, RouterGateway, RouterInterface
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule
from hotplate.template.implicit_deps import Peer

__all__ = ["FloatingIP", "FloatingIPAssociation"]

_PORT_DOC = ("ID of an existing port with at least one IP address to associate with this "
             "floating IP.")
_FIXED_DOC = "IP address to use if the port has multiple addresses."


class FloatingIP(NeutronResource):
    """A resource for managing Neutron floating ips.

    Floating IP addresses can change their association between routers by
    action of the user. One of the most common use cases for floating IPs is
    to provide public IP addresses to a private cloud, where there are a
    limited number of IP addresses available. Another is for a public cloud
    user to have a "static" IP address that can be reassigned when an instance
    is upgraded or moved.
    """

    entity = "floatingip"
    collection = "floatingips"
    marked = True

    properties_schema = {
        "floating_network_id": Schema(
            Schema.STRING, constraints=[CustomConstraint("neutron.network")],
            support_status=SupportStatus(Status.HIDDEN, "5.0.0", "Use property "
                                         "floating_network.",
                                         SupportStatus(Status.DEPRECATED, "2014.2"))),
        "floating_network": Schema(Schema.STRING, "Network to allocate floating IP from.",
                                   required=True,
                                   constraints=[CustomConstraint("neutron.network")],
                                   support_status=SupportStatus(version="2014.2")),
        "floating_subnet": Schema(Schema.STRING, "Subnet to allocate floating IP from.",
                                  constraints=[CustomConstraint("neutron.subnet")],
                                  support_status=SupportStatus(version="9.0.0")),
        "value_specs": Schema(Schema.MAP, 'Extra parameters to include in the "floatingip" '
                              "object in the creation request. Parameters are often specific "
                              "to installed hardware or extensions.", default={}),
        "port_id": Schema(Schema.STRING, _PORT_DOC, update_allowed=True,
                          constraints=[CustomConstraint("neutron.port")]),
        "fixed_ip_address": Schema(Schema.STRING, _FIXED_DOC, update_allowed=True,
                                   constraints=[CustomConstraint("ip_addr")]),
        "floating_ip_address": Schema(Schema.STRING, "IP address of the floating IP. NOTE: The "
                                      "default policy setting in Neutron restricts usage of "
                                      "this property to administrative users only.",
                                      constraints=[CustomConstraint("ip_addr")],
                                      support_status=SupportStatus(version="5.0.0")),
        "dns_name": Schema(Schema.STRING, "DNS name associated with floating ip.",
                           update_allowed=True, constraints=[CustomConstraint("rel_dns_name")],
                           support_status=SupportStatus(version="7.0.0")),
        "dns_domain": Schema(Schema.STRING, "DNS domain associated with floating ip.",
                             update_allowed=True, constraints=[CustomConstraint("dns_domain")],
                             support_status=SupportStatus(version="7.0.0")),
    }

    attributes_schema = {
        "router_id": Attribute("ID of the router used as gateway, set when associated with a "
                               "port.", Attribute.STRING),
        "tenant_id": Attribute("The tenant owning this floating IP.", Attribute.STRING),
        "floating_network_id": Attribute("ID of the network in which this IP is allocated.",
                                         Attribute.STRING),
        "fixed_ip_address": Attribute("IP address of the associated port, if specified.",
                                      Attribute.STRING),
        "floating_ip_address": Attribute("The allocated address of this IP.",
                                         Attribute.STRING),
        "port_id": Attribute("ID of the port associated with this IP.", Attribute.STRING),
    }

    translation_rules = (
        TranslationRule.replace(("floating_network",), "floating_network_id"),
        TranslationRule.resolve(("floating_network",), "network"),
        TranslationRule.resolve(("floating_subnet",), "subnet"),
    )

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """What makes the floating network reachable (Heat's FloatingIP.add_dependencies):
        a gateway or router on that network, and a router interface on the subnet of a
        port this IP is given to."""
        network = either(me.properties, "floating_network", "floating_network_id")
        found = [g.name for g in peers_of(peers, RouterGateway)
                 if network and either(g.properties, "network", "network_id") == network]
        for router in peers_of(peers, Router):
            gateway = router.properties.get("external_gateway_info")
            if network and isinstance(gateway, Mapping) and gateway.get("network") == network:
                found.append(router.name)
        return found + _interfaces_for_ports(me, peers, any_port_without_ips=True)

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        if ("port_id" in props and props.get("port_id") is None
                and props.get("fixed_ip_address") is not None):
            raise StackValidationFailed("fixed_ip_address cannot be specified without port_id.")

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["floating_network_id"] = body.pop("floating_network")
        if "floating_subnet" in body:
            body["subnet_id"] = body.pop("floating_subnet")
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        """Heat sends the association as a whole (port and fixed IP) on any change."""
        body = {key: prop_diff[key] for key in ("dns_name", "dns_domain") if key in prop_diff}
        if body and not ({"port_id", "fixed_ip_address"} & set(prop_diff)):
            return body
        body["port_id"] = prop_diff.get("port_id", self.properties.get("port_id"))
        body["fixed_ip_address"] = prop_diff.get("fixed_ip_address",
                                                 self.properties.get("fixed_ip_address"))
        return body


class FloatingIPAssociation(NeutronResource):
    """A resource for associating floating ips and ports.

    This resource allows associating a floating IP to a port with at least one
    IP address to associate with this floating IP.
    """

    names_itself = False

    properties_schema = {
        "floatingip_id": Schema(Schema.STRING, "ID of the floating IP to associate.",
                                required=True, update_allowed=True),
        "port_id": Schema(Schema.STRING, _PORT_DOC, required=True, update_allowed=True,
                          constraints=[CustomConstraint("neutron.port")]),
        "fixed_ip_address": Schema(Schema.STRING, _FIXED_DOC, update_allowed=True,
                                   constraints=[CustomConstraint("ip_addr")]),
    }

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """The router interface on the subnet of the port it associates (Heat's
        FloatingIPAssociation.add_dependencies)."""
        return _interfaces_for_ports(me, peers, any_port_without_ips=False)

    def _associate(self, fip: str, port: Any, fixed: Any) -> None:
        body: dict[str, Any] = {"port_id": port}
        if fixed is not None:
            body["fixed_ip_address"] = fixed
        self.neutron().update("floatingips", "floatingip", fip, body)

    def handle_create(self) -> Any:
        props = self.properties
        self._associate(props["floatingip_id"], props["port_id"], props.get("fixed_ip_address"))
        self.resource_id_set(self.ctx.uuid)
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        old = self.properties
        if "floatingip_id" in prop_diff:
            self._dissociate(old["floatingip_id"])
        self._associate(prop_diff.get("floatingip_id") or old["floatingip_id"],
                        prop_diff.get("port_id") or old["port_id"],
                        prop_diff.get("fixed_ip_address") or old.get("fixed_ip_address"))
        return super(NeutronResource, self).handle_update(new_properties, prop_diff)

    def _dissociate(self, fip: str) -> None:
        with ignoring(is_not_found):
            self.neutron().update("floatingips", "floatingip", fip, {"port_id": None})

    def handle_delete(self) -> Any:
        if self.resource_id:
            self._dissociate(self.properties["floatingip_id"])
        return None

    def check_create_complete(self, data: Any) -> CheckResult:
        return True

    def check_delete_complete(self, data: Any) -> CheckResult:
        return True

    live_state = False  # no object of its own to read back

    def _show_resource(self) -> Any:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        return None


def _interfaces_for_ports(me: Peer, peers: Mapping[str, Peer], *,
                          any_port_without_ips: bool) -> list[str]:
    """The router interfaces on the subnet of a port ``me`` requires.

    A port given no fixed IPs may take its address from any subnet of its
    network: a floating IP then waits for an interface without a subnet, or on
    a subnet of that network (Heat asks Neutron for the network's subnets; here
    the template's own subnet says its network).
    """
    ports = [peers[n] for n in sorted(me.requires) if n in peers
             and isinstance(peers[n].kind, type) and issubclass(peers[n].kind, Port)]
    found = []
    for interface in peers_of(peers, RouterInterface):
        subnet = either(interface.properties, "subnet", "subnet_id")
        if any(_port_on_subnet(p, subnet, peers, any_port_without_ips) for p in ports):
            found.append(interface.name)
    return found


def _port_on_subnet(port: Peer, subnet: Any, peers: Mapping[str, Peer],
                    any_port_without_ips: bool) -> bool:
    fixed_ips = port.properties.get("fixed_ips") or []
    if not fixed_ips:
        if not any_port_without_ips:
            return False
        if subnet is None:
            return True
        network = either(port.properties, "network", "network_id")
        named = peers.get(subnet) if isinstance(subnet, str) else None
        return bool(network and named is not None
                    and either(named.properties, "network", "network_id") == network)
    return any(isinstance(ip, Mapping) and either(ip, "subnet", "subnet_id") == subnet
               for ip in fixed_ips)
