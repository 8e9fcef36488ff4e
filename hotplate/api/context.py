"""The request context: Heat's ``noauth`` pipeline, a token's project and role, or a
Keystone token's caller.

In noauth mode the caller is whoever ``X-Auth-User`` / ``X-Auth-Project``
say (both default ``admin``) and every caller is an admin. The project in
the URL is the project the request acts in (stacks created belong to it).

With token authentication the caller is the token's project with the
token's role; ``token_context`` builds that context once the URL's project
has been checked against it (see ``hotplate.api.auth``).

With Keystone tokens (``hotplate.api.keystone_tokens``) the context carries
what Heat's does to the engine (``heat.common.context.RequestContext.to_dict``):
the caller's token and keystonemiddleware's token data (with the service
catalog), user, project and domains, role names, the region asked for, and the
request ids, so that the engine can act for the caller in the cloud.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.requests import Request

from hotplate.api.keystone_tokens import KeystoneCaller


@dataclass(frozen=True)
class RequestContext:
    user: str
    auth_project: str
    project_id: str
    is_admin: bool
    request_id: str
    roles: tuple[str, ...] = ()
    keystone: KeystoneRequest | None = None

    def to_rpc(self) -> dict[str, Any]:
        """The JSON-safe context the engine topic receives (Heat's key names)."""
        if self.keystone is not None:
            return self.keystone.to_rpc(self.project_id, self.is_admin, self.request_id)
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


_REQUEST_ID = re.compile(r"^req-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$")


@dataclass(frozen=True)
class KeystoneRequest:
    """A request made with a Keystone token: the caller and what the request said."""

    caller: KeystoneCaller
    auth_url: str | None = None
    region_name: str | None = None
    global_request_id: str | None = None

    def to_rpc(self, project_id: str, is_admin: bool, request_id: str) -> dict[str, Any]:
        """Heat's context dict: oslo.context's keys, Heat's own, and the aliases
        hotplate's engine and Heat's ``from_dict`` read (``tenant_id``, ``user_id``, ...)."""
        c = self.caller
        user_identity = " ".join(v or "-" for v in (
            c.user_id, c.project_id, c.domain_id, c.user_domain_id, c.project_domain_id))
        return {
            "auth_token": c.auth_token,
            "auth_token_info": dict(c.token_info),
            "auth_url": self.auth_url,
            "user": c.user_id,
            "user_id": c.user_id,
            "username": c.username,
            "user_name": c.username,
            "user_domain": c.user_domain_id,
            "user_domain_id": c.user_domain_id,
            "user_domain_name": c.user_domain_name,
            "project": project_id,
            "project_id": project_id,
            "tenant": project_id,
            "tenant_id": project_id,
            "project_name": c.project_name,
            "project_domain": c.project_domain_id,
            "project_domain_id": c.project_domain_id,
            "project_domain_name": c.project_domain_name,
            "domain": c.domain_id,
            "system_scope": c.system_scope,
            "roles": list(c.roles),
            "is_admin": is_admin,
            "is_admin_project": c.is_admin_project,
            "read_only": False,
            "show_deleted": False,
            "resource_uuid": None,
            "region_name": self.region_name,
            "request_id": request_id,
            "global_request_id": self.global_request_id,
            "user_identity": user_identity,
            "password": None,
            "aws_creds": None,
            "trust_id": None,
            "trustor_user_id": None,
        }


def keystone_context(caller: KeystoneCaller, headers: Mapping[str, str], *,
                     is_admin: bool, auth_url: str | None) -> RequestContext:
    """The context of a Keystone caller, acting in its token's project (Heat's
    context: an admin is exempt from the URL's project, and acts in its own)."""
    global_id = headers.get("x-openstack-request-id")
    request = KeystoneRequest(
        caller=caller,
        auth_url=auth_url,
        region_name=headers.get("x-region-name") or None,
        global_request_id=global_id if global_id and _REQUEST_ID.match(global_id) else None,
    )
    project = caller.project_id or ""
    return RequestContext(
        user=caller.username or caller.user_id or "",
        auth_project=project,
        project_id=project,
        is_admin=is_admin,
        request_id=f"req-{uuid.uuid4()}",
        roles=caller.roles,
        keystone=request,
    )
