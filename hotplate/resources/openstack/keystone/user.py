"""OS::Keystone::User (Heat's ``user.py``): a user, its groups and its roles.

Every property changes in place. Heat sends the user's domain with each
update (Keystone refuses a new one). ``groups`` are memberships added and
removed by their difference; ``roles`` are grants (``role_assignments``).
The delete leaves the groups first, then deletes the user (its grants go with
it); anything already gone is fine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.cloud_errors import ignoring, is_not_found
from hotplate.resources.openstack.keystone.api import quoted
from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.openstack.keystone.role_assignments import (
    ROLES,
    ROLES_RULES,
    ROLES_SCHEMA,
    RoleAssignments,
)
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["User", "group_changes"]

_V9 = SupportStatus(version="9.0.0")
_FIELDS = {"description": "description", "enabled": "enabled", "email": "email",
           "password": "password", "default_project": "default_project_id"}
"""Property -> Keystone's field, for the plain ones."""


def group_changes(new: list[str] | None, old: list[str] | None) -> tuple[list[str], list[str]]:
    """(groups to join, groups to leave), each in the order given."""
    wanted, had = list(new or []), list(old or [])
    return ([g for i, g in enumerate(wanted) if g not in had and g not in wanted[:i]],
            [g for i, g in enumerate(had) if g not in wanted and g not in had[:i]])


class User(KeystoneResource, RoleAssignments):
    """Heat Template Resource for Keystone User.

    Users represent an individual API consumer. A user itself must be owned by
    a specific domain, and hence all user names are not globally unique, but
    only unique to their domain.
    """

    support_status = keystone_status("2015.1")
    heat_class_name = "KeystoneUser"
    collection, entity = "users", "user"
    live_ids = {"domain": ("domain_id", "domain"),
                "default_project": ("default_project_id", "project")}
    domain_scoped = True
    actor_kind = "user"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone user.", update_allowed=True),
        "domain": Schema(Schema.STRING, "Name or ID of keystone domain.", default="default",
                         update_allowed=True,
                         constraints=[CustomConstraint("keystone.domain")]),
        "description": Schema(Schema.STRING, "Description of keystone user.", default="",
                              update_allowed=True),
        "enabled": Schema(Schema.BOOLEAN, "Keystone user is enabled or disabled.",
                          default=True, update_allowed=True),
        "email": Schema(Schema.STRING, "Email address of keystone user.",
                        update_allowed=True),
        "password": Schema(Schema.STRING, "Password of keystone user.", update_allowed=True),
        "default_project": Schema(Schema.STRING, "Name or ID of default project of keystone "
                                  "user.", update_allowed=True,
                                  constraints=[CustomConstraint("keystone.project")]),
        "groups": Schema(Schema.LIST, "Keystone user groups.", update_allowed=True,
                         schema=Schema(Schema.STRING, "Keystone user group.",
                                       constraints=[CustomConstraint("keystone.group")])),
        ROLES: ROLES_SCHEMA,
    }

    attributes_schema = {
        "name": Attribute("User name.", Attribute.STRING, support_status=_V9),
        "default_project_id": Attribute("Default project id for user.", Attribute.STRING,
                                        support_status=_V9),
        "domain_id": Attribute("Domain id for user.", Attribute.STRING, support_status=_V9),
        "enabled": Attribute("Flag of enable user.", Attribute.BOOLEAN, support_status=_V9),
        "password_expires_at": Attribute("Show user password expiration time.",
                                         Attribute.STRING, support_status=_V9),
    }

    translation_rules = (TranslationRule.resolve(("domain",), "domain"),
                         TranslationRule.resolve(("default_project",), "project"),
                         TranslationRule.resolve(("groups",), "group"),
                         *ROLES_RULES)

    def actor_id(self) -> str | None:
        return str(self.resource_id) if self.resource_id is not None else None

    def create_body(self) -> dict[str, Any]:
        body = {field: self.properties.get(prop) for prop, field in _FIELDS.items()}
        body["domain_id"] = self.properties["domain"]
        return {k: v for k, v in body.items() if v is not None}

    def after_create(self, made: Mapping[str, Any]) -> None:
        self._join(self.properties.get("groups"))
        self.create_assignment()

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = {field: prop_diff[prop] for prop, field in _FIELDS.items()
                if prop_diff.get(prop) is not None}
        if "name" in prop_diff:
            body["name"] = self.name_of(prop_diff["name"])
        if not body:  # Keystone refuses an update with nothing in it
            return {}
        body["domain_id"] = prop_diff.get("domain") or self.properties["domain"]
        return body

    def after_update(self, prop_diff: Mapping[str, Any]) -> None:
        if "groups" in prop_diff:
            joined, left = group_changes(prop_diff["groups"], self.properties.get("groups"))
            self._join(joined)
            self._leave(left)
        self.update_assignment(prop_diff)

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """The base's reading and, when the template names groups, the user's groups
        (as the template named them when they are the same groups)."""
        result = super().parse_live_resource_data(resource_properties, resource_data)
        given = resource_properties.get("groups")
        if given is not None:
            found = self.keystone().request("GET", f"/users/{quoted(str(self.resource_id))}"
                                                   "/groups")
            live = sorted(str(g["id"]) for g in (found or {}).get("groups", []))
            same = sorted(str(self._found("group", str(g))) for g in given) == live
            result["groups"] = list(given) if same else live
        return result

    def _membership(self, group: str) -> str:
        return f"/groups/{quoted(group)}/users/{quoted(str(self.resource_id))}"

    def _join(self, groups: list[str] | None) -> None:
        for group in groups or []:
            self.keystone().put(self._membership(group))

    def _leave(self, groups: list[str] | None) -> None:
        for group in groups or []:
            self.keystone().delete(self._membership(group))

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        with ignoring(is_not_found):
            self._leave(self.properties.get("groups"))
        return super().handle_delete()
