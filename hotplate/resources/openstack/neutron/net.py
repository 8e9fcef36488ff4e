"""OS::Neutron::Net: a network (Heat's ``Net``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.neutron.api import ignoring, is_conflict, is_not_found
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Net"]


class Net(NeutronResource):
    """A resource for managing Neutron net.

    A network is a virtual isolated layer-2 broadcast domain which is typically
    reserved to the tenant who created it, unless the network has been
    explicitly configured to be shared.
    """

    entity = "network"
    collection = "networks"
    has_status = True
    taggable = True

    properties_schema = {
        "name": Schema(Schema.STRING, "A string specifying a symbolic name for the network, "
                       "which is not required to be unique.", update_allowed=True),
        "value_specs": Schema(Schema.MAP, "Extra parameters to include in the request. "
                              "Parameters are often specific to installed hardware or "
                              "extensions.", default={}, update_allowed=True),
        "admin_state_up": Schema(Schema.BOOLEAN, "A boolean value specifying the "
                                 "administrative status of the network.", default=True,
                                 update_allowed=True),
        "tenant_id": Schema(Schema.STRING, "The ID of the tenant which will own the network. "
                            "Only administrative users can set the tenant identifier; this "
                            "cannot be changed using authorization policies."),
        "shared": Schema(Schema.BOOLEAN, "Whether this network should be shared across all "
                         "tenants. Note that the default policy setting restricts usage of "
                         "this attribute to administrative users only.", default=False,
                         update_allowed=True),
        "dhcp_agent_ids": Schema(Schema.LIST, "The IDs of the DHCP agent to schedule the "
                                 "network. Note that the default policy setting in Neutron "
                                 "restricts usage of this property to administrative users "
                                 "only.", update_allowed=True),
        "port_security_enabled": Schema(
            Schema.BOOLEAN, "Flag to enable/disable port security on the network. It "
            "provides the default value for the attribute of the ports created on this "
            "network.", update_allowed=True, support_status=SupportStatus(version="5.0.0")),
        "qos_policy": Schema(Schema.STRING, "The name or ID of QoS policy to attach to this "
                             "network.", constraints=[CustomConstraint("neutron.qos_policy")],
                             update_allowed=True,
                             support_status=SupportStatus(version="6.0.0")),
        "dns_domain": Schema(Schema.STRING, "DNS domain associated with this network.",
                             constraints=[CustomConstraint("dns_domain")],
                             update_allowed=True,
                             support_status=SupportStatus(version="7.0.0")),
        "availability_zone_hints": Schema(
            Schema.LIST, "Availability zone candidates for the network. It requires the "
            "availability_zone extension to be available.",
            support_status=SupportStatus(version="19.0.0")),
        "tags": Schema(Schema.LIST, "The tags to be added to the network.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="9.0.0")),
    }

    attributes_schema = {
        "status": Attribute("The status of the network.", Attribute.STRING),
        "name": Attribute("The name of the network.", Attribute.STRING),
        "subnets": Attribute("Subnets of this network.", Attribute.LIST),
        "admin_state_up": Attribute("The administrative status of the network.",
                                    Attribute.STRING),
        "tenant_id": Attribute("The tenant owning this network.", Attribute.STRING),
        "port_security_enabled": Attribute("Port security enabled of the network.",
                                           Attribute.BOOLEAN,
                                           SupportStatus(version="5.0.0")),
        "mtu": Attribute("The maximum transmission unit size(in bytes) for the network.",
                         Attribute.INTEGER, SupportStatus(version="5.0.0")),
        "qos_policy_id": Attribute("The QoS policy ID attached to this network.",
                                   Attribute.STRING, SupportStatus(version="6.0.0")),
        "l2_adjacency": Attribute("A boolean value for L2 adjacency, True means that you can "
                                  "expect L2 connectivity throughout the Network.",
                                  Attribute.BOOLEAN, SupportStatus(version="9.0.0")),
        "segments": Attribute("The segments of this network.", Attribute.LIST,
                              SupportStatus(version="11.0.0")),
    }

    translation_rules: ClassVar[tuple[TranslationRule, ...]] = (
        TranslationRule.resolve(("qos_policy",), "qos_policy"),)

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body.pop("dhcp_agent_ids", None)
        qos = body.pop("qos_policy", None)
        if qos:
            body["qos_policy_id"] = qos
        return body

    def after_create(self, made: Mapping[str, Any]) -> None:
        super().after_create(made)
        if self.properties.get("dhcp_agent_ids"):
            self._replace_dhcp_agents(list(self.properties["dhcp_agent_ids"]))

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = super().update_body(prop_diff)
        if "dhcp_agent_ids" in body:
            self._replace_dhcp_agents(list(body.pop("dhcp_agent_ids") or []))
        if "qos_policy" in body:
            body["qos_policy_id"] = body.pop("qos_policy") or None
        return body

    def _replace_dhcp_agents(self, wanted: list[str]) -> None:
        """Schedule the network on exactly ``wanted`` DHCP agents (admin only, as in
        Neutron); conflicts and already-removed agents are fine, as in Heat."""
        api = self.neutron()
        hosting = api.request("GET", f"/networks/{self.resource_id}/dhcp-agents")
        old = {agent["id"] for agent in hosting.get("agents", [])}
        for agent in sorted(set(wanted) - old):
            with ignoring(is_conflict):
                api.request("POST", f"/agents/{agent}/dhcp-networks",
                            {"network_id": self.resource_id})
        for agent in sorted(old - set(wanted)):
            with ignoring(is_conflict, is_not_found):
                api.request("DELETE", f"/agents/{agent}/dhcp-networks/{self.resource_id}")

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a network: not ``shared`` (an RBAC matter), the QoS
        policy by id, and the DHCP agents hosting it where the caller may list them
        (asked only when the template names agents: otherwise they are the cloud's)."""
        result = super().parse_live_resource_data(resource_properties, resource_data)
        result.pop("shared", None)
        result["qos_policy"] = self.as_given("qos_policy", resource_properties.get("qos_policy"),
                                             resource_data.get("qos_policy_id"))
        if resource_properties.get("dhcp_agent_ids") is None:
            return result
        try:
            hosting = self.neutron().request("GET", f"/networks/{self.resource_id}/dhcp-agents")
        except Exception as exc:
            if getattr(exc, "status", None) != 403:
                raise
        else:
            result["dhcp_agent_ids"] = sorted(a["id"] for a in hosting.get("agents", []))
        return result

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "segments":
            found = self.neutron().find_all("segments", network_id=str(self.resource_id))
            return sorted(found, key=lambda s: s.get("name") is not None)
        return self.show().get(name)
