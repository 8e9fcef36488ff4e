"""Authentication and Heat's API policy, checked before every route under ``/v1/{project_id}``.

Who the caller is, by mode:

- hotplate's own tokens (``AuthStore``): no ``X-Auth-Token``, or a token the
  store does not know, is 401 (``HTTPUnauthorized``). The URL's project must
  be the token's project, or 403 (``Forbidden``); an admin token may act in
  any project named by the URL. A ``signal`` token (TOKEN_SIGNAL, one per
  resource) may only signal, and read the metadata of, its own resource.
- Keystone tokens (``KeystoneTokens``): keystonemiddleware's ``auth_token``
  validates the token in a worker thread and answers a refused request itself
  (401, or 503 without Keystone). Then as heat-api: an admin of the cloud
  (``context_is_admin``) acts in its own project whatever the URL names; anyone
  else must be in the URL's project, or 403 (``HTTPForbidden``).
- Identity headers from a filter in front (``KeystoneHeaders``): the project and
  role come from keystonemiddleware's headers, under the token rules.

Then the route's policy (``hotplate.api.policy``: Heat's default rules, by the
caller's roles) decides; a refusal is Heat's 403 (``Forbidden``, "You are not
authorized to use <rule>."). The versions document (``GET /``) needs nothing.
Without an authenticator (noauth mode) nothing is checked and routes build
Heat's noauth context.

The web view's session cookie (``hotplate.ui.session``) stands for a token: a
request with no ``X-Auth-Token`` but a ``hotplate_ui`` cookie is checked as if
it carried the cookie's token, and unless its method is GET, HEAD or OPTIONS
it must also carry the session's ``X-CSRF-Token`` (403 otherwise). A request
with a token never looks at cookies.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hotplate.api import policy
from hotplate.api.context import Authenticator, keystone_context, token_context
from hotplate.api.faults import HTTPError, PassedOn
from hotplate.api.keystone_tokens import KeystoneCaller, KeystoneTokens, Refusal
from hotplate.ui.session import COOKIE, CSRF_HEADER, SAFE_METHODS

SIGNAL_ROLE = "signal"
_SIGNAL_PATHS = re.compile(
    r"^/v1/[^/]+/stacks/(?P<stack>[^/]+)(?:/(?P<stack_id>[^/]+))?/resources/"
    r"(?P<resource>[^/]+)/(?P<what>signal|metadata)/?$")
_SIGNAL_METHODS = {"signal": "POST", "metadata": "GET"}


def _unauthorized(message: str) -> HTTPError:
    return HTTPError(401, message, {"WWW-Authenticate": "Token"})


def _forbidden(message: str) -> HTTPError:
    return HTTPError(403, message, error_type="Forbidden")


async def authorize(request: Request) -> None:
    """Authenticate the caller, enforce the route's policy, and keep the caller's
    context on ``request.state.context``."""
    auth: Authenticator | KeystoneTokens | None = request.app.state.auth
    project_id = request.path_params.get("project_id")
    if project_id is None:
        return
    if auth is None:
        if "x-auth-token" not in request.headers and "cookie" in request.headers:
            _cookie_token(request)  # noauth: only the csrf value to check
        return
    if isinstance(auth, KeystoneTokens):
        await _authorize_keystone(request, auth, str(project_id))
        return
    identify = getattr(auth, "identify", None)
    if identify is not None:  # identity headers from a filter in front (keystone.py)
        found = identify(request.headers)
    else:
        token = request.headers.get("x-auth-token") or _cookie_token(request)
        if not token:
            raise _unauthorized("Authentication required: no X-Auth-Token header.")
        found = await run_in_threadpool(auth.authenticate, token)
    if found is None:
        raise _unauthorized("The request you have made requires authentication.")
    project, role = found
    if role != "admin" and project != project_id:
        raise _forbidden(f"Project {project_id} is not the project of the token.")
    if role == SIGNAL_ROLE:
        await _check_signal_scope(request, auth, request.headers.get("x-auth-token", ""))
        roles = policy.STACK_USER
    else:
        roles = policy.implied_roles(role)
    _enforce_route(request, roles)
    # Heat's rule: an admin is exempt from the URL check, and acts in its own project.
    acting = project if role == "admin" else str(project_id)
    request.state.context = token_context(project, role, acting)


def _cookie_token(request: Request) -> str | None:
    """The token of the web view's session cookie (None: no cookie, or a session
    without a token); a cookie that does not open is 401, a change without the
    session's csrf value 403."""
    codec = getattr(request.app.state, "ui_sessions", None)
    raw = request.cookies.get(COOKIE) if codec is not None else None
    if codec is None or raw is None:
        return None
    session = codec.open(raw)
    if session is None:
        raise _unauthorized("The web view's session is not valid, or has expired.")
    if request.method not in SAFE_METHODS and not session.csrf_matches(
            request.headers.get(CSRF_HEADER)):
        raise _forbidden("CSRF token missing or wrong")
    return session.token


async def _authorize_keystone(request: Request, auth: KeystoneTokens, project_id: str) -> None:
    headers = request.headers.items()
    if "x-auth-token" not in request.headers:
        token = _cookie_token(request)
        if token:
            headers = [*headers, ("x-auth-token", token)]
    found = await run_in_threadpool(auth.validate, request.method, request.url.path, headers)
    if isinstance(found, Refusal):
        raise PassedOn(found.status, found.headers, found.body)
    is_admin = context_is_admin(found)
    acting = found.project_id if is_admin and found.project_id else project_id
    if found.project_id != acting:
        raise HTTPError(403, "Access was denied to this resource.")
    _enforce_route(request, frozenset(found.roles))
    request.state.context = keystone_context(found, request.headers, is_admin=is_admin,
                                             auth_url=auth.auth_url)


def context_is_admin(caller: KeystoneCaller) -> bool:
    """Heat's ``context_is_admin``: the admin role, in the admin project (every
    project is, unless Keystone names one)."""
    return caller.is_admin_project and any(r.lower() == "admin" for r in caller.roles)


def _enforce_route(request: Request, roles: frozenset[str]) -> None:
    request.state.policy_roles = roles
    endpoint = request.scope.get("endpoint")
    name = getattr(endpoint, "__name__", "")
    if name not in policy.ROUTE_RULES:
        raise _forbidden(policy.refusal(f"route {name or request.url.path}"))
    rule = policy.ROUTE_RULES[name]
    if rule is not None:
        enforce(request, rule)


def enforce(request: Request, rule: str) -> None:
    """Refuse the request (Heat's 403) unless its caller passes ``rule``.

    In noauth mode nothing is checked: every caller there is an admin.
    """
    roles = getattr(request.state, "policy_roles", None)
    if roles is not None and not policy.allows(rule, roles):
        raise _forbidden(policy.refusal(rule))


async def _check_signal_scope(request: Request, auth: Any, token: str) -> None:
    """A signal token reaches its one resource's signal and metadata, nothing else."""
    scope_of = getattr(auth, "signal_scope", None)
    scope = await run_in_threadpool(scope_of, token) if scope_of is not None else None
    found = _SIGNAL_PATHS.match(request.url.path)
    allowed = scope is not None and found is not None and (
        _SIGNAL_METHODS[found["what"]] == request.method
        and unquote(found["resource"]) == scope.resource_name
        and _same_stack(unquote(found["stack"]), found["stack_id"], scope))
    if not allowed:
        raise _forbidden("A signal token may only signal, and read the metadata of, "
                         "its own resource.")


def _same_stack(stack: str, stack_id: str | None, scope: Any) -> bool:
    if stack_id is not None:
        return stack == scope.stack_name and unquote(stack_id) == scope.stack_id
    return stack in (scope.stack_name, scope.stack_id)
