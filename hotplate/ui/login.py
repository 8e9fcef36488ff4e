"""Who a web view session is: a token checked the way ``/v1`` checks it, or a Keystone
user's password traded for a token.

By the API's mode (``create_app``'s ``auth``):

- ``token``: hotplate's own tokens (``AuthStore.authenticate``), a role each;
  the session's user is the token's project, as ``/v1``'s context says.
- ``keystone``: keystonemiddleware's ``auth_token`` validates the token
  (``KeystoneTokens.validate``), with its cache; a user and password are first
  traded for a token at the Keystone the API's ``[keystone_authtoken]`` names
  (its ``www_authenticate_uri``, else ``auth_url``) with keystoneauth1's
  password plugin, which finds the identity API's version itself.
- ``noauth``: everyone is the admin, as in ``/v1``.

``keystone-headers`` has no login: identity there comes from a gateway in front,
which a browser's cookie does not reach.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.concurrency import run_in_threadpool

from hotplate.api import policy
from hotplate.api.auth import context_is_admin
from hotplate.api.context import RequestContext, keystone_context, token_context
from hotplate.api.keystone_tokens import KeystoneCaller, KeystoneTokens, Refusal

NOAUTH, TOKEN, KEYSTONE, HEADERS = "noauth", "token", "keystone", "keystone-headers"


class LoginRefused(Exception):
    """The token or password was refused (401); the text says why, never a secret."""


class LoginUnavailable(Exception):
    """Keystone could not be asked (503)."""


@dataclass(frozen=True)
class Identity:
    """The caller a session stands for, and the context its engine calls carry."""

    user: str
    project_id: str
    roles: tuple[str, ...]
    is_admin: bool
    expires_at: float | None
    """The token's own expiry, seconds since the epoch (None: it has none)."""
    context: RequestContext

    @property
    def policy_roles(self) -> frozenset[str]:
        """The roles Heat's policy sees: each with those it implies (admin: member
        and reader), as Keystone's default implied roles give them."""
        return frozenset(r for role in self.roles for r in policy.implied_roles(role.lower()))

    def allows(self, rule: str) -> bool:
        return policy.allows(rule, self.policy_roles)

    @property
    def can_apply(self) -> bool:
        """Whether Heat's policy lets the caller update a stack (a member or admin)."""
        return self.allows("stacks:update")

    def may_act_in(self, project_id: str) -> bool:
        """``/v1``'s project rule: a caller acts in its own project; an admin
        token of hotplate's in any."""
        return project_id == self.project_id or (
            self.is_admin and self.context.keystone is None)


def mode_of(auth: Any) -> str:
    """The API's authentication mode, from the authenticator ``create_app`` holds."""
    if auth is None:
        return NOAUTH
    if isinstance(auth, KeystoneTokens):
        return KEYSTONE
    if hasattr(auth, "identify"):
        return HEADERS
    return TOKEN


def noauth_identity() -> Identity:
    context = RequestContext(user="admin", auth_project="admin", project_id="admin",
                             is_admin=True, request_id="", roles=("admin",))
    return Identity(user="admin", project_id="admin", roles=("admin",), is_admin=True,
                    expires_at=None, context=context)


async def identify(auth: Any, token: str, headers: Mapping[str, str]) -> Identity | None:
    """The identity of ``token`` now (None when refused), checked as ``/v1`` would.

    Raises:
        LoginUnavailable: Keystone could not be reached.
    """
    if not token:
        return None
    mode = mode_of(auth)
    if mode == KEYSTONE:
        return await _keystone_identity(auth, token, headers)
    if mode != TOKEN:
        return None
    found = await run_in_threadpool(auth.authenticate, token)
    if found is None:
        return None
    project, role = found
    expiry_of = getattr(auth, "token_expiry", None)
    expiry: datetime | None = (await run_in_threadpool(expiry_of, token)
                               if expiry_of is not None else None)
    roles = tuple(sorted(policy.implied_roles(role)))
    return Identity(user=project, project_id=project, roles=roles, is_admin=role == "admin",
                    expires_at=expiry.timestamp() if expiry is not None else None,
                    context=token_context(project, role, project))


async def _keystone_identity(auth: KeystoneTokens, token: str,
                             headers: Mapping[str, str]) -> Identity | None:
    found = await run_in_threadpool(auth.validate, "GET", "/v1",
                                    [("x-auth-token", token)])
    if isinstance(found, Refusal):
        if found.status >= 500:
            raise LoginUnavailable("Keystone could not be reached to check the token.")
        return None
    admin = context_is_admin(found)
    context = keystone_context(found, headers, is_admin=admin, auth_url=auth.auth_url)
    return Identity(user=found.username or found.user_id or "", project_id=found.project_id or "",
                    roles=found.roles, is_admin=admin, expires_at=_keystone_expiry(found),
                    context=context)


def _keystone_expiry(caller: KeystoneCaller) -> float | None:
    body = caller.token_info.get("token") or caller.token_info.get("access", {}).get("token")
    raw = (body or {}).get("expires_at") or (body or {}).get("expires")
    if not raw:
        return None
    try:
        return datetime.fromisoformat(str(raw).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


PASSWORD_FIELDS = ("username", "password", "project_name")


async def password_token(auth: KeystoneTokens, body: Mapping[str, Any]) -> str:
    """A Keystone token for a user's password, scoped to the project named.

    Raises:
        LoginRefused: Keystone refused the user, password or project.
        LoginUnavailable: no Keystone is configured, or it could not be reached.
    """
    if not auth.auth_url:
        raise LoginUnavailable("No Keystone URL is configured ([keystone_authtoken] "
                               "www_authenticate_uri or auth_url).")
    return await run_in_threadpool(_password_token, auth.auth_url, dict(body))


def _password_token(auth_url: str, body: dict[str, Any]) -> str:
    from keystoneauth1 import exceptions, session
    from keystoneauth1.identity import generic

    plugin = generic.Password(
        auth_url=auth_url, username=body["username"], password=body["password"],
        project_name=body["project_name"],
        user_domain_name=body.get("user_domain_name") or "Default",
        project_domain_name=body.get("project_domain_name") or "Default")
    try:
        token = plugin.get_token(session.Session(timeout=15))
    except exceptions.Unauthorized:
        raise LoginRefused("Keystone refused this user, password or project.") from None
    except (exceptions.ConnectFailure, exceptions.ConnectTimeout,
            exceptions.DiscoveryFailure, exceptions.ServiceUnavailable) as exc:
        raise LoginUnavailable(f"Keystone could not be reached: {type(exc).__name__}") from None
    except exceptions.ClientException as exc:
        raise LoginRefused(f"Keystone refused the login: {type(exc).__name__}") from None
    if not token:
        raise LoginRefused("Keystone gave no token.")
    return str(token)
