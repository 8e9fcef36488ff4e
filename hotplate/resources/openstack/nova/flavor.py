"""OS::Nova::Flavor (Heat's ``flavor.py``).

The flavor's name is the ``name`` property, else the physical name; its id the
``flavorid`` property, else one Nova chooses. Only ``extra_specs`` and
``tenants`` change in place: new extra specs replace all the old ones (each
old key is unset, then the new ones set); the tenants of a private flavor are
granted and revoked by their difference with what Nova lists. A private flavor
with no tenants is granted to the stack's project, as Heat grants it. Any other
change is a new flavor. A retried create first looks for a flavor carrying the
physical name (Nova has no client token; a name the template chose may be
shared, so then it creates again and Nova says Conflict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.nova.base import NovaResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Flavor", "tenant_changes"]

_V6, _V7 = SupportStatus(version="6.0.0"), SupportStatus(version="7.0.0")


def tenant_changes(new: list[str] | None, current: list[str]) -> tuple[list[str], list[str]]:
    """(projects to grant, projects to revoke) to go from ``current`` to ``new``."""
    wanted = list(dict.fromkeys(new or []))
    return [t for t in wanted if t not in current], [t for t in current if t not in wanted]


class Flavor(NovaResource):
    """A resource for creating OpenStack virtual hardware templates.

    Due to default nova security policy usage of this resource is limited to
    being used by administrators only. The rights may also be delegated to
    other users by redefining the access controls on the nova-api server.

    Note that the current implementation of the Nova Flavor resource does not
    allow specifying the name and flavorid properties for the resource.
    This is done to avoid potential naming collision upon flavor creation as
    all flavor have a global scope.
    """

    support_status = SupportStatus(version="2014.2")
    heat_class_name = "NovaFlavor"
    path, entity = "/flavors", "flavor"

    properties_schema = {
        "tenants": Schema(Schema.LIST, "List of tenants.", update_allowed=True, default=[],
                          schema=Schema(Schema.STRING,
                                        constraints=[CustomConstraint("keystone.project")]),
                          support_status=SupportStatus(version="8.0.0")),
        "flavorid": Schema(Schema.STRING, "Unique ID of the flavor. If not specified, an UUID "
                           "will be auto generated and used.", support_status=_V7),
        "name": Schema(Schema.STRING, "Name of the flavor.", support_status=_V7),
        "ram": Schema(Schema.INTEGER, "Memory in MB for the flavor.", required=True),
        "vcpus": Schema(Schema.INTEGER, "Number of VCPUs for the flavor.", required=True),
        "disk": Schema(Schema.INTEGER, 'Size of local disk in GB. The "0" size is a special '
                       "case that uses the native base image size as the size of the "
                       "ephemeral root volume.", default=0),
        "swap": Schema(Schema.INTEGER, "Swap space in MB.", default=0),
        "ephemeral": Schema(Schema.INTEGER, "Size of a secondary ephemeral data disk in GB.",
                            default=0),
        "rxtx_factor": Schema(Schema.NUMBER, "RX/TX factor.", default=1.0),
        "extra_specs": Schema(Schema.MAP, "Key/Value pairs to extend the capabilities of the "
                              "flavor.", update_allowed=True),
        "is_public": Schema(Schema.BOOLEAN, "Scope of flavor accessibility. Public or private. "
                            "Default value is True, means public, shared across all projects.",
                            default=True, support_status=_V6),
    }

    attributes_schema = {
        "is_public": Attribute("Whether the flavor is shared across all projects.",
                               Attribute.BOOLEAN, support_status=_V6),
        "extra_specs": Attribute("Extra specs of the flavor in key-value pairs.", Attribute.MAP,
                                 support_status=_V7),
    }

    translation_rules = (TranslationRule.resolve(("tenants",), "project"),)

    def physical_resource_name(self) -> str:
        return str(self.properties.get("name") or super().physical_resource_name())

    def _specs_path(self) -> str:
        return f"/flavors/{self.resource_id}/os-extra_specs"

    def handle_create(self) -> Any:
        props = self.properties
        name = self.physical_resource_name()
        made = self._made_before(name) if self.attempt.retry else None
        if made is None:
            body = {"name": name, "ram": props["ram"], "vcpus": props["vcpus"],
                    "disk": props["disk"], "id": props.get("flavorid") or None,
                    "swap": props["swap"], "OS-FLV-EXT-DATA:ephemeral": props["ephemeral"],
                    "rxtx_factor": props["rxtx_factor"],
                    "os-flavor-access:is_public": props["is_public"]}
            made = self.nova().post("/flavors", {"flavor": body})["flavor"]
        self.resource_id_set(str(made["id"]))
        if props.get("extra_specs"):
            self.nova().post(self._specs_path(), {"extra_specs": dict(props["extra_specs"])})
        if not props["is_public"]:
            for tenant in props.get("tenants") or [self.ctx.project_id]:
                self._access("addTenantAccess", tenant)
        return None

    def _made_before(self, name: str) -> dict[str, Any] | None:
        if self.properties.get("name"):
            return None
        listed = self.nova().get("/flavors/detail?is_public=None")["flavors"]
        matches = [f for f in listed if f.get("name") == name]
        return matches[0] if len(matches) == 1 else None

    def _access(self, action: str, tenant: str) -> None:
        self.nova().post(f"/flavors/{self.resource_id}/action", {action: {"tenant": tenant}})

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if "extra_specs" in prop_diff:
            api = self.nova()
            for key in api.get(self._specs_path())["extra_specs"]:
                api.delete(f"{self._specs_path()}/{key}")
            if prop_diff["extra_specs"] is not None:
                api.post(self._specs_path(), {"extra_specs": dict(prop_diff["extra_specs"])})
        if "tenants" in prop_diff and not self.properties["is_public"]:
            listed = self.nova().get(f"/flavors/{self.resource_id}/os-flavor-access")
            current = [str(a["tenant_id"]) for a in listed["flavor_access"]]
            granted, revoked = tenant_changes(prop_diff["tenants"], current)
            for tenant in revoked:
                self._access("removeTenantAccess", tenant)
            for tenant in granted:
                self._access("addTenantAccess", tenant)
        return super().handle_update(new_properties, prop_diff)

    def get_live_resource_data(self) -> Any:
        """Heat reads a flavor's extra specs only (a flavor changes no other way)."""
        super().get_live_resource_data()  # gone: EntityNotFound
        return {"extra_specs": self.nova().get(self._specs_path())["extra_specs"]}

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        return dict(resource_data)

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "is_public":
            return self.show().get("os-flavor-access:is_public")
        return self.nova().get(self._specs_path())["extra_specs"]
