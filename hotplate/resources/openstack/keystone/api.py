"""Keystone's v3 API as the Keystone types call it, with the errors Heat shows.

Requests go as Keystone's own JSON documents (``{"user": {...}}``) through the
cloud's identity proxy (the stack's trust, the catalog's identity endpoint) and
``Cloud.call`` (transient failures retried, errors classified), as the client
layer's own Keystone calls (``hotplate.cloud.keystone_calls``) go for trusts.

A failure reads as Heat prints keystoneclient's, which are keystoneauth's: the
class named after the status (``BadRequest``, ``Forbidden``, ``NotFound``,
``Conflict``...) and the text ``<Keystone's message> (HTTP <status>)
(Request-ID: req-...)``, which keystoneauth already wrote. The class also
derives from the client layer's classification (``CloudNotFound``...), so
callers test the kind (``cloud_errors.is_not_found``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from hotplate.resources.openstack.cloud_errors import error_class, is_not_found

__all__ = ["KeystoneApi", "keystone_error", "quoted"]

_BY_STATUS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              405: "MethodNotAllowed", 409: "Conflict", 413: "RequestEntityTooLarge",
              429: "TooManyRequests", 501: "HttpNotImplemented"}
"""keystoneauth's exception class for each status (others: ``HttpError``)."""


def keystone_error(classified: Exception) -> Exception:
    """``classified`` renamed as keystoneauth names it; its text is keystoneauth's own."""
    status = getattr(classified, "status", None)
    name = _BY_STATUS.get(status or 0, "HttpError")
    error: Exception = error_class(name, type(classified), __name__)(str(classified), status)
    return error


def quoted(ident: str) -> str:
    """An id as a path segment (a region id may hold any character)."""
    return quote(str(ident), safe="")


class KeystoneApi:
    """Keystone's v3 resources as JSON documents, through a ``Cloud``."""

    def __init__(self, cloud: Any) -> None:
        self._cloud = cloud

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            CloudError: the classified failure, renamed as keystoneauth names it.
        """
        def send() -> Any:
            kwargs = {"json": body} if body is not None else {}
            return self._cloud.identity.request(path, method, raise_exc=True, **kwargs)

        try:
            response = self._cloud.call(send)
        except Exception as exc:
            if getattr(exc, "status", None) is None:
                raise
            raise keystone_error(exc) from exc
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def show(self, collection: str, entity: str, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/{collection}/{quoted(ident)}")[entity]
        return found

    def create(self, collection: str, entity: str, body: dict[str, Any]) -> dict[str, Any]:
        made: dict[str, Any] = self.request("POST", f"/{collection}", {entity: body})[entity]
        return made

    def update(self, collection: str, entity: str, ident: str,
               body: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = self.request("PATCH", f"/{collection}/{quoted(ident)}",
                                             {entity: body})[entity]
        return found

    def listing(self, collection: str, **query: str) -> list[dict[str, Any]]:
        suffix = f"?{urlencode(query)}" if query else ""
        found: list[dict[str, Any]] = self.request(
            "GET", f"/{collection}{suffix}")[collection.replace("/", "_")]
        return found

    def put(self, path: str) -> None:
        self.request("PUT", path)

    def delete(self, path: str) -> bool:
        """Delete; False when it was already gone (404)."""
        try:
            self.request("DELETE", path)
        except Exception as exc:
            if is_not_found(exc):
                return False
            raise
        return True
