"""OS::Neutron::ProviderNet: a network on a given physical realisation (Heat's ``ProviderNet``).

A network whose ``network_type``, ``physical_network`` and ``segmentation_id``
go to Neutron as its ``provider:*`` attributes (and ``router_external`` as
``router:external``); admin only by Heat's default policy. Shared by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.attempt_marks import tags_without_marks
from hotplate.resources.openstack.neutron.net import Net
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["NETWORK_TYPES", "ProviderNet"]

NETWORK_TYPES = ("local", "vlan", "vxlan", "gre", "geneve", "flat")
_PROVIDER = ("network_type", "physical_network", "segmentation_id")


def provider_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """Heat's property names as Neutron's extension attributes."""
    out = dict(body)
    for key in _PROVIDER:
        if key in out:
            out[f"provider:{key}"] = out.pop(key)
    if "router_external" in out:
        out["router:external"] = out.pop("router_external")
    return out


class ProviderNet(Net):
    """A resource for managing Neutron provider networks.

    Provider networks specify details of physical realisation of the existing
    network. The default policy usage of this resource is limited to
    administrators only.
    """

    required_service_extension = "provider"
    support_status = SupportStatus(version="2014.1")

    properties_schema = {
        "name": Net.properties_schema["name"],
        "network_type": Schema(Schema.STRING, "A string specifying the provider network type "
                               "for the network.", update_allowed=True, required=True,
                               constraints=[AllowedValues(NETWORK_TYPES)]),
        "physical_network": Schema(Schema.STRING, "A string specifying physical network "
                                   "mapping for the network.", update_allowed=True),
        "segmentation_id": Schema(Schema.STRING, "A string specifying the segmentation id for "
                                  "the network.", update_allowed=True),
        "admin_state_up": Net.properties_schema["admin_state_up"],
        "shared": Schema(Schema.BOOLEAN, "Whether this network should be shared across all "
                         "tenants.", default=True, update_allowed=True),
        "port_security_enabled": Schema(
            Schema.BOOLEAN, "Flag to enable/disable port security on the network. It "
            "provides the default value for the attribute of the ports created on this "
            "network.", update_allowed=True, support_status=SupportStatus(version="8.0.0")),
        "router_external": Schema(Schema.BOOLEAN, "Whether the network contains an external "
                                  "router.", default=False, update_allowed=True,
                                  support_status=SupportStatus(version="6.0.0")),
        "tags": Schema(Schema.LIST, "The tags to be added to the provider network.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="12.0.0")),
        "dns_domain": Schema(Schema.STRING, "DNS domain associated with this network.",
                             constraints=[CustomConstraint("dns_domain")], update_allowed=True,
                             support_status=SupportStatus(version="15.0.0")),
        "availability_zone_hints": Schema(
            Schema.LIST, "Availability zone candidates for the network. It requires the "
            "availability_zone extension to be available.", update_allowed=True,
            support_status=SupportStatus(version="19.0.0")),
        "tenant_id": Schema(Schema.STRING, "The ID of the tenant which will own the provider "
                            "network. Only administrative users can set the tenant "
                            "identifier; this cannot be changed using authorization policies.",
                            support_status=SupportStatus(version="24.0.0")),
    }

    attributes_schema = {
        "status": Attribute("The status of the network.", Attribute.STRING),
        "subnets": Attribute("Subnets of this network.", Attribute.LIST),
        "segments": Attribute("The segments of this network.", Attribute.LIST,
                              SupportStatus(version="16.0.0")),
    }

    translation_rules: ClassVar[tuple[TranslationRule, ...]] = ()

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        kind = props.get("network_type")
        if props.get("segmentation_id") and kind in ("local", "flat"):
            raise StackValidationFailed(
                "segmentation_id not allowed for network types: local, flat")
        if props.get("physical_network") and kind in ("vxlan", "gre", "geneve", "local"):
            raise StackValidationFailed(
                "physical_network not allowed for network types: vxlan, gre, geneve, flat")

    def create_body(self) -> dict[str, Any]:
        return provider_body(super().create_body())

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        return provider_body(super().update_body(prop_diff))

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a provider network (not a plain network's): the
        ``provider:*`` and ``router:external`` attributes under the properties' names,
        and every other property the network has but ``shared``."""
        result: dict[str, Any] = {key: resource_data.get(f"provider:{key}")
                                  for key in _PROVIDER}
        result["router_external"] = resource_data.get("router:external")
        skipped = {*_PROVIDER, "router_external", "shared"}
        for key in self.properties_schema:
            if key not in skipped and key in resource_data:
                result[key] = resource_data[key]
        if "tags" in result:
            result["tags"] = tags_without_marks(result["tags"])
        return result
