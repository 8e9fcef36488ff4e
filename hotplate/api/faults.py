"""One fault wrapper: every error becomes Heat's fault body.

::

    {"code": 404, "title": "Not Found", "explanation": "The resource could not be found.",
     "error": {"type": "EntityNotFound", "message": "...", "traceback": null}}

An exception's class name is looked up in Heat's map first, then the names
of its base classes; nothing found means 500, and then the message is
omitted (an unexpected error's text is not for users). Errors the engine
raised that are not ours arrive as RemoteError and are mapped by the remote
class name, as heat-api does with oslo.messaging's remote errors. A broker
this API process cannot reach is a 503 with ``Retry-After`` (rpc/watched.py).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match

from hotplate.api.responses import JSONResponse
from hotplate.api.versions import versions_response, wrong_version
from hotplate.model.errors import HotplateError
from hotplate.rpc.errors import BrokerUnavailable, MessagingTimeout, RemoteError, RpcError

LOG = logging.getLogger(__name__)

STATUS_BY_NAME: dict[str, int] = {
    **dict.fromkeys((
        "StackValidationFailed", "Invalid", "InvalidSchemaError", "InvalidTemplateReference",
        "InvalidTemplateVersion", "InvalidTemplateSection", "InvalidBreakPointHook",
        "UserParameterMissing", "UnknownUserParameter", "ImmutableParameterModified",
        "CircularDependencyException", "NotSupported", "ResourceActionNotSupported",
        "ResourceTypeUnavailable", "ResourcePropertyConflict", "PropertyUnspecifiedError",
        "PhysicalResourceNameAmbiguity", "PhysicalResourceIDAmbiguity",
        "MissingCredentialError", "RequestLimitExceeded", "DownloadLimitExceeded",
        "ValueError", "AttributeError", "ObjectFieldInvalid", "ReadOnlyFieldError",
        "ObjectActionError", "IncompatibleObjectVersion", "OrphanedObjectError",
        "UnsupportedObjectError",
    ), 400),
    "Forbidden": 403,
    "InvalidTenant": 403,
    "EntityNotFound": 404,
    "ResourceNotFound": 404,
    "SnapshotNotFound": 404,
    "NotFound": 404,
    "ResourceNotAvailable": 404,
    "StackExists": 409,
    "ActionInProgress": 409,
    "InvalidRestrictedAction": 409,
    "RequestInProgress": 409,
    "RequestIdReused": 422,
}

# (reason phrase, webob's explanation) per status.
_STATUS_TEXT: dict[int, tuple[str, str]] = {
    400: ("Bad Request", "The server could not comply with the request since it is either "
          "malformed or otherwise incorrect."),
    401: ("Unauthorized", "This server could not verify that you are authorized to access "
          "the document you requested. Either you supplied the wrong credentials (e.g., bad "
          "password), or your browser does not understand how to supply the credentials "
          "required."),
    403: ("Forbidden", "Access was denied to this resource."),
    404: ("Not Found", "The resource could not be found."),
    405: ("Method Not Allowed", "The method specified is not allowed for this resource."),
    409: ("Conflict", "There was a conflict when trying to complete your request."),
    413: ("Request Entity Too Large", "The body of your request was too large for this "
          "server."),
    422: ("Unprocessable Entity", "Unable to process the contained instructions"),
    500: ("Internal Server Error", "The server has either erred or is incapable of "
          "performing the requested operation."),
    503: ("Service Unavailable", "The server is currently unavailable. Please try again at "
          "a later time."),
}

# Heat's API-layer errors are webob's HTTP classes; their names are what clients see.
_HTTP_CLASS = {400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden",
               404: "HTTPNotFound", 405: "HTTPMethodNotAllowed", 409: "HTTPConflict",
               422: "HTTPUnprocessableEntity",
               500: "HTTPInternalServerError"}

ALLOW_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")


class HTTPError(Exception):
    """An error raised by the API layer itself (Heat's webob ``HTTPBadRequest`` & co)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None, *,
                 error_type: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.error_type = error_type


class PassedOn(Exception):
    """An answer made in front of the API (keystonemiddleware's 401 or 503), sent as it is."""

    def __init__(self, status: int, headers: tuple[tuple[str, str], ...], body: bytes) -> None:
        super().__init__(status)
        self.status = status
        self.headers = headers
        self.body = body


def bad_request(message: str) -> HTTPError:
    return HTTPError(400, message)


def fault_response(status: int, error_type: str, message: str | None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    title, explanation = _STATUS_TEXT.get(status, ("Error", ""))
    error: dict[str, Any] = {"type": error_type}
    if message is not None:
        error["message"] = message
    error["traceback"] = None
    body = {"code": status, "title": title, "explanation": explanation, "error": error}
    return JSONResponse(body, status_code=status, headers=headers)


def status_for(exc: BaseException) -> tuple[int, str, str | None]:
    """(status, error type, message or None) for any exception, by Heat's map."""
    if isinstance(exc, RemoteError):
        status = STATUS_BY_NAME.get(exc.exc_type, 500)
        return status, exc.exc_type, exc.message if status != 500 else None
    if isinstance(exc, MessagingTimeout):
        # Nothing internal to hide, and the one thing an operator needs to know.
        return 500, "MessagingTimeout", ("Timed out waiting for a reply from an engine: "
                                         "is any engine running?")
    for klass in type(exc).__mro__:
        mapped = STATUS_BY_NAME.get(klass.__name__)
        if mapped is not None:
            return mapped, type(exc).__name__, str(exc)
    return 500, type(exc).__name__, None


def allowed_methods(request: Request) -> list[str]:
    """The methods some route serves at this path, in Heat's registration order."""
    routes = request.app.router.routes
    return [m for m in ALLOW_ORDER
            if any(r.matches({**request.scope, "method": m})[0] is Match.FULL for r in routes)]


async def _handle_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    error_type = exc.error_type or _HTTP_CLASS.get(exc.status, "HTTPError")
    return fault_response(exc.status, error_type, exc.message, exc.headers)


async def _handle_passed_on(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PassedOn)
    skip = {"content-length"}
    headers = {k: v for k, v in exc.headers if k.lower() not in skip}
    return Response(exc.body, status_code=exc.status, headers=headers)


async def _handle_starlette(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        allow = ",".join(allowed_methods(request))
        if request.method == "OPTIONS":
            return Response(status_code=204, headers={"Allow": allow})
        return fault_response(405, "HTTPMethodNotAllowed",
                              "The method specified is not allowed for this resource.",
                              {"Allow": allow})
    if exc.status_code == 404:
        if wrong_version(request):
            return versions_response(request)
        return fault_response(404, "HTTPNotFound", "The resource could not be found.")
    status = exc.status_code
    return fault_response(status, _HTTP_CLASS.get(status, "HTTPError"), str(exc.detail))


async def _handle_validation(request: Request, exc: Exception) -> Response:
    return fault_response(400, "HTTPBadRequest", str(exc))


async def _handle_unavailable(request: Request, exc: Exception) -> Response:
    """The broker is unreachable: Heat's fault body, 503, and when to try again."""
    assert isinstance(exc, BrokerUnavailable)
    return fault_response(503, "HTTPServiceUnavailable", str(exc),
                          {"Retry-After": str(exc.retry_after)})


async def _handle_any(request: Request, exc: Exception) -> Response:
    status, error_type, message = status_for(exc)
    if status == 500:
        LOG.exception("unexpected error serving %s %s", request.method, request.url.path)
    # A repeated request whose first asking still runs: when to ask again (idempotency.py).
    headers = {"Retry-After": "3"} if error_type == "RequestInProgress" else None
    return fault_response(status, error_type, message, headers)


def install(app: Any) -> None:
    """Route every error of ``app`` through the fault wrapper."""
    app.add_exception_handler(HTTPError, _handle_http_error)
    app.add_exception_handler(PassedOn, _handle_passed_on)
    app.add_exception_handler(StarletteHTTPException, _handle_starlette)
    app.add_exception_handler(RequestValidationError, _handle_validation)
    app.add_exception_handler(BrokerUnavailable, _handle_unavailable)
    # Expected errors are answered here; anything else is a 500, logged with its traceback.
    for klass in (HotplateError, RpcError, ValueError, AttributeError, Exception):
        app.add_exception_handler(klass, _handle_any)
