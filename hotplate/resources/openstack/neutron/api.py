"""Neutron's REST API as the Neutron types call it, with the errors Heat shows.

Bodies go over the wire as Neutron's own ``{"network": {...}}`` documents, as
Heat's neutronclient sends them, so ``value_specs`` (``provider:network_type``
...) pass through untouched, which openstacksdk's typed resources would drop.
Calls go through ``Cloud.call`` (transient failures retried, errors classified).

A failure reads as Heat prints neutronclient's: the class named after Neutron's
error type where neutronclient has one (``NetworkInUseClient``,
``OverQuotaClient``...), else after the status (``BadRequest``, ``Conflict``,
``NotFound``...), and Neutron's message. The class also derives from the client
layer's classification (``CloudConflict``, ``CloudNotFound``...), so callers
test the kind, and the engine's failure text ``<Class>: resources.<name>:
<message>`` reads as Heat's.
"""

from __future__ import annotations

import threading
from typing import Any

from hotplate.resources.openstack.cloud_errors import (
    error_class,
    ignoring,
    is_conflict,
    is_not_found,
)

__all__ = ["TAGS_AT_CREATE", "NeutronApi", "ignoring", "is_conflict", "is_not_found",
           "neutron_error"]

_CLIENT_TYPES = frozenset({
    "NetworkNotFound", "PortNotFound", "NetworkInUse", "PortInUse", "SubnetInUse",
    "IpAddressInUse", "InvalidIpForNetwork", "InvalidIpForSubnet", "OverQuota",
    "IpAddressGenerationFailure", "MacAddressInUse", "HostNotCompatibleWithFixedIps",
    "ExternalIpAddressExhausted", "IpAddressAlreadyAllocated",
})
"""Neutron error types neutronclient raises as ``<type>Client``."""

_EXTENSIONS: dict[str, frozenset[str]] = {}
_KNOWN_LOCK = threading.Lock()
TAGS_AT_CREATE = {"ports": "tag-ports-during-bulk-creation"}
"""The collections whose create body may carry ``tags``, each with the extension that
says so. Neutron 29 has no other: its ``tag-creation`` extension is the multi-tag
``POST /<collection>/<id>/tags``, after the create; a port's ``tags`` are taken by the
ML2 extension driver ``tag_ports_during_bulk_creation`` (and silently dropped without
it, so the extension, not the answer, decides)."""

_BY_STATUS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              409: "Conflict", 413: "OverQuotaClient", 503: "ServiceUnavailable"}


def neutron_error(classified: Exception, error_type: str, message: str) -> Exception:
    """``classified`` (the client layer's error for a failed call) renamed as
    neutronclient names it, with Neutron's message; still an instance of the
    classified kind (CloudNotFound, CloudConflict...), with its ``status``."""
    status = getattr(classified, "status", None)
    if error_type in _CLIENT_TYPES:
        name = f"{error_type}Client"
    else:
        name = _BY_STATUS.get(status or 0, "NeutronClientException")
    error: Exception = error_class(name, type(classified), __name__)(message, status)
    return error


def _renamed(exc: Exception) -> Exception:
    """The classified failure of a Neutron call, named and worded as Heat shows it."""
    response = getattr(exc.__cause__, "response", None)
    error_type, message = "", ""
    try:
        body = response.json() if response is not None else None
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("NeutronError")
        if isinstance(error, dict):
            error_type = str(error.get("type") or "")
            message = str(error.get("message") or "")
        elif isinstance(error, str):
            message = error
    return neutron_error(exc, error_type, message or str(exc))


class NeutronApi:
    """Neutron's resources as JSON documents, through a ``Cloud``."""

    def __init__(self, cloud: Any) -> None:
        self._cloud = cloud

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            CloudError: the client layer's classified failure, renamed as
                neutronclient names it (``neutron_error``).
        """
        def send() -> Any:
            kwargs = {"json": body} if body is not None else {}
            return self._cloud.network.request(path, method, raise_exc=True, **kwargs)

        try:
            response = self._cloud.call(send)
        except Exception as exc:
            if getattr(exc, "status", None) is None:
                raise
            raise _renamed(exc) from exc
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def delete(self, collection: str, ident: str) -> bool:
        """Delete; False when it was already gone (404)."""
        try:
            self.request("DELETE", f"/{collection}/{ident}")
        except Exception as exc:
            if is_not_found(exc):
                return False
            raise
        return True

    def create(self, collection: str, entity: str, body: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = self.request("POST", f"/{collection}", {entity: body})[entity]
        return found

    def show(self, collection: str, entity: str, ident: str) -> dict[str, Any]:
        found: dict[str, Any] = self.request("GET", f"/{collection}/{ident}")[entity]
        return found

    def update(self, collection: str, entity: str, ident: str,
               body: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = self.request("PUT", f"/{collection}/{ident}",
                                             {entity: body})[entity]
        return found

    def find_all(self, collection: str, key: str | None = None,
                 **query: str) -> list[dict[str, Any]]:
        """The objects of ``collection`` matching ``query``; ``key``: the answer's key when
        it is not the collection's name (``policies`` for ``qos/policies``)."""
        from urllib.parse import urlencode

        suffix = f"?{urlencode(query)}" if query else ""
        answer = self.request("GET", f"/{collection}{suffix}")
        found: list[dict[str, Any]] = answer[key or collection.replace("-", "_")]
        return found

    def replace_tags(self, collection: str, ident: str, tags: list[str]) -> None:
        self.request("PUT", f"/{collection}/{ident}/tags", {"tags": list(tags)})

    def tags(self, collection: str, ident: str) -> list[str]:
        """The object's tags as Neutron has them, hotplate's marks included."""
        found: list[str] = self.request("GET", f"/{collection}/{ident}/tags").get("tags", [])
        return found

    def has_extension(self, alias: str) -> bool:
        """Whether the endpoint offers the extension ``alias`` (asked once per endpoint)."""
        endpoint = self._endpoint()
        with _KNOWN_LOCK:
            known = _EXTENSIONS.get(endpoint)
        if known is None:
            listed = self.request("GET", "/extensions").get("extensions", [])
            known = frozenset(str(e.get("alias")) for e in listed)
            with _KNOWN_LOCK:
                _EXTENSIONS[endpoint] = known
        return alias in known

    def _endpoint(self) -> str:
        return str(self._cloud.network.get_endpoint() or "")

    def takes_tags_at_create(self, collection: str) -> bool:
        """Whether a create's body in ``collection`` may carry ``tags`` (``TAGS_AT_CREATE``)."""
        needed = TAGS_AT_CREATE.get(collection)
        return needed is not None and self.has_extension("standard-attr-tag") \
            and self.has_extension(needed)

    def create_marked(self, collection: str, entity: str, body: dict[str, Any],
                      mark: str | None) -> dict[str, Any]:
        """Create, the body's ``tags`` carrying ``mark`` where Neutron takes tags at
        create (``takes_tags_at_create``), else without it."""
        if mark is not None and self.takes_tags_at_create(collection):
            body = {**body, "tags": [*(body.get("tags") or []), mark]}
        return self.create(collection, entity, body)
