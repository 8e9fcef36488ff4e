"""OS::Keystone::Role (Heat's ``role.py``): a name (changed in place), and the domain a
domain-specific role belongs to (a change replaces the role)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Role"]


class Role(KeystoneResource):
    """Heat Template Resource for Keystone Role.

    Roles dictate the level of authorization the end user can obtain. Roles can
    be granted at either the domain or project level. Role can be assigned to
    the individual user or at the group level. Role name is unique within the
    owning domain.
    """

    support_status = keystone_status("2015.1")
    heat_class_name = "KeystoneRole"
    collection, entity = "roles", "role"
    domain_scoped = True

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone role.", update_allowed=True),
        "domain": Schema(Schema.STRING, "Name or id of keystone domain.",
                         constraints=[CustomConstraint("keystone.domain")],
                         support_status=SupportStatus(version="16.0.0")),
    }
    translation_rules = (TranslationRule.resolve(("domain",), "domain"),)

    def create_body(self) -> dict[str, Any]:
        domain = self.properties.get("domain")
        return {"domain_id": domain} if domain else {}

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        return ({"name": self.name_of(prop_diff["name"])} if "name" in prop_diff else {})
