"""The options about reaching a cloud, under Heat's names: ``region_name_for_services``,
``[clients]``, ``[clients_<client>]`` and ``[trustee]`` (read into
``hotplate.cloud.settings.CloudSettings``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from hotplate.cloud.settings import (
    HEAT_CLIENTS,
    ClientOptions,
    CloudSettings,
    TrusteeSettings,
)

__all__ = ["CLIENT_GROUPS", "CLIENTS", "DEFAULT_OPTS", "TRUSTEE", "TRUSTEE_OPTS",
           "cloud_settings", "client_opts", "env_sections"]

CLIENTS = "clients"
TRUSTEE = "trustee"
_ENDPOINT_TYPES = ["publicURL", "internalURL", "adminURL", "public", "internal", "admin"]

DEFAULT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "region_name_for_services",
        help="Region whose endpoints of the cloud's services are used when a request "
             "names none (Heat's option). Unset: the token's catalog decides."),
]


def client_opts(defaults: bool) -> list[cfg.Opt]:
    """``[clients]`` (``defaults``: with Heat's defaults) or a ``[clients_<client>]``
    section (no defaults: an unset option falls back on ``[clients]``)."""
    return [
        cfg.StrOpt("endpoint_type", choices=_ENDPOINT_TYPES,
                   default="public" if defaults else None,
                   help="Type of endpoint in the Identity service catalog to use for "
                        "communication with the OpenStack service."),
        cfg.StrOpt("ca_file", help="Optional CA cert file to use in SSL connections."),
        cfg.StrOpt("cert_file", help="Optional PEM-formatted certificate chain file."),
        cfg.StrOpt("key_file",
                   help="Optional PEM-formatted file that contains the private key."),
        cfg.BoolOpt("insecure", default=False if defaults else None,
                    help="If set, then the server's certificate will not be verified."),
    ]


CLIENT_GROUPS = [f"clients_{client}" for client in HEAT_CLIENTS]
"""Every ``[clients_<client>]`` section (``clients_heat`` has its own ``url`` too)."""

KEYSTONE_OPTS: list[cfg.Opt] = [
    cfg.URIOpt("auth_uri", schemes=["http", "https"],
               help="Unversioned keystone url in format like http://127.0.0.1:5000."),
]

TRUSTEE_OPTS: list[cfg.Opt] = [
    cfg.StrOpt("auth_type", default="password",
               help="Authentication type of the trustee (keystoneauth's name); only "
                    "'password' is read."),
    cfg.StrOpt("auth_url", help="Keystone URL the trustee authenticates at."),
    cfg.StrOpt("username", help="The trustee's user name (Heat's service user)."),
    cfg.StrOpt("password", secret=True, help="The trustee's password."),
    cfg.StrOpt("user_domain_id", help="The trustee's domain, by id."),
    cfg.StrOpt("user_domain_name", help="The trustee's domain, by name."),
]


def env_sections() -> dict[str, str]:
    """The variable prefix of each section added here (``HOTPLATE_CLIENTS_NOVA_...``)."""
    sections = {CLIENTS: "CLIENTS_", TRUSTEE: "TRUSTEE_"}
    sections.update({group: f"{group.upper()}_" for group in CLIENT_GROUPS})
    return sections


def cloud_settings(value: Callable[[str, str], Any]) -> CloudSettings:
    """The settings read through ``value(group, name)``."""
    def client(group: str) -> ClientOptions:
        return ClientOptions(**{name: value(group, name) for name in (
            "endpoint_type", "ca_file", "cert_file", "key_file", "insecure")})

    return CloudSettings(
        region_name_for_services=value("DEFAULT", "region_name_for_services") or None,
        client_retry_limit=value("DEFAULT", "client_retry_limit"),
        clients=client(CLIENTS),
        per_client={group.removeprefix("clients_"): client(group) for group in CLIENT_GROUPS},
        keystone_url=value("clients_keystone", "auth_uri") or None,
        trustee=TrusteeSettings(**{name: value(TRUSTEE, name) for name in (
            "auth_type", "auth_url", "username", "password", "user_domain_id",
            "user_domain_name")}),
    )
