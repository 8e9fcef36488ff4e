"""Cinder's REST API as the Cinder types call it, with the errors Heat shows.

Requests go over the wire as Cinder's own JSON documents (``{"volume": {...}}``),
through the cloud's block-storage proxy and ``Cloud.call`` (transient failures
retried, errors classified), at one volume microversion: the newest the cloud
offers, capped at ``MAX_MICROVERSION``, the newest Heat 27.0.1's cinderclient
speaks (Heat asks for that much). A type checks a feature as Heat does
(``supports("3.42")``: extending an attached volume).

A failure reads as Heat prints cinderclient's: the class named after the
status (``BadRequest``, ``NotFound``, ``Forbidden``, ``OverLimit``...;
``ClientException`` for the others, a 409 among them) and the text
``<Cinder's message> (HTTP <status>) (Request-ID: req-...)``. The class also
derives from the client layer's classification (``CloudNotFound``,
``CloudConflict``...), so callers test the kind (``cloud_errors``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.openstack.cloud_errors import error_class, is_not_found
from hotplate.resources.openstack.versioned_api import VersionedApi, version_tuple

__all__ = ["MAX_MICROVERSION", "CinderApi", "cinder_error", "version_tuple"]

MAX_MICROVERSION = "3.71"
"""python-cinderclient 9's MAX_VERSION, which bounds the microversion Heat 27.0.1 uses."""

_BY_STATUS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              406: "NotAcceptable", 413: "OverLimit", 501: "HTTPNotImplemented"}
"""cinderclient's exception class for each status (others, 409 too: ClientException)."""

def cinder_error(classified: Exception, message: str, request_id: str | None = None,
                 ) -> Exception:
    """``classified`` renamed as cinderclient names it, with its text."""
    status = getattr(classified, "status", None)
    name = _BY_STATUS.get(status or 0, "ClientException")
    text = f"{message} (HTTP {status})" if status and status >= 100 else message
    if request_id:
        text += f" (Request-ID: {request_id})"
    error: Exception = error_class(name, type(classified), __name__)(text, status)
    return error


def _message(response: Any) -> str:
    """cinderclient's reading of an error body: its ``message``, else the first
    member's (``{"badRequest": {"message": ...}}``), else the status's reason."""
    try:
        body = response.json() if response is not None else None
    except ValueError:
        body = None
    if isinstance(body, Mapping) and body:
        if "message" in body:
            return str(body["message"])
        first = next(iter(body.values()))
        if isinstance(first, Mapping):
            return str(first.get("message", "n/a"))
        return "n/a"
    return str(getattr(response, "reason", "") or "")


def _renamed(exc: Exception) -> Exception:
    response = getattr(exc.__cause__, "response", None)
    message = _message(response) if response is not None else ""
    request_id = None
    if response is not None:  # cinderclient reads this header only
        request_id = response.headers.get("x-compute-request-id")
    return cinder_error(exc, message or str(exc), request_id)


class CinderApi(VersionedApi):
    """Cinder's resources as JSON documents, through a ``Cloud``."""

    proxy = "block_storage"
    floor = "3.0"
    ceiling = MAX_MICROVERSION

    def renamed(self, exc: Exception) -> Exception:
        return _renamed(exc)

    # -- volumes ------------------------------------------------------------------------
    def volume(self, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.get(f"/volumes/{ident}")["volume"]
        return found

    def volume_or_none(self, ident: str) -> dict[str, Any] | None:
        """The volume, or None when Cinder no longer has it."""
        try:
            return self.volume(ident)
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def volume_action(self, ident: str, action: str, args: Any) -> Any:
        return self.post(f"/volumes/{ident}/action", {action: args})

    def backup(self, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.get(f"/backups/{ident}")["backup"]
        return found

    def listing(self, collection: str, key: str, **query: Any) -> list[dict[str, Any]]:
        """Every object of ``collection`` (``/volumes/detail``) matching ``query``."""
        found: list[dict[str, Any]] = self.get(collection, **query)[key]
        return found
