"""What the client-layer suites share: a caller's request context from a real Keystone
token, as the API hands it to the engine (Heat's keys)."""

from __future__ import annotations

from typing import Any

from tests.cloud.locate import Cloud


def token_context(cloud: Cloud, conn: Any, *, with_catalog: bool = True) -> dict[str, Any]:
    """The RPC context of a request made with ``conn``'s token: Heat's keys, the token's
    body (its catalog) in ``auth_token_info`` unless ``with_catalog`` is False."""
    session = conn.session
    access = session.auth.get_access(session)
    ctxt: dict[str, Any] = {
        "auth_token": session.get_token(),
        "auth_url": cloud.auth_url,
        "user_id": access.user_id,
        "project_id": access.project_id,
        "tenant_id": access.project_id,
        "roles": list(access.role_names),
        "is_admin": "admin" in access.role_names,
        "region_name": cloud.region,
    }
    if with_catalog:
        ctxt["auth_token_info"] = {"token": access._data["token"]}
    return ctxt
