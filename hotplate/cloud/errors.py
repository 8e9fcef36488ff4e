"""What went wrong talking to a cloud, classified as Heat's client plugins classify it.

::

    CloudError                   any failure of a cloud call, the service's text kept
    ├── CloudNotFound            404; a finder's miss (Heat's EntityNotFound texts)
    ├── CloudConflict            409, but not a quota (Neutron's OverQuota is OverLimit)
    ├── CloudOverLimit           413, 429, Neutron's OverQuota
    ├── CloudTransient           5xx (not 501), a refused, reset or timed-out connection:
    │   │                        retried with back-off (``client_retry_limit`` times)
    │   └── CloudUnavailable     the API is not there: a refused, reset or timed-out
    │                            connection, 502, 503, 504. Still so after the client's
    │                            retries, a plugin's action waits for it (parked) up to
    │                            the stack's timeout instead of failing
    ├── EndpointNotFound         the service is not in the catalog for this region and
    │                            interface: "Could not find requested endpoint in
    │                            Service Catalog." (keystoneauth's words, which Heat shows)
    └── PhysicalResourceNameAmbiguity
                                 a name matches several objects (Heat's text)

``classify(exc)`` turns an openstacksdk, keystoneauth or requests exception
into one of these (None: not a cloud error); the class names are the ones
the API maps to statuses, as Heat's are.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hotplate.model.errors import HotplateError

__all__ = ["CloudConflict", "CloudError", "CloudNotFound", "CloudOverLimit", "CloudTransient",
           "CloudUnavailable",
           "ENDPOINT_NOT_FOUND", "EndpointNotFound", "PhysicalResourceNameAmbiguity",
           "classify", "status_of"]

ENDPOINT_NOT_FOUND = "Could not find requested endpoint in Service Catalog."


class CloudError(HotplateError):
    """A cloud call failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class CloudNotFound(CloudError):
    pass


class CloudConflict(CloudError):
    pass


class CloudOverLimit(CloudError):
    pass


class CloudTransient(CloudError):
    pass


class CloudUnavailable(CloudTransient):
    """The API did not answer, or its proxy said it is away: a 500 is a failure of the
    request, this one of the service, which comes back (engine/worker/cloud_waits.py)."""


UNAVAILABLE_STATUSES = frozenset({502, 503, 504})
"""Bad gateway, service unavailable, gateway timeout: the API is away, not wrong."""


class EndpointNotFound(CloudError):
    def __init__(self, message: str = ENDPOINT_NOT_FOUND) -> None:
        super().__init__(message)


class PhysicalResourceNameAmbiguity(CloudError):
    def __init__(self, name: str) -> None:
        super().__init__(f"Multiple physical resources were found with name ({name}).")
        self.name = name


@cache
def _library_errors() -> tuple[Any, ...]:
    """The libraries' exception classes, imported when a cloud is first used (the SDK
    takes most of a second to import; an engine that never meets a cloud never pays)."""
    import requests
    from keystoneauth1 import exceptions as ks_exc
    from openstack import exceptions as sdk_exc

    transient = (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                 ks_exc.RetriableConnectionFailure, requests.ConnectionError, requests.Timeout)
    no_endpoint = (ks_exc.EndpointNotFound, ks_exc.EmptyCatalog,
                   sdk_exc.ServiceDisabledException, sdk_exc.ServiceDiscoveryException)
    not_found = (sdk_exc.ResourceNotFound, sdk_exc.NotFoundException)
    cloud = (sdk_exc.SDKException, ks_exc.ClientException)
    return transient, no_endpoint, not_found, cloud


def status_of(exc: BaseException) -> int | None:
    for name in ("status_code", "http_status", "code"):
        value: Any = getattr(exc, name, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def _is_over_quota(exc: BaseException) -> bool:
    details = getattr(exc, "details", None) or ""
    return "OverQuota" in str(details) or "OverQuota" in str(exc)


def classify(exc: BaseException) -> CloudError | None:
    """The classified error for ``exc`` (its message kept), or None if it is not a cloud's."""
    if isinstance(exc, CloudError):
        return exc
    transient, no_endpoint, not_found, cloud = _library_errors()
    if isinstance(exc, no_endpoint):
        return EndpointNotFound()
    if isinstance(exc, transient):
        return CloudUnavailable(str(exc))
    if not isinstance(exc, cloud):
        return None
    status = status_of(exc)
    message = str(exc)
    if isinstance(exc, not_found) or status == 404:
        return CloudNotFound(message, 404)
    if status == 409:
        if _is_over_quota(exc):
            return CloudOverLimit(message, status)
        return CloudConflict(message, status)
    if status in (413, 429):
        return CloudOverLimit(message, status)
    if status in UNAVAILABLE_STATUSES:
        return CloudUnavailable(message, status)
    if status is not None and status >= 500 and status != 501:
        return CloudTransient(message, status)
    return CloudError(message, status)
