"""The client layer: the one place that talks to an OpenStack cloud.

Sessions from keystoneauth (the request's token, or a stack's trust, per
region), an openstacksdk connection per session (``sessions``), one caller's
view of the cloud with its catalog, service proxies, retried and classified
calls (``client.Cloud``), finders by name or id with Heat's errors
(``finders``), the cloud custom constraints (``constraints``) and the error
classes (``errors``). Plugins reach it only through their resource context
(``self.cloud``); the engine decides what sits behind it. Nothing here
imports the engine.
"""

from hotplate.cloud.client import Cloud, Clouds
from hotplate.cloud.credentials import (
    Credentials,
    TokenCredentials,
    TrustCredentials,
    from_context,
)
from hotplate.cloud.errors import (
    CloudConflict,
    CloudError,
    CloudNotFound,
    CloudOverLimit,
    CloudTransient,
    CloudUnavailable,
    EndpointNotFound,
    PhysicalResourceNameAmbiguity,
    classify,
)
from hotplate.cloud.settings import ClientOptions, CloudSettings, TrusteeSettings

__all__ = [
    "ClientOptions",
    "Cloud",
    "CloudConflict",
    "CloudError",
    "CloudNotFound",
    "CloudOverLimit",
    "CloudSettings",
    "CloudTransient",
    "CloudUnavailable",
    "Clouds",
    "Credentials",
    "EndpointNotFound",
    "PhysicalResourceNameAmbiguity",
    "TokenCredentials",
    "TrustCredentials",
    "TrusteeSettings",
    "classify",
    "from_context",
]
