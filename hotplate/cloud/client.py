"""``Cloud``: one caller's view of a cloud, the one object plugins and checks talk to.

The engine builds one per request (the caller's token) or per stack (its
trust) through ``Clouds``; a plugin reaches it as ``self.cloud`` /
``ctx.cloud`` and never builds a session itself::

    server = cloud.call(cloud.compute.create_server, name=..., flavor_id=...)
    net_id = cloud.find("network", "private")         # Heat's errors for none/many
    cloud.endpoint_exists("nova", "compute")           # from the token's catalog

``call`` runs an SDK call, retrying transient failures (5xx, dropped
connections) up to ``client_retry_limit`` times with exponential back-off
and jitter, and raises the classified error (``errors``). Service proxies
(``compute``, ``network``, ``image``, ``block_storage``, ``identity``, ...) are
openstacksdk's, on a connection with that service's interface and TLS
settings. With no credentials (the standalone mode) there is no catalog:
no endpoint exists and every service call raises ``EndpointNotFound``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import tenacity

from hotplate.cloud import constraints, finders
from hotplate.cloud.batched_waits import StatusBoard
from hotplate.cloud.credentials import Credentials, TokenCredentials, from_context
from hotplate.cloud.errors import CloudTransient, CloudUnavailable, EndpointNotFound, classify
from hotplate.cloud.finder_cache import FinderCache
from hotplate.cloud.sessions import CloudSessions, SessionEntry, ca_bundle
from hotplate.cloud.settings import CloudSettings

__all__ = ["SERVICE_PROXIES", "Cloud", "Clouds"]

LOG = logging.getLogger(__name__)
T = TypeVar("T")

SERVICE_PROXIES: Mapping[str, str] = {
    "nova": "compute", "neutron": "network", "openstack": "network", "glance": "image",
    "cinder": "block_storage", "keystone": "identity", "heat": "orchestration",
    "swift": "object_store", "octavia": "load_balancer", "designate": "dns",
    "barbican": "key_manager", "ironic": "baremetal", "manila": "shared_file_system",
    "mistral": "workflow", "zaqar": "message", "trove": "database",
    "magnum": "container_infrastructure_management", "aodh": "alarm",
    "blazar": "reservation", "zun": "container",
}
"""Heat's client name -> openstacksdk's proxy attribute for its service."""

_CATALOG_TYPES = {"compute": "compute", "network": "network", "image": "image",
                  "block_storage": "block-storage", "identity": "identity",
                  "orchestration": "orchestration", "object_store": "object-store",
                  "load_balancer": "load-balancer", "dns": "dns", "key_manager": "key-manager",
                  "baremetal": "baremetal", "shared_file_system": "shared-file-system",
                  "workflow": "workflow", "message": "messaging", "database": "database",
                  "container_infrastructure_management": "container-infrastructure-management",
                  "alarm": "alarming", "reservation": "reservation", "container": "container"}
"""openstacksdk's proxy attribute -> the catalog service type it answers for."""

FIRST_BACKOFF_SECS = 0.5
"""The first wait after a transient failure; each next one doubles, plus up to this much
at random (jitter, so that engines retrying together spread out)."""
MAX_BACKOFF_SECS = 8.0


class Cloud:
    """A cloud as one set of credentials in one region sees it."""

    def __init__(self, sessions: CloudSessions, credentials: Credentials | None,
                 region: str | None, board: StatusBoard | None = None,
                 found: FinderCache | None = None) -> None:
        self._sessions = sessions
        self.credentials = credentials
        self.region = region
        self.board = board if board is not None else StatusBoard()
        """The engine's batched waits (``batched_waits``): checks read what they wait on
        there instead of asking the cloud one object at a time."""
        self.found = found if found is not None else FinderCache()
        """The engine's ids found by name (``finder_cache``; keeps none unless configured)."""
        self._entry: SessionEntry | None = None
        self._access: Any = None
        self._endpoints: dict[tuple[str, str], bool] = {}
        self._discovered: set[str] = set()
        """Services whose endpoint this cloud found once (see ``service``)."""
        self._extensions: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> CloudSettings:
        return self._sessions.settings

    # -- catalog -----------------------------------------------------------------------
    def _access_info(self) -> Any:
        """keystoneauth's AccessInfo: the token body as given, else from Keystone."""
        if self._access is None and self.credentials is not None:
            creds = self.credentials
            if isinstance(creds, TokenCredentials) and creds.token_info:
                from keystoneauth1 import access as ks_access

                self._access = ks_access.create(body=dict(creds.token_info),
                                                auth_token=creds.token)
            else:
                entry = self._session_entry()
                session = self._sessions.connection(entry, "keystone").session
                self._access = entry.auth.get_access(session)
        return self._access

    def authenticated(self) -> bool:
        """Whether Keystone takes these credentials now (asked, not read from a token
        body given with them); True without credentials: nothing to ask."""
        if self.credentials is None:
            return True
        from keystoneauth1 import exceptions as ks_exc

        entry = self._session_entry()
        session = self._sessions.connection(entry, "keystone").session
        try:
            entry.auth.get_access(session)
        except ks_exc.Unauthorized:
            return False
        return True

    def project_identity(self) -> str | None:
        """The project these credentials act in, with the region (the board's key: two
        stacks of one project see the same objects); None without credentials."""
        if self.credentials is None:
            return None
        project = getattr(self.credentials, "project_id", None)
        if not project:
            project = self.call(lambda: self._access_info().project_id)
        return f"{project}@{self.region or ''}" if project else None

    def role_names(self) -> list[str]:
        """The roles these credentials carry (a trust's: the roles it delegates)."""
        if self.credentials is None:
            return []
        return list(self.call(lambda: self._access_info().role_names) or [])

    def endpoint_exists(self, client: str, service_type: str) -> bool:
        """Whether the catalog lists ``service_type`` at ``client``'s interface in this
        region (Heat's ``does_endpoint_exist``); no credentials: nothing exists."""
        key = (client, service_type)
        if key not in self._endpoints:
            self._endpoints[key] = self._lookup_endpoint(client, service_type)
        return self._endpoints[key]

    def _lookup_endpoint(self, client: str, service_type: str) -> bool:
        from keystoneauth1 import exceptions as ks_exc

        if self.credentials is None:
            return False
        try:
            catalog = self._access_info().service_catalog
            catalog.url_for(service_type=service_type, interface=self.settings.interface(client),
                            region_name=self.region)
        except (ks_exc.EndpointNotFound, ks_exc.EmptyCatalog):
            return False
        return True

    def endpoint_url(self, client: str, service_type: str) -> str:
        """The catalog's URL of ``service_type`` at ``client``'s interface in this region,
        as the catalog gives it (a project id already in it).

        Raises:
            EndpointNotFound: the catalog lists none there (or there is no catalog).
        """
        from keystoneauth1 import exceptions as ks_exc

        if self.credentials is None:
            raise EndpointNotFound()
        try:
            catalog = self.call(self._access_info).service_catalog
            url = catalog.url_for(service_type=service_type,
                                  interface=self.settings.interface(client),
                                  region_name=self.region)
        except (ks_exc.EndpointNotFound, ks_exc.EmptyCatalog):
            raise EndpointNotFound() from None
        return str(url).rstrip("/")

    def session(self, client: str, *, ca_cert: str | None = None,
                insecure: bool = False) -> Any:
        """keystoneauth's session for ``client``'s services, for a service spoken as plain
        JSON at a URL from ``endpoint_url``: with the client's TLS settings, or the
        caller's (Heat's RemoteStack ``context``): ``insecure`` verifies no certificate,
        ``ca_cert`` (a PEM certificate, not a path) is the one to verify against."""
        verify: bool | str | None = None
        if insecure:
            verify = False
        elif ca_cert:
            verify = ca_bundle(ca_cert)
        return self._sessions.connection(self._session_entry(), client, verify).session

    def in_region(self, region: str) -> Cloud:
        """The same credentials in another region (Heat's context with its
        ``region_name`` replaced): the catalog and services of ``region``."""
        return Cloud(self._sessions, self.credentials, region, found=self.found)

    def has_extension(self, client: str, alias: str) -> bool:
        """Whether ``client``'s service offers the API extension ``alias`` (asked once per
        ``Cloud``; Neutron's and Cinder's list them)."""
        with self._lock:
            known = self._extensions.get(client)
        if known is None:
            known = frozenset(self.call(self._list_extensions, client))
            with self._lock:
                self._extensions[client] = known
        return alias in known

    def _list_extensions(self, client: str) -> list[str]:
        if client in ("neutron", "openstack"):
            return [ext.alias for ext in self.network.extensions()]
        proxy = self.service(client)
        response = proxy.get("/extensions")
        response.raise_for_status()
        return [ext.get("alias") for ext in response.json().get("extensions", [])]

    # -- services ----------------------------------------------------------------------
    def _session_entry(self) -> SessionEntry:
        if self.credentials is None:
            raise EndpointNotFound()
        if self._entry is None:
            self._entry = self._sessions.entry(self.credentials, self.region)
        return self._entry

    def service(self, client: str) -> Any:
        """openstacksdk's proxy for ``client``'s service (``"nova"`` -> ``compute``)."""
        attribute = SERVICE_PROXIES[client]
        if self.credentials is None:
            raise EndpointNotFound()
        catalog_type = _CATALOG_TYPES.get(attribute, attribute)
        known_catalog = (isinstance(self.credentials, TokenCredentials)
                         and self.credentials.token_info)
        if known_catalog and not self.endpoint_exists(client, catalog_type):
            raise EndpointNotFound()
        conn = self._sessions.connection(self._session_entry(), client)
        proxy = getattr(conn, attribute)
        if client in self._discovered:
            return proxy
        shim = type(proxy).__name__ == "_ServiceDisabledProxyShim"
        if not shim and _discovered(proxy):
            self._discovered.add(client)  # keystoneauth keeps what it found: asked once
            return proxy
        if self.endpoint_exists(client, catalog_type):
            # In the catalog, yet no endpoint was found: the version discovery got no
            # answer, the API is away (keystoneauth would say "Could not find requested
            # endpoint", as for a service the catalog lacks). openstacksdk would keep
            # its stand-in proxy for the connection's life, failing every later call,
            # so it is dropped; the caller waits for the API to come back.
            if shim:
                conn._proxies.pop(getattr(proxy, "service_type", attribute), None)
            raise CloudUnavailable(f"The {catalog_type} API did not answer its version "
                                   f"discovery at the catalog's endpoint.")
        return proxy

    @property
    def compute(self) -> Any:
        return self.service("nova")

    @property
    def network(self) -> Any:
        return self.service("neutron")

    @property
    def image(self) -> Any:
        return self.service("glance")

    @property
    def block_storage(self) -> Any:
        return self.service("cinder")

    @property
    def identity(self) -> Any:
        return self.service("keystone")

    def __getattr__(self, attribute: str) -> Any:
        """Other services by openstacksdk's name (``load_balancer``, ``dns``...)."""
        for client, proxy in SERVICE_PROXIES.items():
            if proxy == attribute:
                return self.service(client)
        raise AttributeError(attribute)

    # -- calls ---------------------------------------------------------------------------
    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)``, transient failures retried with back-off; any cloud
        failure raised classified (CloudNotFound, CloudConflict, ...)."""
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.settings.client_retry_limit + 1),
            wait=(tenacity.wait_exponential(multiplier=FIRST_BACKOFF_SECS, max=MAX_BACKOFF_SECS)
                  + tenacity.wait_random(0, FIRST_BACKOFF_SECS)),
            retry=tenacity.retry_if_exception_type(CloudTransient),
            before_sleep=_log_retry, reraise=True)
        return retrying(self._classified, fn, *args, **kwargs)

    @staticmethod
    def _classified(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            error = classify(exc)
            if error is None or error is exc:
                raise
            raise error from exc

    def find(self, kind: str, name_or_id: str) -> str:
        """The id of the ``kind`` object named or identified ``name_or_id`` (finders),
        from the engine's finder cache when it keeps that kind."""
        def ask() -> str:
            return self.call(finders.find, self, kind, name_or_id)

        if self.found.ttl is None or self.credentials is None:
            return ask()
        return self.found.lookup(self.project_identity(), kind, name_or_id, ask)

    def remember_found(self, kind: str, ident: str) -> None:
        """The ``kind`` object ``ident`` was just made here: later lookups of its id need
        not ask the cloud (kept as the finder cache keeps what it finds, when it does)."""
        if self.found.ttl is not None and self.credentials is not None:
            self.found.remember(self.project_identity(), kind, ident)

    def check_constraint(self, name: str, value: Any) -> str | None:
        """A cloud custom constraint's check (``resources.custom_constraints``)."""
        return constraints.check_constraint(self, name, value)


def _discovered(proxy: Any) -> bool:
    """Whether ``proxy`` finds its endpoint: the catalog's URL and, where the service
    has one, its version document (keystoneauth keeps it once read, so this asks the
    API only until it has answered once)."""
    from keystoneauth1 import adapter
    from keystoneauth1 import exceptions as ks_exc

    if getattr(proxy, "skip_discovery", False) or not isinstance(proxy, adapter.Adapter):
        return True
    try:  # the Adapter's, not the identity proxy's own get_endpoint (endpoints' API)
        return bool(adapter.Adapter.get_endpoint(proxy))
    except (ks_exc.EndpointNotFound, ks_exc.DiscoveryFailure, ks_exc.ConnectionError):
        return False


def _log_retry(state: tenacity.RetryCallState) -> None:
    outcome = state.outcome
    error = outcome.exception() if outcome is not None else None
    LOG.warning("cloud call failed (%s), attempt %d; retrying", error, state.attempt_number)


class Clouds:
    """Where the engine gets a ``Cloud``: for a request's context, a stack, or credentials.

    ``stack_credentials`` tells what credentials a stack holds (its trust, once
    deferred authentication stores one); unset, a stack has none and its plugins see
    a cloud with no catalog, as in the standalone mode.
    """

    def __init__(self, settings: CloudSettings | None = None,
                 stack_credentials: Callable[[Any], Credentials | None] | None = None,
                 ) -> None:
        self.sessions = CloudSessions(settings or CloudSettings())
        self.stack_credentials = stack_credentials
        self.board = StatusBoard()
        """One per engine: every ``Cloud`` built here waits through it."""
        self.found = FinderCache(self.settings.finder_cache_ttl)
        """One per engine too: the ids found by name, shared by every ``Cloud``."""

    @property
    def settings(self) -> CloudSettings:
        return self.sessions.settings

    def region_for(self, ctxt: Mapping[str, Any] | None = None) -> str | None:
        """The request's region, else ``region_name_for_services`` (Heat's order)."""
        region = (ctxt or {}).get("region_name")
        return str(region) if region else self.settings.region_name_for_services

    def for_context(self, ctxt: Mapping[str, Any]) -> Cloud:
        """The cloud as the caller of a request sees it (cheap: nothing is asked yet)."""
        return Cloud(self.sessions, from_context(ctxt), self.region_for(ctxt), self.board,
                     self.found)

    def for_stack(self, stack: Any) -> Cloud:
        """The cloud as a stack's owner sees it, through the credentials the stack holds."""
        found = self.stack_credentials(stack) if self.stack_credentials is not None else None
        return self.for_credentials(found)

    def for_credentials(self, credentials: Credentials | None,
                        region: str | None = None) -> Cloud:
        return Cloud(self.sessions, credentials,
                     region or self.settings.region_name_for_services, self.board, self.found)
