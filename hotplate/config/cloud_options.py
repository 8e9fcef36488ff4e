"""The options about reaching a cloud, under Heat's names: ``region_name_for_services``,
``[clients]``, ``[clients_<client>]``, ``[trustee]``, deferred authentication
(``deferred_auth_method``, ``trusts_delegated_roles``...) and the stack domain
(``stack_user_domain_id``/``_name``, ``stack_domain_admin``...), and the finder cache
(``[cache] enabled``, ``[resource_finder_cache]``), read into
``hotplate.cloud.settings.CloudSettings``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from hotplate.cloud.settings import (
    HEAT_CLIENTS,
    ClientOptions,
    CloudSettings,
    DeferredAuth,
    StackDomain,
    TrusteeSettings,
)

__all__ = ["CACHE", "CACHE_OPTS", "CLIENT_GROUPS", "CLIENTS", "DEFAULT_OPTS", "FINDER_CACHE",
           "FINDER_CACHE_OPTS", "TRUSTEE", "TRUSTEE_OPTS", "StackDomainMisconfigured",
           "cloud_settings", "client_opts", "env_sections"]

CLIENTS = "clients"
TRUSTEE = "trustee"
CACHE = "cache"
FINDER_CACHE = "resource_finder_cache"
_ENDPOINT_TYPES = ["publicURL", "internalURL", "adminURL", "public", "internal", "admin"]

DEFAULT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "region_name_for_services",
        help="Region whose endpoints of the cloud's services are used when a request "
             "names none (Heat's option). Unset: the token's catalog decides."),
    cfg.StrOpt(
        "deferred_auth_method", choices=["password", "trusts"], default="trusts",
        help="Select deferred auth method, stored password or trusts. With 'trusts' "
             "(Heat's default), a stack created with a Keystone token holds a trust from "
             "its creator to the [trustee] user, through which all later work on the "
             "stack acts (its resources, signals, scaling, another engine's takeover). "
             "'password' (deprecated in Heat) makes no trust: later work has no cloud "
             "credentials."),
    cfg.ListOpt(
        "trusts_delegated_roles", default=[],
        help="Subset of trustor roles to be delegated to heat. If left unset, all roles "
             "of a user will be delegated to heat when creating a stack."),
    cfg.StrOpt(
        "reauthentication_auth_method", choices=["", "trusts"], default="",
        help="Allow reauthentication on token expiry, such that long-running tasks may "
             "complete (Heat's option). hotplate's work after a request always acts "
             "through the stack's trust; 'trusts' here only lets "
             "allow_trusts_redelegation apply."),
    cfg.BoolOpt(
        "allow_trusts_redelegation", default=False,
        help="Create trusts with redelegation enabled. This option is only used when "
             "reauthentication_auth_method is set to 'trusts'."),
    cfg.StrOpt("heat_stack_user_role", default="heat_stack_user",
               help="Keystone role for heat template-defined users."),
    cfg.StrOpt(
        "stack_user_domain_id",
        help="Keystone domain ID which contains heat template-defined users. If this "
             "option is set, stack_user_domain_name option will be ignored."),
    cfg.StrOpt(
        "stack_user_domain_name",
        help="Keystone domain name which contains heat template-defined users. If "
             "`stack_user_domain_id` option is set, this option is ignored. Unset (and "
             "stack_user_domain_id unset): stack users and their keys are hotplate's "
             "own, as in the standalone mode."),
    cfg.StrOpt("stack_domain_admin",
               help="Keystone username, a user with roles sufficient to manage users and "
                    "projects in the stack_user_domain."),
    cfg.StrOpt("stack_domain_admin_password", secret=True,
               help="Keystone password for stack_domain_admin user."),
]


class StackDomainMisconfigured(ValueError):
    """A stack domain named without its admin (Heat's startup check)."""


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

CACHE_OPTS: list[cfg.Opt] = [
    cfg.BoolOpt("enabled", default=False,
                help="Global toggle for caching (oslo.cache's option, as Heat reads it): "
                     "on, ids found by name or id are kept for the expiration_time of "
                     "[resource_finder_cache], in each engine's memory (as Heat's "
                     "dogpile.cache.memory backend keeps them); the other options of this "
                     "section are not read."),
]

FINDER_CACHE_OPTS: list[cfg.Opt] = [
    cfg.IntOpt("expiration_time", default=3600, min=1,
               help="Seconds an id found by name or id (an image, a flavor, a Neutron "
                    "object) is kept before the cloud is asked again (Heat's option)."),
    cfg.BoolOpt("caching", default=True,
                help="Whether ids found by name or id are kept at all; only with [cache] "
                     "enabled (Heat's option)."),
]


def env_sections() -> dict[str, str]:
    """The variable prefix of each section added here (``HOTPLATE_CLIENTS_NOVA_...``)."""
    sections = {CLIENTS: "CLIENTS_", TRUSTEE: "TRUSTEE_", CACHE: "CACHE_",
                FINDER_CACHE: "RESOURCE_FINDER_CACHE_"}
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
        deferred_auth=DeferredAuth(
            method=value("DEFAULT", "deferred_auth_method"),
            delegated_roles=tuple(value("DEFAULT", "trusts_delegated_roles") or ()),
            reauthentication_method=value("DEFAULT", "reauthentication_auth_method") or "",
            allow_redelegation=bool(value("DEFAULT", "allow_trusts_redelegation"))),
        stack_domain=stack_domain(value),
        finder_cache_ttl=(float(value(FINDER_CACHE, "expiration_time"))
                          if value(CACHE, "enabled") and value(FINDER_CACHE, "caching")
                          else None),
    )


def stack_domain(value: Callable[[str, str], Any]) -> StackDomain:
    """The stack domain settings, refused as Heat refuses them at startup.

    Raises:
        StackDomainMisconfigured: a domain without its admin's name and password.
    """
    domain = StackDomain(
        domain_id=value("DEFAULT", "stack_user_domain_id") or None,
        domain_name=value("DEFAULT", "stack_user_domain_name") or None,
        admin=value("DEFAULT", "stack_domain_admin") or None,
        admin_password=value("DEFAULT", "stack_domain_admin_password") or None,
        user_role=value("DEFAULT", "heat_stack_user_role") or "heat_stack_user")
    if domain.configured and not (domain.admin and domain.admin_password):
        raise StackDomainMisconfigured(
            'heat.conf misconfigured, cannot specify "stack_user_domain_id" or '
            '"stack_user_domain_name" without "stack_domain_admin" and '
            '"stack_domain_admin_password"')
    return domain
