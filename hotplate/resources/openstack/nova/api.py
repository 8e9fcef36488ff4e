"""Nova's REST API as the Nova types call it, with the errors Heat shows.

Requests go over the wire as Nova's own JSON documents, through the cloud's
compute proxy and ``Cloud.call`` (transient failures retried, errors
classified), with a compute microversion: the newest the cloud offers, capped
at ``MAX_MICROVERSION``, the newest Heat 27.0.1's novaclient speaks (Heat
asks for no more than that either). A type checks a feature against it as
Heat does (``supports("2.52")``).

A failure reads as Heat prints novaclient's: the class named after the
status (``BadRequest``, ``Conflict``, ``NotFound``, ``Forbidden``,
``OverLimit``...) and the text ``<Nova's message> (HTTP <status>)`` with
``(Request-ID: req-...)`` when Nova sent one. The class also derives from the
client layer's classification (``CloudNotFound``, ``CloudConflict``...), so
callers test the kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.openstack.cloud_errors import error_class
from hotplate.resources.openstack.versioned_api import VersionedApi, version_tuple

__all__ = ["MAX_MICROVERSION", "NovaApi", "nova_error", "version_tuple"]

MAX_MICROVERSION = "2.96"
"""novaclient 18's API_MAX_VERSION, which bounds the microversion Heat 27.0.1 uses."""

_BY_STATUS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              405: "MethodNotAllowed", 406: "NotAcceptable", 409: "Conflict",
              413: "OverLimit", 429: "RateLimit", 501: "HTTPNotImplemented"}
"""novaclient's exception class for each status (others: ClientException)."""

def nova_error(classified: Exception, message: str, request_id: str | None = None) -> Exception:
    """``classified`` renamed as novaclient names it, with its text."""
    status = getattr(classified, "status", None)
    name = _BY_STATUS.get(status or 0, "ClientException")
    text = f"{message} (HTTP {status})" if status else message
    if request_id:
        text += f" (Request-ID: {request_id})"
    error: Exception = error_class(name, type(classified), __name__)(text, status)
    return error


def _renamed(exc: Exception) -> Exception:
    response = getattr(exc.__cause__, "response", None)
    message = ""
    try:
        body = response.json() if response is not None else None
    except ValueError:
        body = None
    if isinstance(body, Mapping):
        for value in body.values():  # {"badRequest": {"message": ..., "code": 400}}
            if isinstance(value, Mapping) and value.get("message"):
                message = str(value["message"])
                break
    request_id = None
    if response is not None:
        request_id = (response.headers.get("x-openstack-request-id")
                      or response.headers.get("x-compute-request-id"))
    return nova_error(exc, message or str(exc), request_id)


class NovaApi(VersionedApi):
    """Nova's resources as JSON documents, through a ``Cloud``."""

    proxy = "compute"
    floor = "2.1"
    ceiling = MAX_MICROVERSION

    def renamed(self, exc: Exception) -> Exception:
        return _renamed(exc)

    # -- servers ----------------------------------------------------------------------
    def server(self, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.get(f"/servers/{ident}")["server"]
        return found

    def action(self, ident: str, body: Mapping[str, Any]) -> Any:
        return self.post(f"/servers/{ident}/action", dict(body))
