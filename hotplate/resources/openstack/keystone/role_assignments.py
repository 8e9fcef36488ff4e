"""Roles granted on projects or domains: the ``roles`` property of OS::Keystone::User and
Group, and OS::Keystone::UserRoleAssignment / GroupRoleAssignment (Heat's
``role_assignments.py``).

Each item of ``roles`` names a role and exactly one scope, a project or a domain
(both: Heat's ResourcePropertyConflict; neither: "Either project or domain must
be specified for role X"). Names are resolved to ids (``name{domain}`` names a
domain) before create and before an update is diffed, so an update that names the
same role by id is no change. An update grants what is new first, then revokes
what is gone, and only what Keystone says is assigned now; a delete revokes the
property's grants that are still assigned (a user or group already gone has none).
The assignment types make no object of their own: as in Heat, they have no
physical id, and their ``show`` is empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.keystone.api import KeystoneApi, quoted
from hotplate.resources.openstack.keystone.base import keystone_status
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.translation import TranslationRule

__all__ = ["ROLES", "ROLES_RULES", "ROLES_SCHEMA", "Grant", "GroupRoleAssignment",
           "UserRoleAssignment", "check_roles", "differences", "grant_all", "grants_of",
           "revoke_assigned"]

ROLES = "roles"
ROLE, PROJECT, DOMAIN = "role", "project", "domain"

ROLES_SCHEMA = Schema(
    Schema.LIST, "List of role assignments.", update_allowed=True,
    schema=Schema(Schema.MAP, "Map between role with either project or domain.", schema={
        ROLE: Schema(Schema.STRING, "Keystone role.", required=True,
                     constraints=[CustomConstraint("keystone.role")]),
        PROJECT: Schema(Schema.STRING, "Keystone project.",
                        constraints=[CustomConstraint("keystone.project")]),
        DOMAIN: Schema(Schema.STRING, "Keystone domain.",
                       constraints=[CustomConstraint("keystone.domain")]),
    }))

ROLES_RULES = (
    TranslationRule.resolve((ROLES, ROLE), "role"),
    TranslationRule.resolve((ROLES, PROJECT), "project"),
    TranslationRule.resolve((ROLES, DOMAIN), "domain"),
)


class ResourcePropertyConflict(StackValidationFailed):
    def __init__(self, *names: str) -> None:
        super().__init__("Cannot define the following properties at the same time: "
                         f"{', '.join(names)}.")


@dataclass(frozen=True, slots=True)
class Grant:
    """One role on one scope: a project, else a domain (Heat reads them in that order)."""

    role: str
    project: str | None = None
    domain: str | None = None

    def path(self, actor: str) -> str:
        """Keystone's grant path for ``actor`` (``users/<id>`` or ``groups/<id>``)."""
        scope = (f"projects/{quoted(self.project)}" if self.project is not None
                 else f"domains/{quoted(str(self.domain))}")
        return f"/{scope}/{actor}/roles/{quoted(self.role)}"


def check_roles(roles: Sequence[Mapping[str, Any]] | None) -> None:
    """Heat's validate_assignment_properties."""
    for item in roles or ():
        if item.get(PROJECT) is not None and item.get(DOMAIN) is not None:
            raise ResourcePropertyConflict(PROJECT, DOMAIN)
        if item.get(PROJECT) is None and item.get(DOMAIN) is None:
            raise StackValidationFailed("Either project or domain must be specified for "
                                        f"role {item.get(ROLE)}")


def grants_of(roles: Iterable[Mapping[str, Any]] | None) -> list[Grant]:
    """The grants a ``roles`` value asks for, in its order (items with no scope dropped)."""
    found: list[Grant] = []
    for item in roles or ():
        if item.get(PROJECT) is not None:
            found.append(Grant(str(item[ROLE]), project=str(item[PROJECT])))
        elif item.get(DOMAIN) is not None:
            found.append(Grant(str(item[ROLE]), domain=str(item[DOMAIN])))
    return found


def differences(new: Iterable[Mapping[str, Any]] | None,
                old: Iterable[Mapping[str, Any]] | None) -> tuple[list[Grant], list[Grant]]:
    """(to grant, to revoke) going from ``old`` roles to ``new`` ones."""
    wanted, had = grants_of(new), grants_of(old)
    added = [g for i, g in enumerate(wanted) if g not in had and g not in wanted[:i]]
    removed = [g for i, g in enumerate(had) if g not in wanted and g not in had[:i]]
    return added, removed


def assigned(api: KeystoneApi, actor_kind: str, actor_id: str) -> set[Grant]:
    """The roles Keystone says are assigned to the user or group directly now."""
    found: set[Grant] = set()
    listed = api.listing("role_assignments", **{f"{actor_kind}.id": actor_id})
    for item in listed:
        role = (item.get("role") or {}).get("id")
        scope = item.get("scope") or {}
        if not role:
            continue
        project = (scope.get("project") or {}).get("id")
        domain = (scope.get("domain") or {}).get("id")
        if project or domain:
            found.add(Grant(str(role), project=project, domain=None if project else domain))
    return found


def grant_all(api: KeystoneApi, actor: str, grants: Iterable[Grant]) -> None:
    for grant in grants:
        api.put(grant.path(actor))


def revoke_assigned(api: KeystoneApi, actor_kind: str, actor_id: str,
                    grants: Iterable[Grant]) -> None:
    """Revoke those of ``grants`` Keystone still has (another may have revoked some)."""
    wanted = list(grants)
    if not wanted:
        return
    current = assigned(api, actor_kind, actor_id)
    actor = f"{actor_kind}s/{quoted(actor_id)}"
    for grant in wanted:
        if grant in current:
            api.delete(grant.path(actor))


class RoleAssignments(Resource):
    """What User, Group and the two assignment types share: ``roles`` on one actor."""

    default_client_name = "keystone"
    actor_kind: ClassVar[str] = ""
    """``user`` or ``group``."""

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        check_roles(props.get(ROLES))

    def actor_id(self) -> str | None:
        raise NotImplementedError

    def create_assignment(self) -> None:
        actor = self.actor_id()
        if actor is not None:
            grant_all(KeystoneApi(self.cloud), f"{self.actor_kind}s/{quoted(actor)}",
                      grants_of(self.properties.get(ROLES)))

    def update_assignment(self, prop_diff: Mapping[str, Any]) -> None:
        """Heat's update_assignment: runs with the old properties still in place."""
        actor = self.actor_id()
        if ROLES not in prop_diff or actor is None:
            return
        added, removed = differences(prop_diff[ROLES], self.properties.get(ROLES))
        api = KeystoneApi(self.cloud)
        grant_all(api, f"{self.actor_kind}s/{quoted(actor)}", added)
        revoke_assigned(api, self.actor_kind, actor, removed)

    def delete_assignment(self) -> None:
        actor = self.actor_id()
        if actor is not None:
            revoke_assigned(KeystoneApi(self.cloud), self.actor_kind, actor,
                            grants_of(self.properties.get(ROLES)))


class _Assignment(RoleAssignments):
    """A standalone assignment: the actor is a property, nothing of its own is made."""

    actor_property: ClassVar[str] = ""

    def actor_id(self) -> str | None:
        value = self.properties.get(self.actor_property)
        return str(value) if value else None

    def handle_create(self) -> Any:
        self.create_assignment()
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if self.actor_property in prop_diff:
            # Another actor: what the old one had goes, the new one gets every role.
            self.delete_assignment()
            super().handle_update(new_properties, prop_diff)
            self.create_assignment()
            return None
        self.update_assignment(prop_diff)
        return super().handle_update(new_properties, prop_diff)

    def handle_delete(self) -> Any:
        self.delete_assignment()
        return None

    live_state = False  # nothing of its own to read back (nor in Heat)

    def _show_resource(self) -> Any:
        return None


class UserRoleAssignment(_Assignment):
    """Resource for granting roles to a user.

    Resource for specifying users and their's roles.
    """

    support_status = keystone_status("5.0.0")
    heat_class_name = "KeystoneUserRoleAssignment"
    actor_kind = "user"
    actor_property = "user"

    properties_schema = {
        "user": Schema(Schema.STRING, "Name or id of keystone user.", required=True,
                       update_allowed=True, constraints=[CustomConstraint("keystone.user")]),
        ROLES: ROLES_SCHEMA,
    }
    translation_rules = (TranslationRule.resolve(("user",), "user"), *ROLES_RULES)


class GroupRoleAssignment(_Assignment):
    """Resource for granting roles to a group.

    Resource for specifying groups and their's roles.
    """

    support_status = keystone_status("5.0.0")
    heat_class_name = "KeystoneGroupRoleAssignment"
    actor_kind = "group"
    actor_property = "group"

    properties_schema = {
        "group": Schema(Schema.STRING, "Name or id of keystone group.", required=True,
                        update_allowed=True, constraints=[CustomConstraint("keystone.group")]),
        ROLES: ROLES_SCHEMA,
    }
    translation_rules = (TranslationRule.resolve(("group",), "group"), *ROLES_RULES)
