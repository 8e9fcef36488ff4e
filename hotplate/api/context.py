"""The request context: Heat's ``noauth`` pipeline, or a token's project and role.

In noauth mode the caller is whoever ``X-Auth-User`` / ``X-Auth-Project``
say (both default ``admin``) and every caller is an admin. The project in
the URL is the project the request acts in (stacks created belong to it).

With token authentication the caller is the token's project with the
token's role; ``token_context`` builds that context once the URL's project
has been checked against it (see ``hotplate.api.auth``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.requests import Request


@dataclass(frozen=True)
class RequestContext:
    user: str
    auth_project: str
    project_id: str
    is_admin: bool
    request_id: str
    roles: tuple[str, ...] = ()

    def to_rpc(self) -> dict[str, Any]:
        """The JSON-safe context the engine topic receives (Heat's key names)."""
        ctxt: dict[str, Any] = {
            "user_id": self.user,
            "username": self.user,
            "project_id": self.project_id,
            "tenant": self.project_id,
            "tenant_id": self.project_id,
            "is_admin": self.is_admin,
            "request_id": self.request_id,
        }
        if self.roles:
            ctxt["roles"] = list(self.roles)
        return ctxt


class Authenticator(Protocol):
    """What the API needs of a token store."""

    def authenticate(self, token: str) -> tuple[str, str] | None:
        """(project, role) for a valid token, None otherwise."""


def noauth_context(request: Request, project_id: str) -> RequestContext:
    headers = request.headers
    return RequestContext(
        user=headers.get("x-auth-user") or "admin",
        auth_project=headers.get("x-auth-project") or "admin",
        project_id=project_id,
        is_admin=True,
        request_id=f"req-{uuid.uuid4()}",
    )


def token_context(project: str, role: str, project_id: str) -> RequestContext:
    """The context of a caller holding a ``role`` token of ``project``, acting in
    ``project_id`` (the URL's project, already checked against the token)."""
    return RequestContext(
        user=project,
        auth_project=project,
        project_id=project_id,
        is_admin=role == "admin",
        request_id=f"req-{uuid.uuid4()}",
        roles=(role,),
    )
