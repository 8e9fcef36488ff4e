"""AWS::EC2::EIP and AWS::EC2::EIPAssociation (Heat's ``aws/ec2/eip.py``).

An EIP is a Neutron floating IP on the cloud's one external network (two or
none is Heat's error), given to ``InstanceId``'s first interface (its first
IPv4 address) when set; ``InstanceId`` changes in place (given to the new
server, or taken back when unset). Its reference is the address (the name
before there is one), its ``AllocationId`` the floating IP's id.

An association gives an existing floating IP, named by its address (``EIP``,
then ``InstanceId`` is needed) or by its id (``AllocationId``), to a server's
first interface or to a port (``NetworkInterfaceId``). With an id, a router
named as the port's network (Heat's VPC router) first gets the floating
network as its gateway. Updates follow Heat's:

=====================================  ========================================
what changes                           what happens
=====================================  ========================================
EIP or AllocationId, with the target   replaced
EIP or AllocationId alone              in place: taken from the old target's
                                       floating IP, the new one given
InstanceId or NetworkInterfaceId       in place: the same floating IP given to
                                       the new target
=====================================  ========================================

A server's interfaces are Neutron's ports bound to it (what Nova's interface
list reads). Neither type has a ``show`` view (Heat's have no entity).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.neutron.api import NeutronApi, ignoring, is_not_found
from hotplate.resources.openstack.quota import PropertyUnspecifiedError
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus

__all__ = ["ElasticIp", "ElasticIpAssociation", "EntityMatchNotFound", "InterfaceNotFound",
           "check_association"]

INSTANCE_ID, EIP, ALLOCATION_ID, NETWORK_INTERFACE_ID = (
    "InstanceId", "EIP", "AllocationId", "NetworkInterfaceId")
FIPS = ("floatingips", "floatingip")


class InterfaceNotFound(HotplateError):
    def __init__(self, server: str) -> None:
        super().__init__(f"No network interface found for server {server}.")


class EntityMatchNotFound(HotplateError):
    def __init__(self, address: str) -> None:
        super().__init__(f"No floatingip matching {{'ip_address': '{address}'}}.")


class _Error(HotplateError):
    """Heat's generic ``Error``."""


class _NotFound(HotplateError):
    """Heat's ``NotFound``."""


class _FloatingIps:
    """The floating IP calls both types make (Heat's Nova client plugin helpers)."""

    def __init__(self, cloud: Any) -> None:
        self.neutron = NeutronApi(cloud)

    def external_network(self) -> str:
        found = self.neutron.find_all("networks", **{"router:external": "True"})
        if len(found) != 1:
            raise _Error(f"Expected 1 external network, found {len(found)}")
        return str(found[0]["id"])

    def first_port(self, **query: str) -> dict[str, Any] | None:
        ports = self.neutron.find_all("ports", **query)
        return ports[0] if ports else None

    def give(self, server: str, fip: str) -> None:
        """The floating IP to the server's first interface, at its first IPv4 address."""
        port = self.first_port(device_id=server)
        if port is None:
            raise InterfaceNotFound(server)
        fixed = next(ip["ip_address"] for ip in port.get("fixed_ips") or []
                     if ipaddress.ip_address(ip["ip_address"]).version == 4)
        self.neutron.update(*FIPS, fip, {"port_id": port["id"], "fixed_ip_address": fixed})

    def take_back(self, fip: str) -> None:
        self.neutron.update(*FIPS, fip, {"port_id": None, "fixed_ip_address": None})

    def by_address(self, address: str) -> str:
        found = self.neutron.find_all("floatingips", floating_ip_address=address)
        if not found:
            raise EntityMatchNotFound(address)
        return str(found[0]["id"])


class ElasticIp(Resource):
    """An AWS-compatible elastic IP: a floating IP on the external network."""

    heat_class_name = "ElasticIp"
    default_client_name = "nova"

    properties_schema = {
        "Domain": Schema(Schema.STRING, 'Set to "vpc" to have IP address allocation '
                         "associated to your VPC.", constraints=[AllowedValues(("vpc",))],
                         support_status=SupportStatus(
                             Status.DEPRECATED, "9.0.0", "Now we only allow vpc here, so "
                             "no need to set up this tag anymore.")),
        INSTANCE_ID: Schema(Schema.STRING, "Instance ID to associate with EIP.",
                            update_allowed=True,
                            constraints=[CustomConstraint("nova.server")]),
    }

    attributes_schema = {
        "AllocationId": Attribute("ID that AWS assigns to represent the allocation of the "
                                  "address for use with Amazon VPC. Returned only for VPC "
                                  "elastic IP addresses.", Attribute.STRING),
    }

    def fips(self) -> _FloatingIps:
        return _FloatingIps(self.cloud)

    def handle_create(self) -> Any:
        fips = self.fips()
        made = fips.neutron.create(*FIPS, {"floating_network_id": fips.external_network()})
        self.resource_id_set(str(made["id"]))
        self.data_set("ip_address", str(made["floating_ip_address"]))
        if self.properties.get(INSTANCE_ID):
            fips.give(self.properties[INSTANCE_ID], str(made["id"]))
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if INSTANCE_ID in prop_diff:
            if prop_diff[INSTANCE_ID]:
                self.fips().give(prop_diff[INSTANCE_ID], str(self.resource_id))
            else:
                self.fips().take_back(str(self.resource_id))
        return super().handle_update(new_properties, prop_diff)

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        fips = self.fips()
        if self.properties.get(INSTANCE_ID):
            with ignoring(is_not_found):
                fips.take_back(str(self.resource_id))
        fips.neutron.delete("floatingips", str(self.resource_id))  # 404: already gone
        return None

    def get_reference_id(self) -> str:
        """The address: recorded at create, else asked of Neutron; the name without one."""
        address = self.data().get("ip_address") if self.resource_id else None
        if not address and self.resource_id is not None:
            with ignoring(is_not_found):
                address = self.fips().neutron.show(*FIPS, str(self.resource_id)).get(
                    "floating_ip_address")
        return str(address) if address else self.name

    def _resolve_attribute(self, name: str) -> Any:
        return str(self.resource_id) if name == "AllocationId" else None

    def _show_resource(self) -> Any:
        return None


def check_association(props: Mapping[str, Any]) -> None:
    """Heat's checks of an association's targets (each only when its keys are known).

    Raises:
        StackValidationFailed: neither or both of EIP and AllocationId; EIP without
            InstanceId; neither InstanceId nor NetworkInterfaceId.
    """
    keys = set(props)
    if {EIP, ALLOCATION_ID} <= keys and bool(props[EIP]) == bool(props[ALLOCATION_ID]):
        raise StackValidationFailed("Either 'EIP' or 'AllocationId' must be provided.")
    if {EIP, INSTANCE_ID} <= keys and props[EIP] and not props[INSTANCE_ID]:
        raise StackValidationFailed("Must specify 'InstanceId' if you specify 'EIP'.")
    if ({INSTANCE_ID, NETWORK_INTERFACE_ID} <= keys and not props[INSTANCE_ID]
            and not props[NETWORK_INTERFACE_ID]):
        raise PropertyUnspecifiedError(INSTANCE_ID, NETWORK_INTERFACE_ID)


class ElasticIpAssociation(Resource):
    """An AWS-compatible association of an elastic IP with a server or a port."""

    heat_class_name = "ElasticIpAssociation"
    default_client_name = "nova"

    properties_schema = {
        INSTANCE_ID: Schema(Schema.STRING, "Instance ID to associate with EIP specified by "
                            "EIP property.", update_allowed=True,
                            constraints=[CustomConstraint("nova.server")]),
        EIP: Schema(Schema.STRING, "EIP address to associate with instance.",
                    update_allowed=True, constraints=[CustomConstraint("ip_addr")]),
        ALLOCATION_ID: Schema(Schema.STRING, "Allocation ID for VPC EIP address.",
                              update_allowed=True),
        NETWORK_INTERFACE_ID: Schema(Schema.STRING, "Network interface ID to associate "
                                     "with EIP.", update_allowed=True),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        check_association(props)

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        """A new floating IP for a new target is a new association (Heat's rule)."""
        if not changed & {ALLOCATION_ID, EIP}:
            return False
        return bool((INSTANCE_ID in changed and new.get(INSTANCE_ID))
                    or (NETWORK_INTERFACE_ID in changed and new.get(NETWORK_INTERFACE_ID)))

    def fips(self) -> _FloatingIps:
        return _FloatingIps(self.cloud)

    def get_reference_id(self) -> str:
        """Heat's ``physical_resource_name_or_FnGetRefId``: the physical name, whether or
        not there is a physical id."""
        return self.ctx.physical_resource_name()

    # -- giving and taking back ----------------------------------------------------------
    def _target_port(self, interface: str | None, server: str | None) -> dict[str, Any]:
        fips = self.fips()
        port = (fips.first_port(id=interface) if interface
                else fips.first_port(device_id=server) if server else None)
        if port is None:
            raise _NotFound("Failed to update, can not found port info.")
        return port

    def _give_by_id(self, fip: str, port: Mapping[str, Any]) -> None:
        """Heat's VPC step (a router named as the port's network gets the floating
        network as gateway), then the floating IP to the port."""
        neutron = self.fips().neutron
        network = neutron.show("networks", "network", str(port["network_id"]))
        routers = neutron.find_all("routers", name=str(network.get("name") or ""))
        if len(routers) > 1:
            raise _Error(f"Multiple routers found with name {network.get('name')}")
        if routers:
            floating = neutron.show(*FIPS, fip)["floating_network_id"]
            neutron.update("routers", "router", str(routers[0]["id"]),
                           {"external_gateway_info": {"network_id": floating}})
        neutron.update(*FIPS, fip, {"port_id": port["id"]})

    def _take_back(self, props: Mapping[str, Any], *, missing_ok: bool) -> None:
        fips = self.fips()
        try:
            if props.get(EIP):
                fips.take_back(fips.by_address(props[EIP]))
            else:
                fips.neutron.update(*FIPS, props[ALLOCATION_ID], {"port_id": None})
        except Exception as exc:
            if not (missing_ok and (is_not_found(exc) or isinstance(exc, EntityMatchNotFound))):
                raise

    # -- handlers ------------------------------------------------------------------------
    def handle_create(self) -> Any:
        props = self.properties
        if props.get(EIP):
            fips = self.fips()
            fips.give(props[INSTANCE_ID], fips.by_address(props[EIP]))
            self.resource_id_set(props[EIP])
        elif props.get(ALLOCATION_ID):
            if not (props.get(NETWORK_INTERFACE_ID) or props.get(INSTANCE_ID)):
                return None  # Heat skips the association, leaving no physical id
            port = self._target_port(props.get(NETWORK_INTERFACE_ID), props.get(INSTANCE_ID))
            self._give_by_id(props[ALLOCATION_ID], port)
            self.resource_id_set(props[ALLOCATION_ID])
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        old = self.properties
        if prop_diff.get(EIP):
            self._take_back(old, missing_ok=False)
            fips = self.fips()
            fips.give(old[INSTANCE_ID], fips.by_address(prop_diff[EIP]))
            self.resource_id_set(prop_diff[EIP])
        elif prop_diff.get(ALLOCATION_ID):
            self._take_back(old, missing_ok=False)
            port = self._target_port(old.get(NETWORK_INTERFACE_ID), old.get(INSTANCE_ID))
            self._give_by_id(prop_diff[ALLOCATION_ID], port)
            self.resource_id_set(prop_diff[ALLOCATION_ID])
        elif EIP not in prop_diff and ALLOCATION_ID not in prop_diff and (
                INSTANCE_ID in prop_diff or NETWORK_INTERFACE_ID in prop_diff):
            if old.get(EIP):
                fips = self.fips()
                fips.give(str(prop_diff.get(INSTANCE_ID)), fips.by_address(old[EIP]))
            else:
                port = self._target_port(prop_diff.get(NETWORK_INTERFACE_ID),
                                         prop_diff.get(INSTANCE_ID))
                self._give_by_id(old[ALLOCATION_ID], port)
        return super().handle_update(new_properties, prop_diff)

    def handle_delete(self) -> Any:
        if self.resource_id is not None and (self.properties.get(EIP)
                                             or self.properties.get(ALLOCATION_ID)):
            self._take_back(self.properties, missing_ok=True)
        return None

    def _show_resource(self) -> Any:
        return None
