"""The web view's routes under ``/ui``: the page, its files, the session, the live stream.

``/ui`` is a Starlette app of its own, reached through ``UiGate`` (headers.py)
before FastAPI routes anything, so ``/v1`` neither pays for it nor sees it.
What the page calls is written in the README ("Web view").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from hotplate.api import policy, views
from hotplate.api.responses import JSONResponse
from hotplate.model.errors import EntityNotFound
from hotplate.ui import event_stream, login
from hotplate.ui.session import (
    COOKIE,
    CSRF_HEADER,
    DEFAULT_LIFETIME,
    Session,
    SessionCodec,
    clearing_cookie_header,
    cookie_header,
    derive_key,
    new_csrf,
)
from hotplate.ui.static_files import STATIC_DIR, index_response, static_response

MAX_LOGIN_BODY = 16 * 1024
MAX_NESTED_DEPTH = 10


@dataclass
class UiOptions:
    """How the web view is served: on or off, the session key, the files.

    The default codec's key is this app's own (tests, embedding); the commands
    pass one made from the configuration (``SessionCodec.from_settings``).
    """

    enabled: bool = True
    codec: SessionCodec = field(
        default_factory=lambda: SessionCodec(derive_key(new_csrf() + new_csrf())))
    lifetime: int = DEFAULT_LIFETIME
    """Seconds a session lasts at most ([ui] session_lifetime); less when its token
    expires sooner."""
    static_dir: Path = STATIC_DIR


def build(api_state: Any, options: UiOptions) -> Starlette:
    """The ``/ui`` app over the API app's state (its ``rpc`` and ``auth``)."""
    app = Starlette(routes=[
        Route("/ui", _index, methods=["GET", "HEAD"]),
        Route("/ui/", _index, methods=["GET", "HEAD"]),
        Route("/ui/static/{name:path}", _static, methods=["GET", "HEAD"]),
        Route("/ui/session", _show_session, methods=["GET"]),
        Route("/ui/session", _login, methods=["POST"]),
        Route("/ui/session", _logout, methods=["DELETE"]),
        Route("/ui/stream/{project_id}/stacks/{stack_id}", _stream, methods=["GET"]),
        Route("/ui/stream/{project_id}/stacks/{stack_id}/resources", _stream_resources,
              methods=["GET"]),
    ])
    app.state.api = api_state
    app.state.options = options
    app.state.streams = event_stream.StreamHub()
    return app


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _options(request: Request) -> UiOptions:
    options: UiOptions = request.app.state.options
    return options


async def _index(request: Request) -> Response:
    return index_response(_options(request).static_dir)


async def _static(request: Request) -> Response:
    return static_response(_options(request).static_dir, request.path_params["name"])


# -- session ---------------------------------------------------------------
async def _current(request: Request) -> tuple[Session | None, login.Identity | None]:
    """The cookie's session (None: none, or refused) and who it is now (None: its
    token is no longer accepted)."""
    auth = request.app.state.api.auth
    session = _options(request).codec.open(request.cookies.get(COOKIE))
    if login.mode_of(auth) == login.NOAUTH:
        return session, login.noauth_identity()
    if session is None or not session.token:
        return session, None
    return session, await login.identify(auth, session.token, request.headers)


async def _signed_in(request: Request) -> tuple[Session | None, login.Identity] | Response:
    """``_current`` for a route that needs someone signed in: the refusal otherwise
    (503 when Keystone cannot be asked, 401 without a session that still holds)."""
    try:
        session, identity = await _current(request)
    except login.LoginUnavailable as exc:
        return _error(503, str(exc))
    if identity is None:  # the login page offers the form this server takes
        return JSONResponse({"error": "No session: log in.", "auth": _shown_mode(request)},
                            status_code=401)
    return session, identity


def _session_body(request: Request, session: Session, identity: login.Identity) -> dict[str, Any]:
    expires = session.expires_at
    return {"user": identity.user, "project_id": identity.project_id,
            "roles": list(identity.roles), "can_apply": identity.can_apply,
            "csrf_token": session.csrf, "auth": _shown_mode(request),
            "expires_at": (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires))
                           if expires is not None else None)}


def _shown_mode(request: Request) -> str:
    mode = login.mode_of(request.app.state.api.auth)
    return login.KEYSTONE if mode == login.HEADERS else mode


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _with_cookie(request: Request, body: dict[str, Any], session: Session) -> JSONResponse:
    value = _options(request).codec.seal(session)
    response = JSONResponse(body)
    response.headers["set-cookie"] = cookie_header(value, max_age=session.max_age(),
                                                   secure=_secure(request))
    return response


async def _show_session(request: Request) -> Response:
    found = await _signed_in(request)
    if isinstance(found, Response):
        return found
    session, identity = found
    if session is None:  # noauth: a session carrying only the csrf value
        session = Session(token=None, expires_at=None, csrf=new_csrf())
        return _with_cookie(request, _session_body(request, session, identity), session)
    return JSONResponse(_session_body(request, session, identity))


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


async def _login_body(request: Request) -> dict[str, Any] | Response:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return _error(415, "The body must be JSON (Content-Type: application/json).")
    raw = await request.body()
    if len(raw) > MAX_LOGIN_BODY:
        return _error(413, "The body is too large.")
    try:
        import json

        body = json.loads(raw)
    except ValueError:
        return _error(400, "The body is not valid JSON.")
    if not isinstance(body, dict):
        return _error(400, "The body must be a JSON object.")
    return body


async def _login(request: Request) -> Response:
    if not _same_origin(request):
        return _error(403, "Cross-origin login refused.")
    body = await _login_body(request)
    if isinstance(body, Response):
        return body
    auth = request.app.state.api.auth
    mode = login.mode_of(auth)
    try:
        identity, token = await _log_in(request, auth, mode, body)
    except login.LoginRefused as exc:
        return _error(401, str(exc))
    except login.LoginUnavailable as exc:
        return _error(503, str(exc))
    except ValueError as exc:
        return _error(400, str(exc))
    bound = time.time() + _options(request).lifetime
    ends = bound if identity.expires_at is None else min(bound, identity.expires_at)
    session = Session(token=token, expires_at=None if mode == login.NOAUTH else ends,
                      csrf=new_csrf())
    return _with_cookie(request, _session_body(request, session, identity), session)


async def _log_in(request: Request, auth: Any, mode: str,
                  body: dict[str, Any]) -> tuple[login.Identity, str | None]:
    if mode == login.NOAUTH:
        return login.noauth_identity(), None
    if mode == login.HEADERS:
        raise login.LoginRefused("This API trusts a gateway's identity headers: the web "
                                 "view has no login here.")
    token = body.get("token")
    if token is None and mode == login.KEYSTONE and "username" in body:
        for name in login.PASSWORD_FIELDS:
            if not isinstance(body.get(name), str) or not body[name]:
                raise ValueError(f"'{name}' is required (a string).")
        token = await login.password_token(auth, body)
    if not isinstance(token, str) or not token:
        wanted = "'token', or 'username', 'password' and 'project_name'" if (
            mode == login.KEYSTONE) else "'token'"
        raise ValueError(f"The body must give {wanted}.")
    identity = await login.identify(auth, token, request.headers)
    if identity is None:
        raise login.LoginRefused("The token was refused: unknown, revoked or expired.")
    return identity, token


async def _logout(request: Request) -> Response:
    if not _same_origin(request):
        return _error(403, "Cross-origin request refused.")
    session = _options(request).codec.open(request.cookies.get(COOKIE))
    if session is not None and not session.csrf_matches(request.headers.get(CSRF_HEADER)):
        return _error(403, "CSRF token missing or wrong")
    response = Response(status_code=204)
    response.headers["set-cookie"] = clearing_cookie_header(secure=_secure(request))
    return response


# -- live stream -------------------------------------------------------------
class EventStreamResponse(StreamingResponse):
    """A StreamingResponse that always listens for the client leaving (whatever the
    server's ASGI version), and closes its generator when it does, so the page's
    place in the watcher is given up at once."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stream() -> None:
            with contextlib.suppress(OSError):
                await self.stream_response(send)
            listener.cancel()

        listener = asyncio.ensure_future(self.listen_for_disconnect(receive))
        streamer = asyncio.ensure_future(stream())
        try:
            await asyncio.wait({listener, streamer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (listener, streamer):
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(listener, streamer, return_exceptions=True)
            closing = getattr(self.body_iterator, "aclose", None)
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing()


STREAM_EVENT_KEYS = ("event_time", "resource_name", "resource_status_reason",
                     "physical_resource_id")


def stream_view(event: dict[str, Any]) -> dict[str, Any]:
    """What a page shows of an event (the engine's summary, or the events API's
    event): the events API's fields without its links.

    Every event is sent to every page that watches, so its size is the stream's
    cost: the three links of the API's view would make it three times larger, and
    the page needs none of them (the event's stack is named instead).
    """
    shown: dict[str, Any] = {"id": event["id"]}
    for key in STREAM_EVENT_KEYS:
        if key in event:
            shown[key] = event[key]
    shown["resource_status"] = views.joined_status(event.get("resource_action"),
                                                   event.get("resource_status"))
    owner = event.get("stack_identity") or event  # the events API's, or a summary
    shown["stack_name"] = owner["stack_name"]
    shown["stack_id"] = owner["stack_id"]
    return shown


async def _stream_request(request: Request, rule: str
                          ) -> tuple[login.Identity, str, int] | Response:
    """Who asks, in which project, how deep: else the refusal (no session, another
    project, a policy ``rule`` the session's roles do not pass, a bad depth)."""
    found = await _signed_in(request)
    if isinstance(found, Response):
        return found
    _, identity = found
    project_id = request.path_params["project_id"]
    if not identity.may_act_in(project_id):
        return _error(403, f"Project {project_id} is not the project of the session.")
    if not identity.allows(rule):
        return _error(403, policy.refusal(rule))
    try:
        depth = max(0, min(int(request.query_params.get("nested_depth") or 0), MAX_NESTED_DEPTH))
    except ValueError:
        return _error(400, "nested_depth must be an integer.")
    return identity, project_id, depth


async def _stream_resources(request: Request) -> Response:
    """The resources of a stack a stream follows, as the resources API lists them
    (``nested_depth`` the stream's): one listing for every page that reloads its
    graph at the same point of the stream. 409 when no stream follows the stack
    at that depth (the page reads ``/v1`` then)."""
    asked = await _stream_request(request, "resource:index")
    if isinstance(asked, Response):
        return asked
    _, project_id, depth = asked
    hub: event_stream.StreamHub = request.app.state.streams
    watcher = hub.watcher((project_id, request.path_params["stack_id"], depth))
    if watcher is None:
        return _error(409, "No stream follows this stack: read its resources from the API.")
    links = views.Links(request)

    async def load() -> bytes:
        rows = await watcher.engine("list_stack_resources", stack_identity=watcher.identity,
                                    nested_depth=depth)
        return orjson.dumps({"resources": [views.resource_view(request, row, links_of=links)
                                           for row in rows]})

    try:
        body = await watcher.listing(views.base_url(request), load)
    except EntityNotFound:
        return _error(404, f"No stack {request.path_params['stack_id']}.")
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})


async def _stream(request: Request) -> Response:
    asked = await _stream_request(request, "events:index")
    if isinstance(asked, Response):
        return asked
    identity, project_id, depth = asked
    context = dataclasses.replace(identity.context, request_id=f"req-{uuid.uuid4()}")
    if context.keystone is None:
        context = dataclasses.replace(context, project_id=project_id)
    ctxt = context.to_rpc()
    rpc = request.app.state.api.rpc

    async def call(method: str, **kwargs: Any) -> Any:
        return await run_in_threadpool(rpc.call, ctxt, method, **kwargs)

    stack_id = request.path_params["stack_id"]
    try:
        found = await call("identify_stack", stack_name=stack_id)
    except EntityNotFound:
        return _error(404, f"No stack {stack_id}.")
    if found.get("stack_id") != stack_id:
        return _error(404, f"No stack {stack_id}.")
    hub: event_stream.StreamHub = request.app.state.streams
    last = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
    sub = await hub.subscribe((project_id, stack_id, depth), call, dict(found), stream_view,
                              last)
    session_cookie = request.cookies.get(COOKIE)
    auth = request.app.state.api.auth

    async def still_valid() -> bool:
        if login.mode_of(auth) == login.NOAUTH:
            return True
        session = _options(request).codec.open(session_cookie)
        if session is None or not session.token:
            return False
        with contextlib.suppress(login.LoginUnavailable):
            return await login.identify(auth, session.token, request.headers) is not None
        return True  # Keystone away for a moment: keep the page's stream

    return EventStreamResponse(
        event_stream.frames(hub, sub, still_valid), media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
