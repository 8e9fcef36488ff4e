"""Token authentication, checked before every route under ``/v1/{project_id}``.

- No ``X-Auth-Token``, or a token the authenticator does not know: 401
  (``HTTPUnauthorized``).
- The URL's project must be the token's project, or 403 (``Forbidden``);
  an admin token may act in any project named by the URL.
- A ``reader`` token may only read: anything but GET/HEAD is 403.
- A ``signal`` token (TOKEN_SIGNAL, one per resource) may only signal, and read
  the metadata of, its own resource: anything else is 403.

With ``KeystoneHeaders`` (``hotplate.api.keystone``) the project and role
come from keystonemiddleware's headers instead, under the same rules.
The versions document (``GET /``) needs no token. Without an authenticator
(noauth mode) nothing is checked and routes build Heat's noauth context.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hotplate.api.context import Authenticator, token_context
from hotplate.api.faults import HTTPError

READ_METHODS = frozenset({"GET", "HEAD"})
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
    """Authenticate the caller and keep its context on ``request.state.context``."""
    auth: Authenticator | None = request.app.state.auth
    project_id = request.path_params.get("project_id")
    if auth is None or project_id is None:
        return
    identify = getattr(auth, "identify", None)
    if identify is not None:  # identity headers from a filter in front (keystone.py)
        found = identify(request.headers)
    else:
        token = request.headers.get("x-auth-token")
        if not token:
            raise _unauthorized("Authentication required: no X-Auth-Token header.")
        found = await run_in_threadpool(auth.authenticate, token)
    if found is None:
        raise _unauthorized("The request you have made requires authentication.")
    project, role = found
    if role != "admin" and project != project_id:
        raise _forbidden(f"Project {project_id} is not the project of the token.")
    if role == "reader" and request.method not in READ_METHODS:
        raise _forbidden("The reader role may only read.")
    if role == SIGNAL_ROLE:
        await _check_signal_scope(request, auth, request.headers.get("x-auth-token", ""))
    # Heat's rule: an admin is exempt from the URL check, and acts in its own project.
    acting = project if role == "admin" else str(project_id)
    request.state.context = token_context(project, role, acting)


async def _check_signal_scope(request: Request, auth: Authenticator, token: str) -> None:
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
