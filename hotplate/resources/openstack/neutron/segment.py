"""OS::Neutron::Segment: one segment of a routed network (Heat's ``Segment``).

Neutron offers segments only with its ``segments`` service plug-in (extension
``segment``); without it the type is not offered, as in Heat. Admin only by
Heat's default policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Range
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.openstack.neutron.provider_net import NETWORK_TYPES
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Segment"]


class Segment(NeutronResource):
    """A resource for Neutron Segment.

    This requires enabling the segments service plug-in by appending 'segments'
    to the list of service_plugins in the neutron.conf. The default policy usage
    of this resource is limited to administrators only.
    """

    required_service_extension = "segment"
    support_status = SupportStatus(version="9.0.0")
    entity = "segment"
    collection = "segments"

    properties_schema = {
        "network": Schema(Schema.STRING, "The name/id of network to associate with this "
                          "segment.", constraints=[CustomConstraint("neutron.network")],
                          required=True),
        "network_type": Schema(Schema.STRING, "Type of network to associate with this "
                               "segment.", constraints=[AllowedValues(NETWORK_TYPES)],
                               required=True),
        "physical_network": Schema(Schema.STRING, "Name of physical network to associate "
                                   "with this segment."),
        "segmentation_id": Schema(Schema.INTEGER, "Segmentation ID for this segment.",
                                  constraints=[Range(min=1)]),
        "name": Schema(Schema.STRING, "Name of the segment.", update_allowed=True),
        "description": Schema(Schema.STRING, "Description of the segment.",
                              update_allowed=True),
    }

    translation_rules = (TranslationRule.resolve(("network",), "network"),)

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's checks of what each network type needs and forbids."""
        super().check_properties(props, path)
        physical, kind = props.get("physical_network"), props.get("network_type")
        seg_id = props.get("segmentation_id")
        if kind in ("flat", "vlan") and physical is None:
            raise StackValidationFailed(
                f"physical_network is required for {kind} provider network.")
        if kind == "vlan" and seg_id is None:
            raise StackValidationFailed(
                f"segmentation_id is required for {kind} provider network.")
        if kind in ("local", "flat") and seg_id is not None:
            raise StackValidationFailed(
                f"segmentation_id is prohibited for {kind} provider network.")
        if kind in ("vxlan", "gre", "geneve") and physical is not None:
            raise StackValidationFailed(
                f"physical_network is prohibited for {kind} provider network.")
        if kind == "vlan" and isinstance(seg_id, int) and seg_id > 4094:
            raise StackValidationFailed(
                "Up to 4094 VLAN network segments can exist on each physical_network.")

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["network_id"] = body.pop("network")
        return body
