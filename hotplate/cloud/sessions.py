"""keystoneauth sessions and openstacksdk connections, one per (credentials, region).

``CloudSessions`` is the one place that authenticates: a token with its
token body becomes keystoneauth's access-info plugin (no call to Keystone), a
bare token a token plugin, a trust the trustee's password plugin scoped to
the trust. The plugin is shared by every connection built for those
credentials and region, so a token is fetched once; a connection is built per
distinct TLS setting of the services used (``[clients_<client>] insecure``,
``ca_file``, ``cert_file``/``key_file``), with each service's interface from
``endpoint_type``. Entries are kept for reuse, least recently used dropped
first, so the number of sessions stays bounded whatever the number of stacks.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hotplate.cloud.credentials import Credentials, TokenCredentials, TrustCredentials
from hotplate.cloud.errors import CloudError
from hotplate.cloud.settings import CloudSettings
from hotplate.resources.heat_types import CLIENT_SERVICES

if TYPE_CHECKING:  # the libraries are imported when a cloud is first used
    from keystoneauth1.identity.base import BaseIdentityPlugin
    from openstack.connection import Connection

__all__ = ["APP_NAME", "CloudSessions", "MissingCredentials", "SessionEntry", "ca_bundle"]

APP_NAME = "hotplate"
MAX_ENTRIES = 256


class MissingCredentials(CloudError):
    """The credentials cannot be turned into a session (no Keystone URL, no trustee)."""


@dataclass
class SessionEntry:
    """One (credentials, region): its auth plugin and its connections by TLS setting."""

    auth: BaseIdentityPlugin
    region: str | None
    connections: dict[Hashable, Connection]


class CloudSessions:
    """Authenticated sessions and connections, cached by (credentials, region)."""

    def __init__(self, settings: CloudSettings) -> None:
        self.settings = settings
        self._entries: OrderedDict[Hashable, SessionEntry] = OrderedDict()
        self._lock = threading.Lock()

    def auth_plugin(self, credentials: Credentials) -> BaseIdentityPlugin:
        """keystoneauth's plugin for the credentials, as Heat builds it."""
        if isinstance(credentials, TokenCredentials):
            return self._token_plugin(credentials)
        return self._trust_plugin(credentials)

    def _token_plugin(self, creds: TokenCredentials) -> BaseIdentityPlugin:
        auth_url = creds.auth_url or self.settings.keystone_url or self.settings.trustee.auth_url
        from keystoneauth1 import access
        from keystoneauth1.identity import access as access_plugin
        from keystoneauth1.identity import v3

        if creds.token_info:
            ref = access.create(body=dict(creds.token_info), auth_token=creds.token)
            return access_plugin.AccessInfoPlugin(auth_ref=ref, auth_url=auth_url)
        if not auth_url:
            raise MissingCredentials("No Keystone URL to validate the request's token "
                                     "([clients_keystone] auth_uri)")
        return v3.Token(auth_url=_v3(auth_url), token=creds.token, project_id=creds.project_id)

    def _trust_plugin(self, creds: TrustCredentials) -> BaseIdentityPlugin:
        from keystoneauth1.identity import v3

        trustee = self.settings.trustee
        if not trustee.configured:
            raise MissingCredentials("The trustee is not configured ([trustee] auth_url, "
                                     "username, password)")
        domain: dict[str, Any] = {}
        if trustee.user_domain_id:
            domain["user_domain_id"] = trustee.user_domain_id
        if trustee.user_domain_name:
            domain["user_domain_name"] = trustee.user_domain_name
        if not domain:
            domain["user_domain_id"] = "default"
        return v3.Password(auth_url=_v3(str(trustee.auth_url)), username=trustee.username,
                           password=str(trustee.password), trust_id=creds.trust_id, **domain)

    def entry(self, credentials: Credentials, region: str | None) -> SessionEntry:
        key = (credentials.key, region)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        built = SessionEntry(self.auth_plugin(credentials), region, {})
        with self._lock:
            found = self._entries.setdefault(key, built)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_ENTRIES:
                self._entries.popitem(last=False)
        return found

    def connection(self, entry: SessionEntry, client: str,
                   verify: bool | str | None = None) -> Connection:
        """The connection serving ``client``'s services for this entry (its TLS setting;
        ``verify``, when given, instead of the client's: False, True or a CA bundle)."""
        from keystoneauth1 import session
        from openstack import connection

        tls = (self.settings.verify(client) if verify is None else verify,
               self.settings.cert(client))
        with self._lock:
            found = entry.connections.get(tls)
        if found is not None:
            return found
        verify, cert = tls
        sess = session.Session(auth=entry.auth, verify=verify, cert=cert,
                               app_name=APP_NAME)
        built = connection.Connection(session=sess, region_name=entry.region,
                                      app_name=APP_NAME, **self._interfaces())
        with self._lock:
            return entry.connections.setdefault(tls, built)

    def _interfaces(self) -> dict[str, Any]:
        """openstacksdk's ``<service_type>_interface`` for every service, from
        ``[clients_<client>] endpoint_type``."""
        interfaces: dict[str, Any] = {}
        for client, service_types in CLIENT_SERVICES.items():
            for service_type in (*service_types, *_SDK_ALIASES.get(client, ())):
                interfaces[f"{service_type.replace('-', '_')}_interface"] = (
                    self.settings.interface(client))
        return interfaces


_SDK_ALIASES = {"cinder": ("block-storage",), "neutron": ("network",)}
"""The service types openstacksdk knows a client's service by, beside Heat's."""


def ca_bundle(pem: str) -> str:
    """A file holding the CA certificate ``pem`` (requests verifies against a path), made
    once per certificate in a directory of this user's only, and kept: as many files as
    distinct certificates, however many sessions use them."""
    folder = Path(tempfile.gettempdir()) / f"hotplate-ca-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{hashlib.sha256(pem.encode()).hexdigest()}.pem"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}")
        partial.write_text(pem)
        partial.replace(path)
    return str(path)


def _v3(url: str) -> str:
    """keystoneauth's v3 plugins want the versioned URL."""
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith("/v3") else f"{trimmed}/v3"
