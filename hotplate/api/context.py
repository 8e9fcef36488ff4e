"""The request context, as Heat's ``noauth`` pipeline builds it.

In noauth mode the caller is whoever ``X-Auth-User`` / ``X-Auth-Project``
say (both default ``admin``) and every caller is an admin. The project in
the URL is the project the request acts in (stacks created belong to it).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request


@dataclass(frozen=True)
class RequestContext:
    user: str
    auth_project: str
    project_id: str
    is_admin: bool
    request_id: str

    def to_rpc(self) -> dict[str, Any]:
        """The JSON-safe context the engine topic receives (Heat's key names)."""
        return {
            "user_id": self.user,
            "username": self.user,
            "project_id": self.project_id,
            "tenant": self.project_id,
            "tenant_id": self.project_id,
            "is_admin": self.is_admin,
            "request_id": self.request_id,
        }


def noauth_context(request: Request, project_id: str) -> RequestContext:
    headers = request.headers
    return RequestContext(
        user=headers.get("x-auth-user") or "admin",
        auth_project=headers.get("x-auth-project") or "admin",
        project_id=project_id,
        is_admin=True,
        request_id=f"req-{uuid.uuid4()}",
    )
