"""Token authentication, checked before every route under ``/v1/{project_id}``.

- No ``X-Auth-Token``, or a token the authenticator does not know: 401
  (``HTTPUnauthorized``).
- The URL's project must be the token's project, or 403 (``Forbidden``);
  an admin token may act in any project named by the URL.
- A ``reader`` token may only read: anything but GET/HEAD is 403.

With ``KeystoneHeaders`` (``hotplate.api.keystone``) the project and role
come from keystonemiddleware's headers instead, under the same rules.
The versions document (``GET /``) needs no token. Without an authenticator
(noauth mode) nothing is checked and routes build Heat's noauth context.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hotplate.api.context import Authenticator, token_context
from hotplate.api.faults import HTTPError

READ_METHODS = frozenset({"GET", "HEAD"})


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
    # Heat's rule: an admin is exempt from the URL check, and acts in its own project.
    acting = project if role == "admin" else str(project_id)
    request.state.context = token_context(project, role, acting)
