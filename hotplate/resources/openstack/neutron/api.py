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

from functools import cache
from typing import Any

from hotplate.cloud.errors import (
    CloudConflict,
    CloudError,
    CloudNotFound,
    CloudOverLimit,
    CloudTransient,
)

__all__ = ["NeutronApi", "neutron_error"]

_CLIENT_TYPES = frozenset({
    "NetworkNotFound", "PortNotFound", "NetworkInUse", "PortInUse", "SubnetInUse",
    "IpAddressInUse", "InvalidIpForNetwork", "InvalidIpForSubnet", "OverQuota",
    "IpAddressGenerationFailure", "MacAddressInUse", "HostNotCompatibleWithFixedIps",
    "ExternalIpAddressExhausted", "IpAddressAlreadyAllocated",
})
"""Neutron error types neutronclient raises as ``<type>Client``."""

_BY_STATUS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              409: "Conflict", 413: "OverQuotaClient", 503: "ServiceUnavailable"}


def _kind(status: int, error_type: str) -> type[CloudError]:
    if status == 404:
        return CloudNotFound
    if error_type == "OverQuota" or status in (413, 429):
        return CloudOverLimit
    if status == 409:
        return CloudConflict
    if status >= 500 and status != 501:
        return CloudTransient
    return CloudError


@cache
def _error_class(name: str, base: type[CloudError]) -> type[CloudError]:
    return type(name, (base,), {"__module__": __name__})


def neutron_error(status: int, error_type: str, message: str) -> CloudError:
    """The error for a Neutron failure answer, named as neutronclient names it."""
    if error_type in _CLIENT_TYPES:
        name = f"{error_type}Client"
    else:
        name = _BY_STATUS.get(status, "NeutronClientException")
    return _error_class(name, _kind(status, error_type))(message, status)


def _failure(response: Any) -> CloudError:
    status = int(response.status_code)
    error_type, message = "", ""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("NeutronError")
        if isinstance(error, dict):
            error_type = str(error.get("type") or "")
            message = str(error.get("message") or "")
        elif isinstance(error, str):
            message = error
    return neutron_error(status, error_type, message or response.text or str(status))


class NeutronApi:
    """Neutron's resources as JSON documents, through a ``Cloud``."""

    def __init__(self, cloud: Any) -> None:
        self._cloud = cloud

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            CloudError: the classified, neutronclient-named failure.
        """
        def send() -> Any:
            kwargs = {"json": body} if body is not None else {}
            response = self._cloud.network.request(path, method, **kwargs)
            if response.status_code >= 400:
                raise _failure(response)
            if response.status_code == 204 or not response.content:
                return None
            return response.json()

        return self._cloud.call(send)

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

    def delete(self, collection: str, ident: str) -> bool:
        """Delete; False when it was already gone (404)."""
        try:
            self.request("DELETE", f"/{collection}/{ident}")
        except CloudNotFound:
            return False
        return True

    def list(self, collection: str, **query: str) -> list[dict[str, Any]]:
        from urllib.parse import urlencode

        suffix = f"?{urlencode(query)}" if query else ""
        answer = self.request("GET", f"/{collection}{suffix}")
        found: list[dict[str, Any]] = answer[collection.replace("-", "_")]
        return found

    def replace_tags(self, collection: str, ident: str, tags: list[str]) -> None:
        self.request("PUT", f"/{collection}/{ident}/tags", {"tags": list(tags)})
