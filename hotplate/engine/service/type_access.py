"""One caller's access to resource types and custom constraints: Heat's policy and catalog gates.

Built per request from its context (``TypeAccess.for_context``). The policy
check (admin-only types) reads the caller's roles; the service check reads
the catalog of the caller's token, and only for a type that needs a service:
a stack of the engine's own types costs a set lookup per type and nothing
else (no Keystone call, no catalog parsed). The cloud is asked (custom
constraints, extensions) through the same caller's credentials.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from hotplate.cloud import Cloud, Clouds
from hotplate.model.errors import Forbidden, ResourceTypeUnavailable
from hotplate.resources.availability import (
    SHOW_REASON,
    admin_only,
    forbidden_message,
    unavailable_message,
    unavailable_reason,
)
from hotplate.resources.base import Resource
from hotplate.resources.custom_constraints import CheckContext
from hotplate.resources.heat_types import HEAT_TYPES

__all__ = ["TypeAccess", "service_unavailable"]


def service_unavailable(service_name: str, type_name: str, reason: str,
                        ) -> ResourceTypeUnavailable:
    """Heat's ``ResourceTypeUnavailable`` (HEAT-E99001): no path, the text as heatclient
    shows it; ``ignorable_errors=['99001']`` lets a template validation pass it."""
    error = ResourceTypeUnavailable(unavailable_message(service_name, type_name, reason))
    error.error_code = "99001"
    return error


def is_admin(ctxt: Mapping[str, Any]) -> bool:
    """Heat's ``project_admin`` rule (``role:admin``); a context without roles (the
    standalone API's) is an admin when it says so."""
    roles = ctxt.get("roles") or ()
    return "admin" in roles or bool(ctxt.get("is_admin"))


class TypeAccess:
    """What one caller may use, and the cloud as that caller sees it."""

    def __init__(self, ctxt: Mapping[str, Any], clouds: Clouds) -> None:
        self._ctxt = ctxt
        self._clouds = clouds
        self._cloud: Cloud | None = None
        self._admin: bool | None = None

    @property
    def admin(self) -> bool:
        """Heat's ``project_admin``. A parent stack's own call (OS::Heat::Stack making its
        stack in this region) comes with the stack's trust and no roles: the roles are
        the ones the trust delegates, read from its token once asked."""
        if self._admin is None:
            self._admin = is_admin(self._ctxt) or (
                bool(self._ctxt.get("trust_id")) and not self._ctxt.get("roles")
                and "admin" in self.cloud.role_names())
        return self._admin

    @classmethod
    def for_context(cls, ctxt: Mapping[str, Any] | None, clouds: Clouds) -> TypeAccess:
        return cls(ctxt or {}, clouds)

    @property
    def cloud(self) -> Cloud:
        """The caller's cloud, built on first use (nothing is asked of it until then)."""
        if self._cloud is None:
            self._cloud = self._clouds.for_context(self._ctxt)
        return self._cloud

    def allowed(self, type_name: str) -> bool:
        return self.admin or not admin_only(type_name)

    def check_policy(self, type_names: Iterable[str]) -> None:
        """Heat's ``resource_types:<type>`` policy over every type a template names.

        Raises:
            Forbidden: "You are not authorized to use resource_types:OS::Nova::Flavor."
        """
        for type_name in type_names:
            if not self.allowed(type_name):
                raise Forbidden(forbidden_message(type_name))

    def check_available(self, type_name: str, cls: type[Resource] | None, *,
                        show: bool = False) -> None:
        """Refuse a type whose service the caller's catalog lacks (or no plugin implements).

        ``show``: in ``resource type show``'s words ("Service endpoint not in service
        catalog.") rather than a validation's ("nova compute endpoint is not in ...").

        Raises:
            ResourceTypeUnavailable: HEAT-E99001, Heat's text.
        """
        found = unavailable_reason(type_name, cls, self.cloud)
        if found is None:
            return
        service, reason = found
        if show and reason.endswith("endpoint is not in service catalog."):
            reason = SHOW_REASON
        raise service_unavailable(service, type_name, reason)

    def unimplemented(self, error: ResourceTypeUnavailable) -> ResourceTypeUnavailable | None:
        """For a lookup that found no plugin: Heat's E99001 when Heat has the type (the
        catalog decides the reason: its service absent, else not implemented here);
        None for a type nobody knows ("could not be found" stands)."""
        type_name = error.resource_type
        if type_name is None or type_name not in HEAT_TYPES:
            return None
        found = unavailable_reason(type_name, None, self.cloud)
        if found is None:
            return None
        return service_unavailable(found[0], type_name, found[1])

    def listed(self, type_name: str, cls: type[Resource]) -> bool:
        """Whether ``resource type list`` shows the type to this caller."""
        if not self.allowed(type_name):
            return False
        try:
            return unavailable_reason(type_name, cls, self.cloud) is None
        except Exception:  # a service that fails to answer hides its types, as in Heat
            return False

    def region_endpoint(self, client: str, service_type: str, region: str) -> str | None:
        """Why the caller's catalog has no ``service_type`` endpoint in ``region``, in
        keystoneauth's words; None when it has one, or when there is no catalog to
        ask (no Keystone credentials: the standalone mode)."""
        if self.cloud.credentials is None:
            return None
        there = self._clouds.for_context({**self._ctxt, "region_name": region})
        if there.endpoint_exists(client, service_type):
            return None
        interface = self._clouds.settings.interface(client)
        return f"{interface} endpoint for {service_type} service in {region} region not found"

    @property
    def has_credentials(self) -> bool:
        """Whether the caller came with Keystone credentials (a catalog to ask)."""
        return self.cloud.credentials is not None

    @property
    def region(self) -> str | None:
        """The region the caller's requests go to (Heat's context region)."""
        return self._clouds.region_for(self._ctxt)

    def check_context(self, now: datetime) -> CheckContext:
        """What custom constraints are checked with: the clock and the caller's cloud."""
        return CheckContext(now, self.cloud)
