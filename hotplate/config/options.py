"""Every option hotplate reads, under Heat's names and sections.

An operator's heat.conf works as it is: these are the names Heat (and the
oslo libraries it uses: oslo.messaging, oslo.db, oslo.service) give the same
settings, in the same sections, with Heat's defaults except where a default
says otherwise and why. Options hotplate does not know are ignored, so the
rest of a heat.conf (keystone_authtoken, clients_*, ...) does no harm.

Each option can also be set by an environment variable. The rule is
``HOTPLATE_<OPTION>`` for ``[DEFAULT]`` and ``HOTPLATE_<SECTION>_<OPTION>``
for the others (with a short name for each section), except the few
variables hotplate had before it read a file, which keep their names
(``ENV_NAMES``).
"""

from __future__ import annotations

import os

from oslo_config import cfg, types

from hotplate.config import cloud_options

DEFAULT = "DEFAULT"
DATABASE = "database"
HEAT_API = "heat_api"
HEAT_API_CFN = "heat_api_cfn"
CLIENTS_HEAT = "clients_heat"
NOTIFICATIONS = "oslo_messaging_notifications"
PASTE_DEPLOY = "paste_deploy"
UI = "ui"


def default_engine_workers() -> int:
    """Heat's default process count: 4, or the CPU count where there are more."""
    return max(4, os.cpu_count() or 1)


ENGINE_OPTS = [
    cfg.HostAddressOpt(
        "host", sample_default="<this machine's name>",
        help="Name of the engine node: the server name of its 'engine' topic, which "
             "heat-api and 'hotplate api' send their calls to. This can be an opaque "
             "identifier, not necessarily a hostname. Default: this machine's name."),
    cfg.StrOpt(
        "transport_url", secret=True,
        help="The message broker engines and API processes share, as oslo.messaging "
             "names it, e.g. rabbit://user:password@host:5672/. Needed by 'hotplate "
             "engine' and 'hotplate api'; 'hotplate serve' uses none."),
    cfg.IntOpt(
        "num_engine_workers", min=0, sample_default="<max(4, CPU count)>",
        help="Number of engine processes 'hotplate engine' forks and keeps running. "
             "Each has an engine id of its own, its own RPC servers and its own "
             "heartbeat. Unset or 0: 4, or the CPU count where there are more, as in "
             "Heat."),
    cfg.IntOpt(
        "executor_thread_pool_size", default=16, min=1,
        help="Threads each RPC server of an engine process runs messages on (oslo."
             "messaging's option). The database pool is sized so that every such "
             "thread can hold a connection. oslo.messaging's default is 64; hotplate's "
             "is 16: 64 threads on each of the two topics that use the database would "
             "need more connections per process than a default PostgreSQL allows in "
             "all (100)."),
    cfg.IntOpt(
        "periodic_interval", default=60, min=1,
        help="Seconds between an engine's reports in the service table. An engine "
             "whose last report is older than twice this reads 'down'; the recovery "
             "sweep runs at this rhythm too."),
    cfg.IntOpt(
        "engine_life_check_timeout", default=2, min=1,
        help="Seconds an engine has to answer the liveness probe on the "
             "heat-engine-listener topic before it is taken for dead."),
    cfg.IntOpt(
        "stalled_traversal_timeout", default=60, min=1,
        help="Seconds a node may stay ready without running before the sweep sends its "
             "message again (hotplate's own option: a lost message and a backlog look "
             "the same, so a node is sent again at most once per this)."),
    cfg.IntOpt(
        "request_retention", default=86400, min=1,
        help="Seconds an engine keeps the answer of a write by its request id (the "
             "API's Idempotency-Key, the CFN API's ClientRequestToken), so that the same "
             "request asked again is answered as the first time and not done twice "
             "(hotplate's own option)."),
    cfg.IntOpt(
        "graceful_shutdown_timeout", default=60, min=0,
        help="Seconds a stopping engine (SIGTERM) lets running operations finish before "
             "it exits (oslo.service's option). Zero waits without end."),
    cfg.IntOpt(
        "action_retry_limit", default=5, min=0,
        help="Number of times to retry to bring a resource to a non-error state. Set to 0 "
             "to disable retries."),
    cfg.IntOpt(
        "client_retry_limit", default=2, min=0,
        help="Times a worker that finds a resource locked tries again, after a random "
             "wait. Set to 0 to disable retries."),
    cfg.IntOpt(
        "max_resources_per_stack", default=1000,
        help="Maximum resources allowed per top-level stack. -1 stands for unlimited."),
    cfg.IntOpt(
        "max_snapshots_per_stack", default=32,
        help="Maximum number of snapshot any one stack may have active at one time. "
             "-1 stands for unlimited."),
    cfg.IntOpt(
        "max_template_size", default=524288, min=1,
        help="Maximum raw byte size of any template."),
    cfg.BoolOpt(
        "enable_stack_abandon", default=False,
        help="Enable the preview Stack Abandon feature."),
    cfg.BoolOpt(
        "enable_stack_adopt", default=False,
        help="Enable the preview Stack Adopt feature."),
    cfg.BoolOpt(
        "convergence_engine", default=True,
        help="Enables the engine with the convergence architecture. All stacks with "
             "this option will be created using the convergence engine. Stacks "
             "created with it off (the legacy engine) run each operation in one "
             "thread of the engine holding the stack's lock."),
    cfg.BoolOpt(
        "observe_on_update", default=False,
        help="On update, enables heat to collect existing resource properties from "
             "reality and converge to updated template."),
    cfg.URIOpt(
        "heat_metadata_server_url", schemes=["http", "https"],
        sample_default="<the CFN API's listening address>/v1/",
        help="URL of the Heat metadata server: the CFN API that in-instance agents "
             "poll (POLL_SERVER_CFN) and signal. Set it when agents reach hotplate at "
             "another address than it listens on. Default: the CFN API's listening "
             "address ([heat_api_cfn] bind_host, bind_port)."),
    cfg.URIOpt(
        "heat_waitcondition_server_url", schemes=["http", "https"],
        sample_default="<heat_metadata_server_url>waitcondition",
        help="URL of the Heat waitcondition server: the base of pre-signed "
             "CFN_SIGNAL URLs. Default: heat_metadata_server_url's."),
    cfg.StrOpt(
        "default_deployment_signal_transport", default="CFN_SIGNAL",
        help="How deployments signal their outputs back by default (Heat's option): "
             "CFN_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL, NO_SIGNAL or ZAQAR_SIGNAL. "
             "Without Keystone, Swift or Zaqar only CFN_SIGNAL and NO_SIGNAL work."),
    cfg.StrOpt(
        "default_software_config_transport", default="POLL_SERVER_CFN",
        help="How servers receive their software configuration by default (Heat's "
             "option): POLL_SERVER_CFN, POLL_SERVER_HEAT, POLL_TEMP_URL or "
             "ZAQAR_MESSAGE. Without Keystone, Swift or Zaqar only POLL_SERVER_CFN "
             "works."),
    cfg.StrOpt(
        "environment_dir",
        help="The directory to search for environment files (*.yaml) whose "
             "resource_registry applies to every stack. Heat's default is "
             "/etc/heat/environment.d; hotplate's is none."),
]

SECRETS_OPTS = [
    cfg.StrOpt(
        "auth_encryption_key", secret=True,
        sample_default="<a key made once in --data-dir>",
        help="Key used to encrypt authentication info in the database: stored "
             "credentials and trust ids, stack users' secret keys, redacted resource "
             "data, and with encrypt_parameters_and_properties hidden parameters and "
             "resource properties. 32 characters (16 or 24 work, with a warning, as "
             "in Heat); every process on one database needs the same key, and one "
             "that is not the key the database's secrets were encrypted with is "
             "refused at start. Unset: the key in <data dir>/auth_encryption_key, "
             "made (mode 0600) the first time; set it when processes on several "
             "hosts share a database."),
    cfg.BoolOpt(
        "encrypt_parameters_and_properties", default=False,
        help="Encrypt template parameters that were marked as hidden and also all "
             "the resource properties before storing them in database."),
]

DATABASE_OPTS = [
    cfg.StrOpt(
        "connection", secret=True, sample_default="<SQLite under --data-dir>",
        help="The SQLAlchemy URL of the database: sqlite:///path, postgresql://... or "
             "mysql+pymysql://... (postgresql:// and mysql:// use hotplate's drivers, "
             "psycopg and PyMySQL). A database of OpenStack Heat's own is refused, "
             "never migrated. Default: SQLite under --data-dir."),
    cfg.IntOpt(
        "max_pool_size", min=1, sample_default="<executor_thread_pool_size x 2 + 4>",
        help="Connections each engine process keeps open. Default: enough for every "
             "thread of the two topics that use the database, and the engine's timers."),
    cfg.IntOpt(
        "max_overflow", default=0, min=0,
        help="Connections opened beyond max_pool_size in a burst, and closed after. "
             "Raised, as Heat raises it, so that every RPC thread can get a connection."),
    cfg.IntOpt(
        "pool_timeout", default=30, min=1,
        help="Seconds to wait for a connection from the pool before failing."),
]

API_OPTS = [
    cfg.HostAddressOpt(
        "bind_host", default="127.0.0.1",
        help="Address 'hotplate serve' and 'hotplate api' listen on. Heat's default is "
             "0.0.0.0; hotplate's is loopback, and --noauth or --keystone on any other "
             "address needs --force."),
    cfg.PortOpt("bind_port", default=8004, help="The port to listen on."),
]

API_CFN_OPTS = [
    cfg.HostAddressOpt(
        "bind_host", sample_default="<[heat_api] bind_host>",
        help="Address the CFN-compatible API (signals, DescribeStackResource) listens "
             "on. Default: [heat_api] bind_host."),
    cfg.PortOpt("bind_port", default=8000,
                help="The CFN API's port; 'hotplate serve --cfn-port 0' switches it off."),
]

CLIENTS_HEAT_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "url", sample_default="http://<[heat_api] bind_host>:<bind_port>/v1/%(tenant_id)s",
        help="The orchestration API URL handed to agents (HEAT_SIGNAL / TOKEN_SIGNAL "
             "signal URLs), as Heat's [clients_heat] url. Default: the API's listening "
             "address."),
]

NOTIFICATION_OPTS = [
    cfg.MultiStrOpt(
        "driver", default=[],
        help="The drivers that send notifications (oslo.messaging's: messaging, "
             "messagingv2, log, routing, test, noop). None: notifications are off."),
    cfg.StrOpt(
        "transport_url", secret=True,
        help="The broker for notifications; unset, [DEFAULT]/transport_url's."),
    cfg.ListOpt(
        "topics", default=["notifications"],
        help="The topics notifications are sent on."),
]

AUTH_MODES = ("token", "keystone", "keystone-headers", "noauth")
"""How 'hotplate serve' and 'hotplate api' know their callers (README, Commands)."""

PASTE_DEPLOY_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "flavor", choices=AUTH_MODES, sample_default="token",
        help="How the API authenticates its callers (heat-api picks its pipeline by "
             "this option; hotplate names its own): 'token', hotplate's API tokens; "
             "'keystone', Keystone tokens validated by keystonemiddleware's auth_token "
             "with [keystone_authtoken]; 'keystone-headers', the identity headers of an "
             "auth_token filter in front (loopback only); 'noauth', none (loopback "
             "only). The --auth flag wins. Default: token."),
]

UI_OPTS: list[cfg.Opt] = [
    cfg.BoolOpt(
        "enabled", default=True,
        help="Serve the web view at /ui on the API's port (hotplate's own section)."),
    cfg.StrOpt(
        "session_key", secret=True,
        sample_default="<derived from [DEFAULT] auth_encryption_key>",
        help="The secret the web view's session cookies are sealed with (Fernet, a key "
             "derived from this string). Every API process behind one address needs the "
             "same. Unset: derived from auth_encryption_key (or the key file of "
             "--data-dir); without either, a random key of the process, so its sessions "
             "end when it restarts and no other process accepts them."),
    cfg.IntOpt(
        "session_lifetime", default=43200, min=60,
        help="Seconds a web view session lasts at most; a session ends sooner when its "
             "token expires."),
]

GROUPS: list[tuple[str, list[cfg.Opt]]] = [
    (DEFAULT, ENGINE_OPTS + cloud_options.DEFAULT_OPTS + SECRETS_OPTS),
    (DATABASE, DATABASE_OPTS),
    (HEAT_API, API_OPTS),
    (HEAT_API_CFN, API_CFN_OPTS),
    (CLIENTS_HEAT, CLIENTS_HEAT_OPTS + cloud_options.client_opts(defaults=False)),
    (NOTIFICATIONS, NOTIFICATION_OPTS),
    (PASTE_DEPLOY, PASTE_DEPLOY_OPTS),
    (UI, UI_OPTS),
    (cloud_options.CLIENTS, cloud_options.client_opts(defaults=True)),
    *[(group, cloud_options.client_opts(defaults=False)
       + (cloud_options.KEYSTONE_OPTS if group == "clients_keystone" else []))
      for group in cloud_options.CLIENT_GROUPS if group != CLIENTS_HEAT],
    (cloud_options.TRUSTEE, cloud_options.TRUSTEE_OPTS),
    (cloud_options.CACHE, cloud_options.CACHE_OPTS),
    (cloud_options.FINDER_CACHE, cloud_options.FINDER_CACHE_OPTS),
]
"""Every option, by section, in the order the sample lists them."""

ENV_NAMES = {
    (DEFAULT, "host"): "HOTPLATE_ENGINE_HOST",
    (DATABASE, "connection"): "HOTPLATE_DB_URL",
    (HEAT_API, "bind_host"): "HOTPLATE_HOST",
    (HEAT_API, "bind_port"): "HOTPLATE_PORT",
}
"""The variables whose names predate the file (HOTPLATE_HOST was the API's address
before [DEFAULT]/host was read; it stays the API's)."""

_ENV_SECTIONS = {DEFAULT: "", DATABASE: "DB_", HEAT_API: "API_", NOTIFICATIONS: "NOTIFICATIONS_",
                 HEAT_API_CFN: "API_CFN_", CLIENTS_HEAT: "CLIENTS_HEAT_",
                 PASTE_DEPLOY: "PASTE_DEPLOY_", UI: "UI_", **cloud_options.env_sections()}


def env_name(group: str, name: str) -> str:
    """The environment variable that sets ``[group] name``."""
    return ENV_NAMES.get((group, name)) or f"HOTPLATE_{_ENV_SECTIONS[group]}{name.upper()}"


def register(conf: cfg.ConfigOpts) -> None:
    """Every option of ``GROUPS`` on ``conf``."""
    for group, opts in GROUPS:
        conf.register_opts(opts, group=None if group == DEFAULT else group)


def is_multi(opt: cfg.Opt) -> bool:
    """Whether the option takes several values (a list, or one line per value)."""
    return isinstance(opt.type, types.List | types.MultiString)


__all__ = ["AUTH_MODES", "CLIENTS_HEAT", "DATABASE", "DEFAULT", "GROUPS", "HEAT_API",
           "HEAT_API_CFN", "NOTIFICATIONS", "PASTE_DEPLOY", "UI",
           "default_engine_workers", "env_name", "is_multi", "register"]
