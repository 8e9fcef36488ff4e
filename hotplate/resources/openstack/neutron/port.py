"""OS::Neutron::Port: a port on a network (Heat's ``Port``).

Beyond what every Neutron type does (base.py), a port:

- sends ``fixed_ips`` with ``subnet`` as ``subnet_id`` and without empty keys;
  an empty list lets Neutron choose on create and keeps the addresses on an
  update (Heat's backward-compatible reading); ``no_fixed_ips`` asks for none;
- names its security groups by name or id (ids sent); an update that drops
  them puts the port back in the ``default`` group;
- waits, on create and update, until Neutron says the port is built;
- hands its fixed IPs over to its replacement: ``prepare_for_replace`` keeps
  them in its data (``port_fip``) and clears them from the port, so the new
  port can take the same addresses; a rollback's ``restore_prev_rsrc`` clears
  them from the replacement and gives them back to the old port.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import CheckAgain, CheckResult
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.neutron.api import ignoring, is_not_found
from hotplate.resources.openstack.neutron.base import (
    NeutronResource,
    either,
    is_built,
    peers_of,
    without_marks,
)
from hotplate.resources.openstack.neutron.subnet import Subnet, conflict
from hotplate.resources.openstack.status_lists import NEUTRON_PORTS
from hotplate.resources.openstack.waiting import done_waiting, look
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule
from hotplate.template.implicit_deps import Peer

__all__ = ["Port"]

VNIC_TYPES = ("normal", "direct", "macvtap", "direct-physical", "baremetal",
              "virtio-forwarder", "smart-nic")
HANDED_OVER = "port_fip"
"""The resource data key holding the fixed IPs handed to a replacement (Heat's)."""


def _hidden_since(version: str, message: str, deprecated: str) -> SupportStatus:
    return SupportStatus(Status.HIDDEN, version, message,
                         SupportStatus(Status.DEPRECATED, deprecated))


_FIXED_IP = Schema(Schema.MAP, schema={
    "subnet_id": Schema(Schema.STRING, constraints=[CustomConstraint("neutron.subnet")],
                        support_status=_hidden_since("5.0.0", "Use property subnet.",
                                                     "2014.2 ")),
    "subnet": Schema(Schema.STRING, "Subnet in which to allocate the IP address for this "
                     "port.", constraints=[CustomConstraint("neutron.subnet")],
                     support_status=SupportStatus(version="2014.2")),
    "ip_address": Schema(Schema.STRING, "IP address desired in the subnet for this port.",
                         constraints=[CustomConstraint("ip_addr")]),
})

_ADDRESS_PAIR = Schema(Schema.MAP, schema={
    "mac_address": Schema(Schema.STRING, "MAC address to allow through this port.",
                          constraints=[CustomConstraint("mac_addr")]),
    "ip_address": Schema(Schema.STRING, "IP address to allow through this port.",
                         required=True, constraints=[CustomConstraint("ip_or_cidr")]),
})


class Port(NeutronResource):
    """A resource for managing Neutron ports.

    A port represents a virtual switch port on a logical network switch.
    Virtual instances attach their interfaces into ports. The logical port also
    defines the MAC address and the IP address(es) to be assigned to the
    interfaces plugged into them. When IP addresses are associated to a port,
    this also implies the port is associated with a subnet, as the IP address
    was taken from the allocation pool for a specific subnet.
    """

    entity = "port"
    collection = "ports"
    status_lister = NEUTRON_PORTS
    has_status = True
    taggable = True

    properties_schema = {
        "name": Schema(Schema.STRING, "A symbolic name for this port.", update_allowed=True),
        "network_id": Schema(Schema.STRING, constraints=[CustomConstraint("neutron.network")],
                             support_status=_hidden_since("5.0.0", "Use property network.",
                                                          "2014.2")),
        "network": Schema(
            Schema.STRING, "Network this port belongs to. If you plan to use current port to "
            "assign Floating IP, you should specify fixed_ips with subnet. Note if this "
            "changes to a different network update, the port will be replaced.",
            required=True, constraints=[CustomConstraint("neutron.network")],
            support_status=SupportStatus(version="2014.2")),
        "device_id": Schema(Schema.STRING, "Device ID of this port.", update_allowed=True,
                            default=""),
        "device_owner": Schema(Schema.STRING, "Name of the network owning the port. The value "
                               "is typically network:floatingip or network:router_interface "
                               "or network:dhcp.", update_allowed=True, default=""),
        "fixed_ips": Schema(Schema.LIST, "Desired IPs for this port.", schema=_FIXED_IP,
                            update_allowed=True),
        "security_groups": Schema(Schema.LIST, "Security group IDs to associate with this "
                                  "port.", update_allowed=True),
        "replacement_policy": Schema(
            Schema.STRING, "Policy on how to respond to a stack-update for this resource. "
            "REPLACE_ALWAYS will replace the port regardless of any property changes. AUTO "
            "will update the existing port for any changed update-allowed property.",
            default="AUTO", constraints=[AllowedValues(("REPLACE_ALWAYS", "AUTO"))],
            update_allowed=True,
            support_status=SupportStatus(
                Status.HIDDEN, "9.0.0", None, SupportStatus(
                    Status.DEPRECATED, "6.0.0", "Replacement policy used to work around "
                    "flawed nova/neutron port interaction which has been fixed since "
                    "Liberty.", SupportStatus(version="2014.2")))),
        "dns_name": Schema(Schema.STRING, "DNS name associated with the port.",
                           update_allowed=True, constraints=[CustomConstraint("dns_name")],
                           support_status=SupportStatus(version="7.0.0")),
        "tags": Schema(Schema.LIST, "The tags to be added to the port.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="9.0.0")),
        "value_specs": Schema(Schema.MAP, "Extra parameters to include in the request.",
                              default={}, update_allowed=True),
        "admin_state_up": Schema(Schema.BOOLEAN, "The administrative state of this port.",
                                 default=True, update_allowed=True),
        "mac_address": Schema(Schema.STRING, "MAC address to give to this port. The default "
                              "update policy of this property in neutron is that allow admin "
                              "role only.", constraints=[CustomConstraint("mac_addr")]),
        "allowed_address_pairs": Schema(Schema.LIST, "Additional MAC/IP address pairs allowed "
                                        "to pass through the port.", schema=_ADDRESS_PAIR,
                                        update_allowed=True),
        "binding:vnic_type": Schema(
            Schema.STRING, "The vnic type to be bound on the neutron port. To support SR-IOV "
            "PCI passthrough networking, you can request that the neutron port to be realized "
            "as normal (virtual nic), direct (pci passthrough), or macvtap (virtual interface "
            "with a tap-like software interface). Note that this only works for Neutron "
            "deployments that support the bindings extension.",
            constraints=[AllowedValues(VNIC_TYPES)],
            support_status=SupportStatus(version="2015.1"), update_allowed=True,
            default="normal"),
        "port_security_enabled": Schema(
            Schema.BOOLEAN, "Flag to enable/disable port security on the port. When disable "
            "this feature(set it to False), there will be no packages filtering, like "
            "security-group and address-pairs.", update_allowed=True,
            support_status=SupportStatus(version="5.0.0")),
        "qos_policy": Schema(Schema.STRING, "The name or ID of QoS policy to attach to this "
                             "port.", constraints=[CustomConstraint("neutron.qos_policy")],
                             update_allowed=True,
                             support_status=SupportStatus(version="6.0.0")),
        "propagate_uplink_status": Schema(
            Schema.BOOLEAN, "Flag to enable/disable propagate uplink status on the port.",
            update_allowed=True, support_status=SupportStatus(version="15.0.0")),
        "no_fixed_ips": Schema(Schema.BOOLEAN, "Flag to disable all fixed ips on the port.",
                               update_allowed=True, default=False,
                               support_status=SupportStatus(version="16.0.0")),
    }

    attributes_schema = {
        "admin_state_up": Attribute("The administrative state of this port.",
                                    Attribute.STRING),
        "device_id": Attribute("Unique identifier for the device.", Attribute.STRING),
        "device_owner": Attribute("Name of the network owning the port.", Attribute.STRING),
        "fixed_ips": Attribute("Fixed IP addresses.", Attribute.LIST),
        "mac_address": Attribute("MAC address of the port.", Attribute.STRING),
        "name": Attribute("Friendly name of the port.", Attribute.STRING),
        "network_id": Attribute("Unique identifier for the network owning the port.",
                                Attribute.STRING),
        "security_groups": Attribute("A list of security groups for the port.",
                                     Attribute.LIST),
        "status": Attribute("The status of the port.", Attribute.STRING),
        "tenant_id": Attribute("Tenant owning the port.", Attribute.STRING),
        "allowed_address_pairs": Attribute("Additional MAC/IP address pairs allowed to pass "
                                           "through a port.", Attribute.LIST),
        "subnets": Attribute("A list of all subnet attributes for the port.", Attribute.LIST),
        "port_security_enabled": Attribute("Port security enabled of the port.",
                                           Attribute.BOOLEAN, SupportStatus(version="5.0.0")),
        "qos_policy_id": Attribute("The QoS policy ID attached to this port.",
                                   Attribute.STRING, SupportStatus(version="6.0.0")),
        "dns_assignment": Attribute("The DNS assigned to this port.", Attribute.MAP,
                                    SupportStatus(version="7.0.0")),
        "network": Attribute("The attributes of the network owning the port. (The full list "
                             "of response parameters can be found in the `Openstack "
                             "Networking service API reference "
                             "<https://docs.openstack.org/api-ref/network/>`_.) The following "
                             "examples demonstrate some (not all) possible expressions. "
                             "(Obtains the network, the MTU (Maximum transmission unit), the "
                             "network tags and the l2_adjacency property): "
                             "``{get_attr: [<port>, network]}``, "
                             "``{get_attr: [<port>, network, mtu]}``, "
                             "``{get_attr: [<port>, network, tags]}?``, "
                             "``{get_attr: [<port>, network, l2_adjacency]}``.",
                             Attribute.MAP, SupportStatus(version="11.0.0")),
        "propagate_uplink_status": Attribute("Enable/Disable propagate uplink status for the "
                                             "port.", Attribute.BOOLEAN,
                                             SupportStatus(version="15.0.0")),
    }

    translation_rules = (
        TranslationRule.replace(("network",), "network_id"),
        TranslationRule.replace(("fixed_ips", "subnet"), "subnet_id"),
        TranslationRule.resolve(("network",), "network"),
        TranslationRule.resolve(("fixed_ips", "subnet"), "subnet"),
    )

    # -- validation ----------------------------------------------------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        if props.get("fixed_ips") and props.get("no_fixed_ips"):
            raise conflict("fixed_ips", "no_fixed_ips")

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        """Heat's deprecated ``replacement_policy: REPLACE_ALWAYS``: an update replaces."""
        return new.get("replacement_policy") == "REPLACE_ALWAYS"

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """Every subnet of the port's network: which one gives the address is Neutron's
        choice, so all of them come first (Heat's Port.add_dependencies)."""
        network = either(me.properties, "network", "network_id")
        return [s.name for s in peers_of(peers, Subnet)
                if network and either(s.properties, "network", "network_id") == network]

    # -- bodies ----------------------------------------------------------------------
    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["network_id"] = body.pop("network")
        self._port_body(body, updating=False)
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        diff = dict(prop_diff)
        if "value_specs" in diff and self.resource_id:
            diff["value_specs"] = self._merged_profile(dict(diff["value_specs"] or {}))
        body = super().update_body(diff)
        self._port_body(body, updating=True)
        return body

    def _port_body(self, body: dict[str, Any], *, updating: bool) -> None:
        """Heat's _prepare_port_properties, over a create or update body."""
        if "qos_policy" in body:
            qos = body.pop("qos_policy")
            body["qos_policy_id"] = self.cloud.find("qos_policy", qos) if qos else None
        if body.pop("no_fixed_ips", False):
            body["fixed_ips"] = []
        elif "fixed_ips" in body:
            if body["fixed_ips"]:
                body["fixed_ips"] = [_fixed_ip(item) for item in body["fixed_ips"]]
            else:
                del body["fixed_ips"]
        if "allowed_address_pairs" in body:
            body["allowed_address_pairs"] = [
                {k: v for k, v in pair.items() if not (k == "mac_address" and v is None)}
                for pair in body["allowed_address_pairs"] or []]
        if "security_groups" in body:
            groups = body["security_groups"]
            if groups is not None:
                body["security_groups"] = [self.cloud.find("security_group", g)
                                           for g in groups]
            elif updating:
                body["security_groups"] = [self.cloud.find("security_group", "default")]
            else:
                del body["security_groups"]
        body.pop("replacement_policy", None)

    def _merged_profile(self, specs: dict[str, Any]) -> dict[str, Any]:
        """Heat's three-way merge of ``binding:profile``: keys Neutron added (an SR-IOV
        ``pci_slot``) survive a template change to other keys."""
        if "binding:profile" not in specs:
            return specs
        current = self.show().get("binding:profile")
        if not isinstance(current, Mapping):
            return specs
        old = (self.properties.get("value_specs") or {}).get("binding:profile") or {}
        merged = dict(current)
        for key, value in (specs["binding:profile"] or {}).items():
            if value != old.get(key):
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
        return {**specs, "binding:profile": merged}

    # -- create ----------------------------------------------------------------------
    def check_create_complete(self, data: Any) -> CheckResult:
        shown = data if isinstance(data, Mapping) and data.get("status") not in (
            None, "BUILD") else None  # Neutron's answer to the create: no GET needed
        if shown is None:
            seen = look(self, "create", NEUTRON_PORTS, str(self.resource_id), self.shown_or_none,
                        every=1.0)
            if seen.pending:
                return CheckAgain(seen.after)
            shown = seen.record or self.show()
            if not is_built(shown.get("status")):
                return CheckAgain(seen.after)
            done_waiting(self, "create", NEUTRON_PORTS, str(self.resource_id))
        if "binding:vnic_type" in shown:  # Heat keeps the cloud's default
            self.data_set("binding:vnic_type", str(shown["binding:vnic_type"]))
        return is_built(shown.get("status"))

    # -- replacement -----------------------------------------------------------------
    def prepare_for_replace(self) -> None:
        """Keep the fixed IPs in ``port_fip`` and clear them, for the replacement."""
        if self.resource_id is None:
            return
        with ignoring(is_not_found):
            fixed_ips = self.show().get("fixed_ips", [])
            self.data_set(HANDED_OVER, json.dumps(fixed_ips))
            self._set_fixed_ips(str(self.resource_id), [])

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """Take the fixed IPs back from the replacement (``self.replacement``)."""
        other = self.replacement if convergence else None
        if other is not None and other.resource_id:
            with ignoring(is_not_found):  # the replacement may be gone already
                self._set_fixed_ips(str(other.resource_id), [])
        kept = self.data().get(HANDED_OVER)
        if kept and self.resource_id:
            self._set_fixed_ips(str(self.resource_id), json.loads(kept))

    def _set_fixed_ips(self, port: str, fixed_ips: list[Any]) -> None:
        self.neutron().update(self.collection, self.entity, port, {"fixed_ips": fixed_ips})

    # -- live state ------------------------------------------------------------------
    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a port: the QoS policy by id, each fixed IP as its subnet
        and address. Security groups and the QoS policy read as the template named
        them when they are the same objects; ``device_id`` and ``device_owner`` only
        when the template set them (a server binding the port sets them otherwise)."""
        result = super().parse_live_resource_data(resource_properties, resource_data)
        result["qos_policy"] = self.as_given("qos_policy", resource_properties.get("qos_policy"),
                                             resource_data.get("qos_policy_id"))
        result["fixed_ips"] = [
            {"subnet": ip.get("subnet_id"), "subnet_id": ip.get("subnet_id"),
             "ip_address": ip.get("ip_address")}
            for ip in resource_data.get("fixed_ips") or []]
        groups = resource_properties.get("security_groups")
        live_groups = result.get("security_groups")
        if groups is not None and isinstance(live_groups, list):
            ids = sorted(self.cloud.find("security_group", str(g)) for g in groups)
            if ids == sorted(live_groups):
                result["security_groups"] = list(groups)
        for key in ("device_id", "device_owner"):
            if not resource_properties.get(key):
                result.pop(key, None)
        return result

    # -- attributes ------------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "subnets":
            api = self.neutron()
            return [without_marks(api.show("subnets", "subnet", ip["subnet_id"]))
                    for ip in self.show().get("fixed_ips", []) if ip.get("subnet_id")]
        if name == "network":
            return without_marks(self.neutron().show("networks", "network",
                                                     self.show()["network_id"]))
        return self.show().get(name)


def _fixed_ip(item: Mapping[str, Any]) -> dict[str, Any]:
    found = {k: v for k, v in item.items() if v is not None}
    if "subnet" in found:
        found["subnet_id"] = found.pop("subnet")
    return found
