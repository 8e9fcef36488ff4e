"""Who may use a resource type, and whether the caller's cloud offers what it needs.

Heat's two gates, in Heat's words:

- **Policy**: the ``resource_types:<type>`` rules Heat's defaults restrict to
  admins (``heat_types.ADMIN_ONLY_TYPES``; ``OS::Keystone::*`` for a whole
  namespace). A non-admin neither sees such a type listed nor may use it:
  ``You are not authorized to use resource_types:OS::Nova::Flavor.`` (403;
  for a type covered by a namespace rule, ``... to use OS::Keystone::User.``).
- **Service**: a type whose service is not in the caller's catalog (in the
  standalone mode, no catalog at all) is not listed, and is refused with
  ``HEAT-E99001 Service nova is not available for resource type
  OS::Nova::Server, reason: nova compute endpoint is not in service catalog.``
  (``resource type show`` gives ``reason: Service endpoint not in service
  catalog.``, as Heat's does).

What a type needs is its plugin's ``default_client_name`` (and
``required_service_extension``); a type Heat registers that no plugin here
implements yet takes its needs from Heat's table, and is refused with the same
error (reason: not implemented) once its service is there. Types the engine
implements itself need nothing: no catalog is read for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from hotplate.resources.base import Resource
from hotplate.resources.heat_types import ADMIN_ONLY_TYPES, CLIENT_SERVICES, HEAT_TYPES

__all__ = ["NOT_IMPLEMENTED", "SHOW_REASON", "Needs", "ServiceCatalog", "admin_only",
           "forbidden_message", "needs_of", "unavailable_message", "unavailable_reason"]

SHOW_REASON = "Service endpoint not in service catalog."
"""The reason ``resource type show`` gives (Heat's ``resource_schema``)."""
NOT_IMPLEMENTED = "this engine does not implement it yet"
ENGINE_SERVICE = "heat"
"""The service named for a type Heat implements in its engine and this one lacks."""


class ServiceCatalog(Protocol):
    """What the gate asks of the caller's cloud."""

    def endpoint_exists(self, client: str, service_type: str) -> bool:
        """Whether the catalog lists ``service_type`` for ``client``'s interface and region."""
        ...

    def has_extension(self, client: str, alias: str) -> bool:
        """Whether the service offers the extension (asks the service)."""
        ...


@dataclass(frozen=True, slots=True)
class Needs:
    client: str | None
    extension: str | None
    implemented: bool


def needs_of(type_name: str, cls: type[Resource] | None) -> Needs:
    """What ``type_name`` needs: its plugin's declaration, else Heat's table."""
    if cls is not None:
        return Needs(cls.default_client_name, cls.required_service_extension, True)
    known = HEAT_TYPES.get(type_name)
    if known is None:
        return Needs(None, None, False)
    return Needs(known.client, known.extension, False)


def admin_only(type_name: str) -> bool:
    namespace = type_name.rpartition("::")[0]
    return type_name in ADMIN_ONLY_TYPES or f"{namespace}::*" in ADMIN_ONLY_TYPES


def forbidden_message(type_name: str) -> str:
    """Heat's 403 text: the rule's name for a rule of its own, the type's for a namespace's."""
    if type_name in ADMIN_ONLY_TYPES:
        return f"You are not authorized to use resource_types:{type_name}."
    return f"You are not authorized to use {type_name}."


def unavailable_message(service_name: str, type_name: str, reason: str) -> str:
    return (f"HEAT-E99001 Service {service_name} is not available for resource type "
            f"{type_name}, reason: {reason}")


def unavailable_reason(type_name: str, cls: type[Resource] | None,
                       catalog: ServiceCatalog) -> tuple[str, str] | None:
    """None when the caller may use the type; else (service name, Heat's reason).

    A type that needs no service and is implemented asks nothing of ``catalog``.
    """
    needs = needs_of(type_name, cls)
    if needs.client is None:
        return None if needs.implemented else (ENGINE_SERVICE, NOT_IMPLEMENTED)
    if needs.client not in CLIENT_SERVICES:
        return needs.client, f"The client ({needs.client}) is not available."
    reason = ""
    for service_type in CLIENT_SERVICES[needs.client]:
        if not catalog.endpoint_exists(needs.client, service_type):
            reason = f"{needs.client} {service_type} endpoint is not in service catalog."
            continue
        if not needs.implemented:
            return needs.client, NOT_IMPLEMENTED
        if needs.extension is None or catalog.has_extension(needs.client, needs.extension):
            return None
        reason = (f"Required extension {needs.extension} in {needs.client} service is "
                  "not available.")
    return needs.client, reason
