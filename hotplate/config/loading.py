"""Reading the configuration: the file, then ``HOTPLATE_<OPTION>`` variables, then flags.

Precedence, highest first: command-line flags, environment variables, the
configuration file(s), the defaults. Files are Heat's format (oslo.config's
INI dialect), read by oslo.config itself so a heat.conf parses exactly as
heat-engine would parse it.

Which files: those given with ``--config-file`` (several: later ones win)
and the ``*.conf`` of each ``--config-dir``, read after them. Without
``--config-file``, the first ``hotplate.conf`` found in ``~/.hotplate/``
then ``/etc/hotplate/``; without ``--config-dir``, the first
``hotplate.conf.d`` found there. First found, not merged: oslo.config's own
search does the same, so a user's file replaces the system's.

Every value is checked here, once, and a bad one is a ``ConfigError`` naming
the option and where it came from (file, variable or flag), so a command
fails before it forks or connects to anything.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from oslo_config import cfg

from hotplate.config.cloud_options import StackDomainMisconfigured, cloud_settings
from hotplate.config.options import (
    DATABASE,
    DEFAULT,
    GROUPS,
    HEAT_API,
    HEAT_API_CFN,
    NOTIFICATIONS,
    PASTE_DEPLOY,
    UI,
    default_engine_workers,
    env_name,
    is_multi,
    register,
)
from hotplate.config.settings import (
    ApiSettings,
    DatabaseSettings,
    NotificationSettings,
    SecretSettings,
    Settings,
    Sources,
    UiSettings,
)
from hotplate.db.crypt import EncryptionKeyError, fernet_key
from hotplate.db.engine import PoolLimits
from hotplate.engine.options import EngineOptions

LOG = logging.getLogger(__name__)

SEARCH_DIRS = ("~/.hotplate", "/etc/hotplate")
"""Where the file is looked for when no --config-file is given, first found wins."""
CONFIG_NAME = "hotplate.conf"
CONFIG_DIR_NAME = "hotplate.conf.d"

Overrides = Mapping[tuple[str, str], Any]
"""(section, option) -> a flag's value; None means the flag was not given."""


class ConfigError(ValueError):
    """A configuration hotplate cannot use; the text is one line for the user,
    naming the option and its source, never a secret's value."""


def find_sources(config_files: Sequence[str] = (), config_dirs: Sequence[str] = (),
                 search: Sequence[str] = SEARCH_DIRS) -> Sources:
    """The files and directories to read: those given, else the first found in ``search``.

    Raises:
        ConfigError: a given file or directory does not exist.
    """
    files = [os.path.expanduser(f) for f in config_files]
    dirs = [os.path.expanduser(d) for d in config_dirs]
    for path in files:
        if not Path(path).is_file():
            raise ConfigError(f"configuration file {path} not found")
    for path in dirs:
        if not Path(path).is_dir():
            raise ConfigError(f"configuration directory {path} not found")
    if not files:
        files = _first(Path(d).expanduser() / CONFIG_NAME for d in search)
    if not dirs:
        dirs = _first(Path(d).expanduser() / CONFIG_DIR_NAME for d in search)
    return Sources(tuple(files), tuple(dirs))


def _first(candidates: Iterable[Path]) -> list[str]:
    for candidate in candidates:
        if candidate.exists():
            return [str(candidate)]
    return []


def load(config_files: Sequence[str] = (), config_dirs: Sequence[str] = (), *,
         environ: Mapping[str, str] | None = None, overrides: Overrides | None = None,
         search: Sequence[str] = SEARCH_DIRS) -> Settings:
    """The settings from the files, the environment and the flags in ``overrides``.

    Raises:
        ConfigError: a file that is missing or does not parse, or a value (from
            any source) that its option refuses.
    """
    sources = find_sources(config_files, config_dirs, search)
    conf = cfg.ConfigOpts()
    register(conf)
    try:
        conf(args=[], project="hotplate", prog="hotplate",
             default_config_files=list(sources.files),
             default_config_dirs=list(sources.dirs), use_env=False)
    except cfg.Error as exc:
        raise ConfigError(f"configuration: {exc}") from None
    environ = os.environ if environ is None else environ
    for group, opts in GROUPS:
        for opt in opts:
            variable = env_name(group, opt.dest)
            raw = environ.get(variable)
            if raw:
                _override(conf, group, opt, raw, variable)
    options = {(group, opt.dest): opt for group, opts in GROUPS for opt in opts}
    for (group, name), value in (overrides or {}).items():
        if value is not None:
            _override(conf, group, options[(group, name)], value, f"--{name}")
    return _settings(_Reader(conf), sources)


def _override(conf: cfg.ConfigOpts, group: str, opt: cfg.Opt, value: Any,
              source: str) -> None:
    if is_multi(opt) and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    try:
        conf.set_override(opt.dest, value, group=None if group == DEFAULT else group)
    except ValueError as exc:
        shown = "***" if opt.secret else repr(value)
        raise ConfigError(f"{_name(group, opt.dest)} from {source} ({shown}): {exc}") from None


def _name(group: str, name: str) -> str:
    return f"[{group}]/{name}"


class _Reader:
    """Values of ``conf`` with oslo's errors turned into one-line ConfigErrors."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self._conf = conf

    def __call__(self, group: str, name: str) -> Any:
        try:
            if group == DEFAULT:
                return getattr(self._conf, name)
            return getattr(getattr(self._conf, group), name)
        except cfg.ConfigSourceValueError as exc:
            # oslo names the file only inside its message ("... from
            # LocationInfo(..., detail='<path>') is not valid: <why>").
            text = str(exc)
            found = re.search(r"detail='([^']*)'", text)
            where = found.group(1) if found else "the configuration"
            reason = text.rpartition("is not valid: ")[2] or text
            raise ConfigError(f"{_name(group, name)} in {where}: {reason}") from None
        except (cfg.NoSuchOptError, cfg.TemplateSubstitutionError):
            # oslo.config substitutes $name in values; an unknown one fails here.
            raise ConfigError(f"{_name(group, name)}: its value names an option that does "
                              "not exist ($name); write $$ for a literal $") from None


def _settings(value: _Reader, sources: Sources) -> Settings:
    try:
        cloud = cloud_settings(value)
    except StackDomainMisconfigured as exc:
        raise ConfigError(str(exc)) from None
    api = ApiSettings(value(HEAT_API, "bind_host"), value(HEAT_API, "bind_port"))
    cfn = ApiSettings(value(HEAT_API_CFN, "bind_host") or api.bind_host,
                      value(HEAT_API_CFN, "bind_port"))
    engine = EngineOptions(**{name: value(DEFAULT, name) for name in _ENGINE_FIELDS},
                           **agent_urls(value, api, cfn))
    notifications = NotificationSettings(
        drivers=tuple(value(NOTIFICATIONS, "driver")),
        transport_url=value(NOTIFICATIONS, "transport_url"),
        topics=tuple(value(NOTIFICATIONS, "topics")),
    )
    database = DatabaseSettings(
        connection=heat_database_url(value(DATABASE, "connection")),
        pool=PoolLimits(max_pool_size=value(DATABASE, "max_pool_size"),
                        max_overflow=value(DATABASE, "max_overflow"),
                        timeout=float(value(DATABASE, "pool_timeout"))),
    )
    return Settings(
        secrets=secret_settings(value),
        host=value(DEFAULT, "host") or None,
        transport_url=value(DEFAULT, "transport_url") or None,
        num_engine_workers=value(DEFAULT, "num_engine_workers") or default_engine_workers(),
        executor_thread_pool_size=value(DEFAULT, "executor_thread_pool_size"),
        engine=engine,
        database=database,
        api=api,
        notifications=notifications,
        sources=sources,
        cfn=cfn,
        auth=value(PASTE_DEPLOY, "flavor") or "token",
        cloud=cloud,
        ui=UiSettings(enabled=bool(value(UI, "enabled")),
                      session_key=value(UI, "session_key") or None,
                      session_lifetime=value(UI, "session_lifetime")),
    )


def secret_settings(value: Any) -> SecretSettings:
    """The key (checked as Heat checks it: 32 characters, or 16 or 24 with a warning)
    and whether parameters and properties are encrypted."""
    key = value(DEFAULT, "auth_encryption_key") or None
    if key is not None:
        if len(key) in (16, 24):
            LOG.warning("Please update auth_encryption_key to be 32 characters.")
        try:
            fernet_key(key)
        except EncryptionKeyError as exc:
            raise ConfigError(str(exc)) from None
    return SecretSettings(key, bool(value(DEFAULT, "encrypt_parameters_and_properties")))


_TRANSPORT_CHOICES = {
    "default_deployment_signal_transport": (
        "CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL"),
    "default_software_config_transport": (
        "POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE"),
}
"""Heat's choices for the default transports."""


def _reachable(host: str) -> str:
    """A listening address as a URL's host: a wildcard is reached on loopback."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def agent_urls(value: Any, api: ApiSettings, cfn: ApiSettings) -> dict[str, Any]:
    """The URLs handed to in-instance agents: Heat's options, else derived from where
    the CFN API and the orchestration API listen."""
    metadata = (value(DEFAULT, "heat_metadata_server_url")
                or f"http://{_reachable(cfn.bind_host)}:{cfn.bind_port}")
    if "/v1" not in metadata:
        metadata += "/v1"
    metadata = metadata if metadata.endswith("/") else metadata + "/"
    for name, allowed in _TRANSPORT_CHOICES.items():
        if value(DEFAULT, name) not in allowed:
            raise ConfigError(f"{_name(DEFAULT, name)}: {value(DEFAULT, name)!r} is not one "
                              f"of {', '.join(allowed)}")
    return {
        "heat_metadata_server_url": metadata,
        "heat_waitcondition_server_url": (value(DEFAULT, "heat_waitcondition_server_url")
                                          or f"{metadata}waitcondition"),
        "heat_url": (value("clients_heat", "url")
                     or f"http://{_reachable(api.bind_host)}:{api.bind_port}"
                        "/v1/%(tenant_id)s"),
        "default_deployment_signal_transport": value(
            DEFAULT, "default_deployment_signal_transport"),
        "default_software_config_transport": value(
            DEFAULT, "default_software_config_transport"),
    }


_ENGINE_FIELDS = ("max_resources_per_stack", "max_snapshots_per_stack", "max_template_size",
                  "enable_stack_abandon", "enable_stack_adopt", "observe_on_update",
                  "convergence_engine", "environment_dir",
                  "periodic_interval", "engine_life_check_timeout", "stalled_traversal_timeout",
                  "graceful_shutdown_timeout", "client_retry_limit", "request_retention",
                  "action_retry_limit")
"""The ``[DEFAULT]`` options the engine itself receives, as ``EngineOptions``."""

_HOTPLATE_DRIVERS = {"postgresql": "postgresql+psycopg", "mysql": "mysql+pymysql"}


def heat_database_url(url: str | None) -> str | None:
    """``url`` with Heat's driverless forms mapped to the drivers hotplate ships with.

    SQLAlchemy reads ``postgresql://`` as psycopg2 and ``mysql://`` as
    mysqlclient; a heat.conf written for those means "this server", so they
    get psycopg (3) and PyMySQL. A URL that names its driver is left alone
    (a driver that is not installed is reported when the URL is used).
    """
    if not url:
        return None
    scheme, sep, rest = url.partition("://")
    driver = _HOTPLATE_DRIVERS.get(scheme)
    return f"{driver}://{rest}" if sep and driver else url


def use_for_messaging(sources: Sources) -> None:
    """Let oslo.messaging read its own sections (``[oslo_messaging_rabbit]``, ...)
    from the same files, as it does in heat-engine.

    oslo.messaging reads its options from oslo.config's process-wide
    configuration (hotplate.rpc.messaging explains why), so the files are
    loaded there too; hotplate's own options stay on the private one. Call
    before building a transport, in the process that builds it.
    """
    if not (sources.files or sources.dirs):
        return
    try:
        cfg.CONF(args=[], project="hotplate", prog="hotplate",
                 default_config_files=list(sources.files),
                 default_config_dirs=list(sources.dirs), use_env=False)
    except cfg.Error as exc:
        raise ConfigError(f"configuration: {exc}") from None
