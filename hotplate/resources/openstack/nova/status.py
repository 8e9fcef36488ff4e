"""How Heat reads a Nova server's status while it waits (pure: a server document in,
done / not yet / Heat's error out).

::

    building, resizing ...   BUILD, REBOOT, RESIZE, VERIFY_RESIZE, SHUTOFF ...: not yet
    ACTIVE                   done
    ERROR                    ResourceInError: Went to status ERROR due to
                             "Message: <fault message>, Code: <fault code>"
    anything else            ResourceUnknownStatus: Server is not active - Unknown
                             status X due to "Unknown"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.openstack.nova.base import ResourceInError, ResourceUnknownStatus

__all__ = ["DEFERRED", "check_active", "check_deleted", "check_rebuilt", "check_resized",
           "check_verified", "status_of"]

DEFERRED = frozenset({"BUILD", "HARD_REBOOT", "PASSWORD", "REBOOT", "RESCUE", "RESIZE",
                      "REVERT_RESIZE", "SHUTOFF", "SUSPENDED", "VERIFY_RESIZE"})
"""Heat's ``deferred_server_statuses``: on the way to ACTIVE."""


def status_of(server: Mapping[str, Any]) -> str:
    """The status without the suffix some clouds add (``ACTIVE(foo)``)."""
    return str(server.get("status") or "").split("(")[0]


def _fault(server: Mapping[str, Any]) -> Mapping[str, Any]:
    fault = server.get("fault")
    return fault if isinstance(fault, Mapping) else {}


def check_active(server: Mapping[str, Any], what: str = "Server") -> bool:
    status = status_of(server)
    if status in DEFERRED:
        return False
    if status == "ACTIVE":
        return True
    if status == "ERROR":
        fault = _fault(server)
        raise ResourceInError(status, f"Message: {fault.get('message', 'Unknown')}, "
                                      f"Code: {fault.get('code', 'Unknown')}")
    raise ResourceUnknownStatus(str(server.get("status")), result=f"{what} is not active")


def check_deleted(server: Mapping[str, Any] | None) -> bool | str:
    """True: gone; False: not yet; ``"force"``: soft-deleted, to be force-deleted."""
    if server is None:
        return True
    if server.get("OS-EXT-STS:task_state") == "deleting":
        return False
    status = status_of(server)
    if status == "DELETED":
        return True
    if status == "SOFT_DELETED":
        return "force"
    if status == "ERROR":
        fault = _fault(server)
        raise ResourceInError(status, f"Server {server.get('name')} delete failed: "
                                      f"({fault.get('code')}) "
                                      f"{fault.get('message', 'Unknown')}")
    return False


def check_resized(server: Mapping[str, Any], flavor: str) -> bool:
    """Heat's check_resize: VERIFY_RESIZE reached (RESIZE, or ACTIVE before it starts:
    not yet)."""
    status = str(server.get("status"))
    if status in ("RESIZE", "ACTIVE"):
        return False
    if status == "VERIFY_RESIZE":
        return True
    raise HotplateError(f"Resizing to '{flavor}' failed, status '{status}'")


def check_verified(server: Mapping[str, Any], ident: str) -> bool:
    """Heat's check_verify_resize: back to ACTIVE after the confirm."""
    status = status_of(server)
    if status == "ACTIVE":
        return True
    if status == "VERIFY_RESIZE":
        return False
    task = server.get("OS-EXT-STS:task_state")
    if task is not None and "resize" in str(task):
        return False
    raise ResourceUnknownStatus(status, result=f"Confirm resize for server {ident} failed")


def check_rebuilt(server: Mapping[str, Any]) -> bool:
    status = str(server.get("status"))
    if status == "REBUILD":
        return False
    if status == "ERROR":
        raise HotplateError(f"Rebuilding server failed, status '{status}'")
    return True
