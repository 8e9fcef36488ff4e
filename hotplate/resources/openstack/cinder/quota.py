"""OS::Cinder::Quota (Heat's ``cinder/quota.py``); by Cinder's default policy, for admins
only.

Sets a project's (name or id, looked up before create and before an update is
diffed) Cinder quotas: gigabytes, volumes, backups, backup_gigabytes,
snapshots; at least one must be given. Before each set, a limit below what
the project already uses is refused with Heat's words (a ``ValueError``, as
Heat raises it: "Invalid quota volumes value(s): 1. Can not be less than the
current usage value(s): 2."); -1 (no limit) is not checked. Every limit
updates in place (the whole set is sent again); a new project replaces it.
Delete gives the project back Cinder's defaults. The physical id is the
physical name, as in Heat, and ``show`` is what Cinder answers for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.constraints import CustomConstraint, Range
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.base import CinderEntity
from hotplate.resources.openstack.cinder.errors import PropertyUnspecifiedError
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["CinderQuota", "usage_error"]

LIMITS = ("gigabytes", "volumes", "backups", "backup_gigabytes", "snapshots")
"""Heat's order of the limits (validation and the usage checks follow it)."""


def _limit(description: str, version: str | None = None) -> Schema:
    return Schema(Schema.INTEGER, f"{description} Setting the value to -1 removes the limit.",
                  update_allowed=True, constraints=[Range(min=-1)],
                  support_status=SupportStatus(version=version))


def usage_error(limit: str, value: int, used: int) -> ValueError | None:
    """Heat's refusal of a limit below the current usage (None: the limit is fine)."""
    if value >= used:
        return None
    return ValueError(f"Invalid quota {limit} value(s): {value}. Can not be less than the "
                      f"current usage value(s): {used}.")


class CinderQuota(CinderEntity):
    """A resource for creating cinder quotas.

    Cinder Quota is used to manage operational limits for projects. Currently,
    this resource can manage Cinder's gigabytes, snapshots, and volumes
    quotas.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Cinder Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    heat_class_name = "CinderQuota"
    support_status = SupportStatus(version="7.0.0")
    required_service_extension = "os-quota-sets"
    show_key = "quota_set"

    properties_schema = {
        "project": Schema(Schema.STRING, "OpenStack Keystone Project.", required=True,
                          constraints=[CustomConstraint("keystone.project")]),
        "gigabytes": _limit("Quota for the amount of disk space (in Gigabytes)."),
        "volumes": _limit("Quota for the number of volumes."),
        "backups": _limit("Quota for the number of backups.", "16.0.0"),
        "backup_gigabytes": _limit("Quota for the amount of backups disk space (in "
                                   "Gigabytes).", "16.0.0"),
        "snapshots": _limit("Quota for the number of snapshots."),
    }

    translation_rules = (TranslationRule.resolve(("project",), "project"),)

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        if sum(1 for key in cls.properties_schema
               if key not in props or props[key] is not None) <= 1:
            raise PropertyUnspecifiedError("gigabytes", "snapshots", "volumes", "backups",
                                           "backup_gigabytes")

    def entity_path(self) -> str:
        return f"/os-quota-sets/{self.resource_id}?usage=False"

    def handle_create(self) -> Any:
        self._set_quota(self.properties)
        self.resource_id_set(self.physical_resource_name())
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        self._set_quota(new_properties)
        super().handle_update(new_properties, prop_diff)
        return None

    def _set_quota(self, props: Mapping[str, Any]) -> None:
        project = str(props["project"])
        limits = {k: props[k] for k in LIMITS if props.get(k) is not None}
        self._check_usage(self.cinder(), project, limits)
        self.cinder().put(f"/os-quota-sets/{project}",
                          {"quota_set": {"tenant_id": project, **limits}})

    @staticmethod
    def _check_usage(api: CinderApi, project: str, limits: Mapping[str, int]) -> None:
        """Heat's validate_quotas: each limit (but -1) against the project's usage."""
        checked = {k: v for k, v in limits.items() if v != -1}
        query = {"all_tenants": True, "project_id": project}
        found: dict[str, list[dict[str, Any]]] = {}

        def listed(kind: str) -> list[dict[str, Any]]:
            if kind not in found:
                found[kind] = api.listing(f"/{kind}/detail", kind, **query)
            return found[kind]

        usage = {
            "gigabytes": lambda: sum(int(i.get("size") or 0)
                                     for i in listed("volumes") + listed("snapshots")),
            "volumes": lambda: len(listed("volumes")),
            "backups": lambda: len(listed("backups")),
            "backup_gigabytes": lambda: sum(int(i.get("size") or 0) for i in listed("backups")),
            "snapshots": lambda: len(listed("snapshots")),
        }
        for limit in LIMITS:
            if limit in checked:
                error = usage_error(limit, int(checked[limit]), usage[limit]())
                if error is not None:
                    raise error

    def delete_path(self) -> str:
        return f"/os-quota-sets/{self.properties['project']}"

    def get_live_resource_data(self) -> Any:
        """The project's quota set (the entity path names the physical name, as Heat's
        does; the live state is the project's)."""
        found = self.cinder().get(f"/os-quota-sets/{self.properties['project']}?usage=False")
        return found["quota_set"]
