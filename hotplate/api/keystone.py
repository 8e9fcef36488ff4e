"""Keystone deployments: trust the identity headers keystonemiddleware sets.

keystonemiddleware's ``auth_token`` filter, run in front of hotplate,
validates the caller's Keystone token and passes the request on with
``X-Identity-Status: Confirmed``, ``X-Project-Id`` and ``X-Roles`` (and
strips any such headers the caller sent). hotplate maps them exactly as it
maps its own tokens: the project is the token's project, ``admin`` among
the roles makes an admin, only ``reader`` makes a reader, anything else a
member. hotplate itself cannot tell a forged header from a real one, so this
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
    return "member"
