"""Whose credentials a cloud call uses: the request's token, or a stack's trust.

- ``TokenCredentials``: the token the caller's request carried, with the
  token's body (``auth_token_info``, its catalog included) when the API passed
  it on, as Heat's request context does: then nothing is asked of Keystone to
  find an endpoint.
- ``TrustCredentials``: work that runs after the request (a traversal's nodes,
  a signal, a takeover an hour later) acts as the stack's owner through the
  trust the stack holds: the trustee (``[trustee]``, Heat's service user)
  authenticates with its password, scoped to the trust, as Heat does.

``key`` identifies the credentials for caching a session (a token by its
digest, never the token itself).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Credentials", "TokenCredentials", "TrustCredentials", "from_context"]


@dataclass(frozen=True, slots=True)
class TokenCredentials:
    token: str = field(repr=False)
    token_info: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    auth_url: str | None = None
    project_id: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return ("token", hashlib.sha256(self.token.encode()).hexdigest())


@dataclass(frozen=True, slots=True)
class TrustCredentials:
    trust_id: str

    @property
    def key(self) -> tuple[str, str]:
        return ("trust", self.trust_id)


Credentials = TokenCredentials | TrustCredentials


def from_context(ctxt: Mapping[str, Any]) -> Credentials | None:
    """The credentials a request's context carries (Heat's keys), None when it has none
    (the standalone mode: no Keystone, no catalog)."""
    token = ctxt.get("auth_token")
    if token:
        info = ctxt.get("auth_token_info")
        return TokenCredentials(str(token), info if isinstance(info, Mapping) else None,
                                ctxt.get("auth_url") or None,
                                ctxt.get("project_id") or ctxt.get("tenant_id") or None)
    trust_id = ctxt.get("trust_id")
    if trust_id:
        return TrustCredentials(str(trust_id))
    return None
