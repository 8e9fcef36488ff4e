"""OS::Neutron::Subnet: an address block of a network (Heat's ``Subnet``)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Range
from hotplate.resources.openstack.neutron.base import NeutronResource, ResourceActionNotSupported
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Subnet"]

_IPV6_MODES = ("dhcpv6-stateful", "dhcpv6-stateless", "slaac")


def _pool_or_route(first: str, first_doc: str, first_check: str,
                   second: str, second_doc: str) -> Schema:
    return Schema(Schema.MAP, schema={
        first: Schema(Schema.STRING, first_doc, required=True,
                      constraints=[CustomConstraint(first_check)]),
        second: Schema(Schema.STRING, second_doc, required=True,
                       constraints=[CustomConstraint("ip_addr")]),
    })


def conflict(*names: str) -> StackValidationFailed:
    """Heat's ResourcePropertyConflict text."""
    return StackValidationFailed(
        f"Cannot define the following properties at the same time: {', '.join(names)}.")


class Subnet(NeutronResource):
    """A resource for managing Neutron subnets.

    A subnet represents an IP address block that can be used for assigning IP
    addresses to virtual instances. Each subnet must have a CIDR and must be
    associated with a network. IPs can be either selected from the whole subnet
    CIDR, or from "allocation pools" that can be specified by the user.
    """

    entity = "subnet"
    collection = "subnets"
    taggable = True

    properties_schema = {
        "network_id": Schema(
            Schema.STRING, constraints=[CustomConstraint("neutron.network")],
            support_status=SupportStatus(
                Status.HIDDEN, "5.0.0", "Use property network.",
                SupportStatus(Status.DEPRECATED, "2014.2"))),
        "network": Schema(Schema.STRING, "The ID of the attached network.", required=True,
                          constraints=[CustomConstraint("neutron.network")],
                          support_status=SupportStatus(version="2014.2")),
        "subnetpool": Schema(Schema.STRING, "The name or ID of the subnet pool.",
                             constraints=[CustomConstraint("neutron.subnetpool")],
                             support_status=SupportStatus(version="6.0.0")),
        "prefixlen": Schema(Schema.INTEGER, "Prefix length for subnet allocation from subnet "
                            "pool.", constraints=[Range(min=0)],
                            support_status=SupportStatus(version="6.0.0")),
        "cidr": Schema(Schema.STRING, "The CIDR.", constraints=[CustomConstraint("net_cidr")]),
        "value_specs": Schema(Schema.MAP, "Extra parameters to include in the request.",
                              default={}, update_allowed=True),
        "name": Schema(Schema.STRING, "The name of the subnet.", update_allowed=True),
        "ip_version": Schema(Schema.INTEGER, "The IP version, which is 4 or 6.", default=4,
                             constraints=[AllowedValues((4, 6))]),
        "dns_nameservers": Schema(Schema.LIST, "A specified set of DNS name servers to be "
                                  "used.", default=[], update_allowed=True),
        "gateway_ip": Schema(
            Schema.STRING, 'The gateway IP address. Set to any of [ null | ~ | "" ] to '
            "create/update a subnet without a gateway. If omitted when creation, neutron will "
            "assign the first free IP address within the subnet to the gateway automatically. "
            "If remove this from template when update, the old gateway IP address will be "
            "detached.", update_allowed=True),
        "enable_dhcp": Schema(Schema.BOOLEAN, "Set to true if DHCP is enabled and false if "
                              "DHCP is disabled.", default=True, update_allowed=True),
        "allocation_pools": Schema(
            Schema.LIST, "The start and end addresses for the allocation pools.",
            schema=_pool_or_route("start", "Start address for the allocation pool.",
                                  "ip_addr", "end", "End address for the allocation pool."),
            update_allowed=True),
        "tenant_id": Schema(Schema.STRING, "The ID of the tenant who owns the network. Only "
                            "administrative users can specify a tenant ID other than their "
                            "own."),
        "host_routes": Schema(
            Schema.LIST, "A list of host route dictionaries for the subnet.",
            schema=_pool_or_route("destination", "The destination for static route.",
                                  "net_cidr", "nexthop", "The next hop for the destination."),
            update_allowed=True),
        "ipv6_ra_mode": Schema(Schema.STRING, "IPv6 RA (Router Advertisement) mode.",
                               constraints=[AllowedValues(_IPV6_MODES)],
                               support_status=SupportStatus(version="2015.1")),
        "ipv6_address_mode": Schema(Schema.STRING, "IPv6 address mode.",
                                    constraints=[AllowedValues(_IPV6_MODES)],
                                    support_status=SupportStatus(version="2015.1")),
        "segment": Schema(Schema.STRING, "The name/ID of the segment to associate.",
                          constraints=[CustomConstraint("neutron.segment")],
                          update_allowed=True,
                          support_status=SupportStatus(
                              Status.SUPPORTED, "11.0.0", "Update allowed since version "
                              "11.0.0.", SupportStatus(Status.SUPPORTED, "9.0.0"))),
        "tags": Schema(Schema.LIST, "The tags to be added to the subnet.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="9.0.0")),
    }

    attributes_schema = {
        "name": Attribute("Friendly name of the subnet.", Attribute.STRING),
        "network_id": Attribute("Parent network of the subnet.", Attribute.STRING),
        "tenant_id": Attribute("Tenant owning the subnet.", Attribute.STRING),
        "allocation_pools": Attribute("Ip allocation pools and their ranges.", Attribute.LIST),
        "gateway_ip": Attribute("Ip of the subnet's gateway.", Attribute.STRING),
        "host_routes": Attribute("Additional routes for this subnet.", Attribute.LIST),
        "ip_version": Attribute("Ip version for the subnet.", Attribute.STRING),
        "cidr": Attribute("CIDR block notation for this subnet.", Attribute.STRING),
        "dns_nameservers": Attribute("List of dns nameservers.", Attribute.LIST),
        "enable_dhcp": Attribute("'true' if DHCP is enabled for this subnet; 'false' "
                                 "otherwise.", Attribute.STRING),
    }

    translation_rules = (
        TranslationRule.replace(("network",), "network_id"),
        TranslationRule.resolve(("network",), "network"),
        TranslationRule.resolve(("subnetpool",), "subnetpool"),
        TranslationRule.resolve(("segment",), "segment"),
    )

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's Subnet.validate: a CIDR or a pool, IPv6 modes only for IPv6, a valid
        gateway."""
        super().check_properties(props, path)
        pool, prefixlen, cidr = props.get("subnetpool"), props.get("prefixlen"), props.get("cidr")
        if pool is not None and cidr:
            raise conflict("subnetpool", "cidr")
        if pool is None and not cidr and "cidr" in props and "subnetpool" in props:
            raise StackValidationFailed("At least one of the following properties must be "
                                        "specified: subnetpool, cidr.")
        if prefixlen and cidr:
            raise conflict("prefixlen", "cidr")
        ra_mode, address_mode = props.get("ipv6_ra_mode"), props.get("ipv6_address_mode")
        if props.get("ip_version") == 4 and (ra_mode or address_mode):
            raise StackValidationFailed(
                "ipv6_ra_mode and ipv6_address_mode are not supported for ipv4.")
        if ra_mode and address_mode and ra_mode != address_mode:
            raise StackValidationFailed("When both ipv6_ra_mode and ipv6_address_mode are "
                                        "set, they must be equal.")
        gateway = props.get("gateway_ip")
        if gateway and gateway not in ("~", "", "auto") and not _is_ip(gateway):
            raise StackValidationFailed(f'Gateway IP address "{gateway}" is in invalid format.')

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["network_id"] = body.pop("network")
        if body.get("segment"):
            body["segment_id"] = body.pop("segment")
        if body.get("subnetpool"):
            body["subnetpool_id"] = body.pop("subnetpool")
        _normalise_gateway(body)
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = super().update_body(prop_diff)
        if "allocation_pools" in body and body["allocation_pools"] is None:
            body["allocation_pools"] = []
        if body.get("segment"):
            if self.properties.get("segment") is not None:
                raise ResourceActionNotSupported(
                    "Updating the subnet segment assciation only allowed when the current "
                    "segment_id is None. The subnet is currently associated with segment. In "
                    "this state update")
            body["segment_id"] = body.pop("segment")
        if body.get("gateway_ip") == "auto":
            raise ResourceActionNotSupported(
                'The value "auto" for gateway_ip cannot be used to update an existing subnet. '
                "It is only supported during subnet creation.")
        _normalise_gateway(body)
        return body


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _normalise_gateway(body: dict[str, Any]) -> None:
    """Heat's reading of ``gateway_ip``: "" means no gateway, "auto" Neutron's choice; an
    update that drops it (None) detaches the gateway, a create without one lets Neutron
    choose."""
    if "gateway_ip" not in body:
        return
    if body["gateway_ip"] == "":
        body["gateway_ip"] = None
    elif body["gateway_ip"] == "auto":
        del body["gateway_ip"]
