"""Glance's v2 API as the Glance types call it, with the errors Heat shows.

Requests go through the cloud's image proxy and ``Cloud.call`` (transient
failures retried, errors classified). A failure reads as Heat prints
glanceclient's: the class named after the status (``HTTPNotFound``,
``HTTPForbidden``, ``HTTPConflict``...) and the text ``<details> (HTTP
<status>)``, where the details are Glance's page with its markup taken out,
line by line, repeated lines dropped and the rest joined by ``": "``
(``404 Not Found: No image found with ID ...``), or the ``message`` of a JSON
answer. The class also derives from the client layer's classification.
"""

from __future__ import annotations

import re
from typing import Any

from hotplate.resources.openstack.cloud_errors import error_class, is_not_found

__all__ = ["GlanceApi", "glance_details", "glance_error"]

_BY_STATUS = {400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden",
              404: "HTTPNotFound", 405: "HTTPMethodNotAllowed", 409: "HTTPConflict",
              413: "HTTPOverLimit", 415: "HTTPUnsupported", 500: "HTTPInternalServerError",
              501: "HTTPNotImplemented", 502: "HTTPBadGateway", 503: "HTTPServiceUnavailable"}
"""glanceclient's exception class for each status (others: HTTPException)."""
_TAG = re.compile(r"<.+?>")
PATCH_TYPE = "application/openstack-images-v2.1-json-patch"


def glance_details(content_type: str, text: str, body: Any = None) -> str:
    """glanceclient's reading of an error answer."""
    if "json" in content_type and isinstance(body, dict):
        messages = [v.get("message") for v in body.values() if isinstance(v, dict)]
        return "\n".join(str(m) for m in messages if m is not None)
    if "html" in content_type:
        lines = [_TAG.sub("", line.strip()) for line in text.splitlines()]
        return ": ".join(dict.fromkeys(line for line in lines if line))
    return text.replace("\n\n", "\n")


def glance_error(classified: Exception, details: str) -> Exception:
    status = getattr(classified, "status", None)
    name = _BY_STATUS.get(status or 0, "HTTPException")
    error: Exception = error_class(name, type(classified), __name__)(
        f"{details or name} (HTTP {status if status else 'N/A'})", status)
    return error


def _renamed(exc: Exception) -> Exception:
    response = getattr(exc.__cause__, "response", None)
    if response is None:
        return glance_error(exc, str(exc))
    content_type = str(response.headers.get("content-type") or "")
    try:
        body = response.json() if "json" in content_type else None
    except ValueError:
        body = None
    return glance_error(exc, glance_details(content_type, response.text, body))


class GlanceApi:
    """Glance's images as JSON documents, through a ``Cloud``."""

    def __init__(self, cloud: Any) -> None:
        self._cloud = cloud

    def request(self, method: str, path: str, body: Any = None, *,
                content_type: str | None = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            CloudError: the classified failure, renamed as glanceclient names it.
        """
        def send() -> Any:
            kwargs: dict[str, Any] = {"json": body} if body is not None else {}
            if content_type:
                kwargs["headers"] = {"Content-Type": content_type}
            return self._cloud.image.request(path, method, raise_exc=True, **kwargs)

        try:
            response = self._cloud.call(send)
        except Exception as exc:
            if getattr(exc, "status", None) is None:
                raise
            raise _renamed(exc) from exc
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def image(self, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/images/{ident}")
        return found

    def patch(self, ident: str, operations: list[dict[str, Any]]) -> None:
        if operations:
            self.request("PATCH", f"/images/{ident}", operations, content_type=PATCH_TYPE)

    def delete(self, path: str) -> bool:
        """Delete; False when it was already gone (404)."""
        try:
            self.request("DELETE", path)
        except Exception as exc:
            if is_not_found(exc):
                return False
            raise
        return True
