"""A service's REST API spoken at one microversion: what Nova's and Cinder's share.

Requests go over the wire as the service's own JSON documents, through one of the
cloud's proxies and ``Cloud.call`` (transient failures retried, errors
classified), at the newest microversion the endpoint offers, capped at the
newest Heat 27.0.1's client for the service speaks: asked once per endpoint and
kept. A type checks a feature as Heat does (``supports("2.52")``). Each service
names its failures as its client does (``renamed``).
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar
from urllib.parse import urlencode

from hotplate.resources.openstack.cloud_errors import is_not_found

__all__ = ["VersionedApi", "version_tuple"]

_VERSIONS: dict[tuple[str, str], str] = {}
_VERSIONS_LOCK = threading.Lock()


def version_tuple(version: str) -> tuple[int, int]:
    major, _, minor = str(version).partition(".")
    return int(major), int(minor or 0)


class VersionedApi:
    """One service's resources as JSON documents, through a ``Cloud``."""

    proxy: ClassVar[str]
    """The ``Cloud``'s proxy for the service (``compute``, ``block_storage``)."""
    floor: ClassVar[str]
    """The microversion of an endpoint that names none."""
    ceiling: ClassVar[str]
    """The newest microversion Heat 27.0.1's client for the service speaks."""

    def __init__(self, cloud: Any) -> None:
        self._cloud = cloud

    def renamed(self, exc: Exception) -> Exception:
        """A classified failure named and worded as the service's client does."""
        raise NotImplementedError

    @property
    def microversion(self) -> str:
        """The microversion every request asks for (found once per endpoint)."""
        proxy = getattr(self._cloud, self.proxy)
        key = (self.proxy, str(proxy.get_endpoint() or ""))
        with _VERSIONS_LOCK:
            known = _VERSIONS.get(key)
        if known is None:
            data = self._cloud.call(proxy.get_endpoint_data)
            offered = getattr(data, "max_microversion", None)
            found = f"{offered[0]}.{offered[1]}" if offered else self.floor
            known = min(found, self.ceiling, key=version_tuple)
            with _VERSIONS_LOCK:
                _VERSIONS[key] = known
        return known

    def supports(self, version: str) -> bool:
        """Heat's ``is_version_supported``."""
        return version_tuple(self.microversion) >= version_tuple(version)

    def request(self, method: str, path: str, body: Any = None, *,
                microversion: str | None = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            CloudError: the classified failure, renamed as the service's client names it.
        """
        version = microversion or self.microversion
        proxy = getattr(self._cloud, self.proxy)

        def send() -> Any:
            kwargs: dict[str, Any] = {"json": body} if body is not None else {}
            return proxy.request(path, method, raise_exc=True, microversion=version,
                                 **kwargs)

        try:
            response = self._cloud.call(send)
        except Exception as exc:
            if getattr(exc, "status", None) is None:
                raise
            raise self.renamed(exc) from exc
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def get(self, path: str, **query: Any) -> Any:
        suffix = f"?{urlencode(query)}" if query else ""
        return self.request("GET", f"{path}{suffix}")

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, body)

    def put(self, path: str, body: Any) -> Any:
        return self.request("PUT", path, body)

    def delete(self, path: str) -> bool:
        """Delete; False when it was already gone (404)."""
        try:
            self.request("DELETE", path)
        except Exception as exc:
            if is_not_found(exc):
                return False
            raise
        return True
