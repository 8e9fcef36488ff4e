"""How the engine reaches a cloud, from heat.conf's names, as plain values.

``[clients]`` holds the defaults of every service client and
``[clients_<client>]`` (``clients_nova``, ``clients_neutron``...) overrides
them for one, option by option, as Heat's ``get_client_option`` reads them:
``endpoint_type`` (the catalog interface: ``public``, ``internal``, ``admin``;
Heat's ``publicURL`` forms too), ``ca_file``, ``cert_file``, ``key_file`` and
``insecure``. ``[DEFAULT] region_name_for_services`` is the region when the
request names none, ``client_retry_limit`` how many times a transient error
(a 5xx, a dropped connection) is retried. ``[trustee]`` is the user that acts
through the trusts stacks hold (Heat's: a password user scoped by the trust),
``[clients_keystone] auth_uri`` Keystone's URL when a request does not carry it.

Deferred authentication (``DeferredAuth``): ``deferred_auth_method = trusts``
(Heat's default) gives every stack made with a Keystone token a trust from its
caller to the trustee; ``trusts_delegated_roles`` names the roles it delegates
(empty: the caller's). The stack domain (``StackDomain``): where stack users,
their EC2 keys and their projects live (``stack_user_domain_id`` or
``_name``, administered by ``stack_domain_admin``), with the role
``heat_stack_user_role``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HEAT_CLIENTS", "ClientOptions", "CloudSettings", "DeferredAuth", "StackDomain",
           "TrusteeSettings"]

HEAT_CLIENTS = ("aodh", "barbican", "cinder", "designate", "glance", "heat", "keystone",
                "magnum", "manila", "mistral", "neutron", "nova", "octavia", "swift", "trove",
                "zaqar")
"""The clients Heat has a ``[clients_<client>]`` section for."""

_INTERFACES = {"publicURL": "public", "internalURL": "internal", "adminURL": "admin"}


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """One ``[clients_<client>]`` section (None: unset, ``[clients]`` decides), or
    ``[clients]`` itself."""

    endpoint_type: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure: bool | None = None


DEFAULT_CLIENT = ClientOptions(endpoint_type="public", insecure=False)


@dataclass(frozen=True, slots=True)
class TrusteeSettings:
    """``[trustee]``: who acts for a stack's owner through the trust the stack holds."""

    auth_url: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    user_domain_id: str | None = None
    user_domain_name: str | None = None
    auth_type: str = "password"

    @property
    def configured(self) -> bool:
        return bool(self.auth_url and self.username and self.password)


@dataclass(frozen=True, slots=True)
class DeferredAuth:
    """How work after a request acts for the stack's owner (Heat's options)."""

    method: str = "trusts"
    """``deferred_auth_method``: ``trusts`` (a trust per root stack) or ``password``
    (deprecated in Heat; here: no trust is made)."""
    delegated_roles: tuple[str, ...] = ()
    """``trusts_delegated_roles``: the roles the trust delegates; empty: the caller's."""
    reauthentication_method: str = ""
    """``reauthentication_auth_method``: ``trusts`` also lets the trustee redelegate
    the trust when ``allow_trusts_redelegation`` is set."""
    allow_redelegation: bool = False
    """``allow_trusts_redelegation``."""

    @property
    def trusts(self) -> bool:
        return self.method == "trusts"

    @property
    def redelegation(self) -> bool:
        return self.reauthentication_method == "trusts" and self.allow_redelegation


@dataclass(frozen=True, slots=True)
class StackDomain:
    """The Keystone domain of stack users (``stack_user_domain_*``) and its admin."""

    domain_id: str | None = None
    domain_name: str | None = None
    admin: str | None = None
    admin_password: str | None = field(default=None, repr=False)
    user_role: str = "heat_stack_user"
    """``heat_stack_user_role``: the role every stack user holds in its project."""

    @property
    def configured(self) -> bool:
        return bool(self.domain_id or self.domain_name)


@dataclass(frozen=True, slots=True)
class CloudSettings:
    region_name_for_services: str | None = None
    client_retry_limit: int = 2
    clients: ClientOptions = DEFAULT_CLIENT
    """``[clients]``: every client's defaults."""
    per_client: Mapping[str, ClientOptions] = field(default_factory=dict)
    """``[clients_<client>]`` sections, by client name."""
    keystone_url: str | None = None
    """``[clients_keystone] auth_uri``: Keystone, when a request does not say."""
    trustee: TrusteeSettings = TrusteeSettings()
    deferred_auth: DeferredAuth = DeferredAuth()
    stack_domain: StackDomain = StackDomain()
    finder_cache_ttl: float | None = None
    """Seconds an id found by name is kept (``[resource_finder_cache] expiration_time``
    when ``[cache] enabled`` and ``[resource_finder_cache] caching``); None: not kept,
    Heat's default."""

    def option(self, client: str, name: str) -> Any:
        """``[clients_<client>] name`` if set, else ``[clients] name`` (Heat's lookup)."""
        own = self.per_client.get(client)
        value = getattr(own, name) if own is not None else None
        return value if value is not None else getattr(self.clients, name)

    def interface(self, client: str) -> str:
        """The catalog interface for ``client``'s endpoints (``publicURL`` -> ``public``)."""
        kind = str(self.option(client, "endpoint_type") or "public")
        return _INTERFACES.get(kind, kind)

    def verify(self, client: str) -> bool | str:
        """requests' ``verify``: False when insecure, else the CA file or True."""
        if self.option(client, "insecure"):
            return False
        ca_file: str | None = self.option(client, "ca_file")
        return ca_file or True

    def cert(self, client: str) -> tuple[str, str] | str | None:
        cert, key = self.option(client, "cert_file"), self.option(client, "key_file")
        if cert and key:
            return (cert, key)
        return cert or None
