"""OS::Keystone::Project (Heat's ``project.py``).

Everything but the parent changes in place (a new parent is a new project).
Heat sends the domain with each update, and the tags: the new ones, else the
current ones. Its delete also deletes the project's ``default`` security
groups, which Neutron makes for a project the first time it is asked about one
and which would otherwise outlive it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.cloud_errors import ignoring, is_not_found
from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Project"]

_V10 = SupportStatus(version="10.0.0")


class Project(KeystoneResource):
    """Heat Template Resource for Keystone Project.

    Projects represent the base unit of ownership in OpenStack, in that all
    resources in OpenStack should be owned by a specific project. A project
    itself must be owned by a specific domain, and hence all project names are
    not globally unique, but unique to their domain. If the domain for a
    project is not specified, then it is added to the default domain.
    """

    support_status = keystone_status("2015.1")
    heat_class_name = "KeystoneProject"
    collection, entity = "projects", "project"
    live_ids = {"domain": ("domain_id", "domain")}
    domain_scoped = True

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone project.", update_allowed=True),
        "domain": Schema(Schema.STRING, "Name or id of keystone domain.", default="default",
                         update_allowed=True,
                         constraints=[CustomConstraint("keystone.domain")]),
        "description": Schema(Schema.STRING, "Description of keystone project.", default="",
                              update_allowed=True),
        "enabled": Schema(Schema.BOOLEAN, "This project is enabled or disabled.",
                          default=True, update_allowed=True),
        "parent": Schema(Schema.STRING, "The name or ID of parent of this keystone project "
                         "in hierarchy.", support_status=SupportStatus(version="6.0.0"),
                         constraints=[CustomConstraint("keystone.project")]),
        "tags": Schema(Schema.LIST, "A list of tags for labeling and sorting projects.",
                       default=[], update_allowed=True, support_status=_V10),
    }

    attributes_schema = {
        "name": Attribute("Project name.", Attribute.STRING, support_status=_V10),
        "parent_id": Attribute("Parent project id.", Attribute.STRING, support_status=_V10),
        "domain_id": Attribute("Domain id for project.", Attribute.STRING,
                               support_status=_V10),
        "enabled": Attribute("Flag of enable project.", Attribute.BOOLEAN,
                             support_status=_V10),
        "is_domain": Attribute("Indicates whether the project also acts as a domain.",
                               Attribute.BOOLEAN, support_status=_V10),
    }

    translation_rules = (TranslationRule.resolve(("domain",), "domain"),
                         TranslationRule.resolve(("parent",), "project"))

    def create_body(self) -> dict[str, Any]:
        props = self.properties
        body: dict[str, Any] = {"domain_id": props["domain"],
                                "description": props["description"],
                                "enabled": props["enabled"], "tags": list(props["tags"] or [])}
        if props.get("parent"):
            body["parent_id"] = props["parent"]
        return {k: v for k, v in body.items() if v is not None}

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if "name" in prop_diff:
            body["name"] = self.name_of(prop_diff["name"])
        for key in ("description", "enabled"):
            if prop_diff.get(key) is not None:
                body[key] = prop_diff[key]
        body["domain_id"] = prop_diff.get("domain") or self.properties["domain"]
        tags = prop_diff["tags"] if "tags" in prop_diff else self.properties["tags"]
        body["tags"] = list(tags or [])
        return body

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        with ignoring(is_not_found):
            self._delete_default_security_groups()
        return super().handle_delete()

    def _delete_default_security_groups(self) -> None:
        if not self.cloud.endpoint_exists("neutron", "network"):
            return
        neutron = NeutronApi(self.cloud)
        for group in neutron.find_all("security-groups", "security_groups",
                                      project_id=str(self.resource_id), name="default"):
            neutron.delete("security-groups", str(group["id"]))
