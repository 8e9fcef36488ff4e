"""OS::Keystone::Group (Heat's ``group.py``): a group and its roles (``roles``, granted
as ``role_assignments`` does). Every property changes in place; Heat sends the
group's domain with each update (Keystone refuses a new one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.openstack.keystone.role_assignments import (
    ROLES,
    ROLES_RULES,
    ROLES_SCHEMA,
    RoleAssignments,
)
from hotplate.resources.properties import Schema
from hotplate.resources.translation import TranslationRule

__all__ = ["Group"]


class Group(KeystoneResource, RoleAssignments):
    """Heat Template Resource for Keystone Group.

    Groups are a container representing a collection of users. A group itself
    must be owned by a specific domain, and hence all group names are not
    globally unique, but only unique to their domain.
    """

    support_status = keystone_status("2015.1")
    heat_class_name = "KeystoneGroup"
    collection, entity = "groups", "group"
    live_ids = {"domain": ("domain_id", "domain")}
    domain_scoped = True
    actor_kind = "group"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone group.", update_allowed=True),
        "domain": Schema(Schema.STRING, "Name or id of keystone domain.", default="default",
                         update_allowed=True,
                         constraints=[CustomConstraint("keystone.domain")]),
        "description": Schema(Schema.STRING, "Description of keystone group.", default="",
                              update_allowed=True),
        ROLES: ROLES_SCHEMA,
    }
    translation_rules = (TranslationRule.resolve(("domain",), "domain"), *ROLES_RULES)

    def actor_id(self) -> str | None:
        return str(self.resource_id) if self.resource_id is not None else None

    def create_body(self) -> dict[str, Any]:
        return {"domain_id": self.properties["domain"],
                "description": self.properties["description"]}

    def after_create(self, made: Mapping[str, Any]) -> None:
        self.create_assignment()

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if "name" in prop_diff:
            body["name"] = self.name_of(prop_diff["name"])
        if prop_diff.get("description") is not None:
            body["description"] = prop_diff["description"]
        body["domain_id"] = prop_diff.get("domain") or self.properties["domain"]
        return body

    def after_update(self, prop_diff: Mapping[str, Any]) -> None:
        self.update_assignment(prop_diff)
