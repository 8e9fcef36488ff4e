"""OS::Neutron::Trunk: several networks through one port (Heat's ``Trunk``).

An update changes the trunk in at most three calls, as Heat does: the changed
properties but ``sub_ports``, then the subports no longer wanted removed, then
the new ones added (removed first: a port cannot be two subports at once).
Subports are compared whole (port, segmentation type and id), so one changed
subport does not remove and add the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Range
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Trunk", "subport_changes"]


def _key(subport: Mapping[str, Any]) -> frozenset[tuple[str, Any]]:
    return frozenset(subport.items())


def subport_changes(old: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]]
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(to remove, to add): the subports only in ``old``, those only in ``new``."""
    before = {_key(s): dict(s) for s in old}
    after = {_key(s): dict(s) for s in new}
    return ([before[k] for k in before if k not in after],
            [after[k] for k in after if k not in before])


class Trunk(NeutronResource):
    """A resource for managing Neutron trunks.

    Requires Neutron Trunk Extension to be enabled. The network trunk service
    allows multiple networks to be connected to an instance using a single
    virtual NIC (vNIC). Every trunk has a parent port and can have any number
    (0, 1, ...) of subports; a subport presents the network of its port to the
    instance on a segmentation ID.
    """

    required_service_extension = "trunk"
    support_status = SupportStatus(version="9.0.0")
    entity = "trunk"
    collection = "trunks"
    marked = True
    has_status = True

    properties_schema = {
        "name": Schema(Schema.STRING, "A string specifying a symbolic name for the trunk, "
                       "which is not required to be uniqe.", update_allowed=True),
        "port": Schema(Schema.STRING, "ID or name of a port to be used as a parent port.",
                       required=True, immutable=True,
                       constraints=[CustomConstraint("neutron.port")]),
        "sub_ports": Schema(
            Schema.LIST, "List with 0 or more map elements containing subport details.",
            update_allowed=True, schema=Schema(Schema.MAP, schema={
                "port": Schema(Schema.STRING, "ID or name of a port to be used as a subport.",
                               required=True, constraints=[CustomConstraint("neutron.port")]),
                "segmentation_type": Schema(Schema.STRING, "Segmentation type to be used on "
                                            "the subport.", required=True,
                                            constraints=[AllowedValues(("vlan",))]),
                "segmentation_id": Schema(Schema.INTEGER, "The segmentation ID on which the "
                                          "subport network is presented to the instance.",
                                          required=True, constraints=[Range(1, 4094)]),
            })),
        "description": Schema(Schema.STRING, "Description for the trunk.",
                              update_allowed=True),
        "admin_state_up": Schema(Schema.BOOLEAN, "Enable/disable subport addition, removal "
                                 "and trunk delete.", update_allowed=True),
    }

    attributes_schema = {
        "port_id": Attribute("ID or name of a port used as a parent port.", Attribute.STRING),
    }

    translation_rules = (
        TranslationRule.resolve(("port",), "port"),
        TranslationRule.resolve(("sub_ports", "port"), "port"),
    )

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["port_id"] = body.pop("port")
        if body.get("sub_ports"):
            body["sub_ports"] = [_subport(s) for s in body["sub_ports"]]
        return body

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        remove, add = subport_changes(self.properties.get("sub_ports") or [],
                                      new_properties.get("sub_ports") or [])
        changed = {k: v for k, v in prop_diff.items() if k != "sub_ports"}
        super().handle_update(new_properties, changed)
        api, trunk = self.neutron(), f"/trunks/{self.resource_id}"
        if remove:
            api.request("PUT", f"{trunk}/remove_subports",
                        {"sub_ports": [{"port_id": s["port"]} for s in remove]})
        if add:
            api.request("PUT", f"{trunk}/add_subports",
                        {"sub_ports": [_subport(s) for s in add]})
        return None


    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """The base's reading, with each sub-port as the template writes one (``port``,
        not Neutron's ``port_id``), in the template's order where it names the port."""
        result = super().parse_live_resource_data(resource_properties, resource_data)
        if "sub_ports" in result:
            order = [str(s.get("port")) for s in resource_properties.get("sub_ports") or []]
            subports = [{"port": s.get("port_id"), "segmentation_type": s.get(
                "segmentation_type"), "segmentation_id": s.get("segmentation_id")}
                for s in result["sub_ports"] or []]
            subports.sort(key=lambda s: order.index(str(s["port"]))
                          if str(s["port"]) in order else len(order))
            result["sub_ports"] = subports
        return result


def _subport(given: Mapping[str, Any]) -> dict[str, Any]:
    return {"port_id": given["port"], "segmentation_type": given["segmentation_type"],
            "segmentation_id": given["segmentation_id"]}
