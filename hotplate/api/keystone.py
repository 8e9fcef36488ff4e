"""A gateway's Keystone mode: trust the identity headers keystonemiddleware sets in front.

This is ``--auth keystone-headers`` (``--keystone``), for a gateway that runs
the ``auth_token`` filter and proxies on. hotplate validating the tokens
itself is ``--auth keystone`` (``hotplate.api.keystone_tokens``).

keystonemiddleware's ``auth_token`` filter, run in front of hotplate,
validates the caller's Keystone token and passes the request on with
``X-Identity-Status: Confirmed``, ``X-Project-Id`` and ``X-Roles`` (and
strips any such headers the caller sent). hotplate maps them exactly as it
maps its own tokens: the project is the token's project, ``admin`` among
the roles makes an admin, only ``reader`` makes a reader, only
``heat_stack_user`` a stack user (Heat's ``deny_stack_user``: signals and
metadata), anything else a member; then Heat's policy defaults apply to that
role as to a token's. hotplate itself cannot tell a forged header from a real one, so this
mode only makes sense behind the filter (``hotplate serve --keystone``
listens on loopback unless forced).
"""

from __future__ import annotations

from collections.abc import Mapping


class KeystoneHeaders:
    """An authenticator that reads the headers instead of checking a token."""

    def authenticate(self, token: str) -> tuple[str, str] | None:
        return None  # tokens are keystonemiddleware's business, never ours

    def identify(self, headers: Mapping[str, str]) -> tuple[str, str] | None:
        """(project, role) of a request keystonemiddleware confirmed; None otherwise."""
        if headers.get("x-identity-status", "").lower() != "confirmed":
            return None
        project = headers.get("x-project-id") or headers.get("x-tenant-id")
        if not project:
            return None
        roles = {r.strip().lower() for r in headers.get("x-roles", "").split(",") if r.strip()}
        return project, role_of(roles)


def role_of(roles: set[str]) -> str:
    if "admin" in roles:
        return "admin"
    if roles and roles <= {"reader"}:
        return "reader"
    if roles and roles <= {"heat_stack_user"}:
        return "heat_stack_user"
    return "member"
