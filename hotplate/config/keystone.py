"""``[keystone_authtoken]``: the section keystonemiddleware's ``auth_token`` reads.

keystonemiddleware declares its own options (``www_authenticate_uri``,
``auth_type`` and the auth plugin's ``auth_url``, ``username``, ``password``,
``project_name``, ..., ``memcached_servers``, ``token_cache_time``) and reads
them from an oslo.config object it is given, as it does in heat-api. hotplate
hands it one that has read the same files as the rest of its configuration, so
a heat.conf's ``[keystone_authtoken]`` works as it is. There are no
``HOTPLATE_*`` variables for this section: its secrets belong in a file.
"""

from __future__ import annotations

from oslo_config import cfg

from hotplate.config.loading import ConfigError
from hotplate.config.settings import Sources

AUTHTOKEN = "keystone_authtoken"


def authtoken_conf(sources: Sources) -> cfg.ConfigOpts:
    """A configuration object that has read ``sources``, for keystonemiddleware.

    Raises:
        ConfigError: no file was read, or a file does not parse.
    """
    if not (sources.files or sources.dirs):
        raise ConfigError(
            "Keystone mode needs a configuration file with a [keystone_authtoken] "
            "section (www_authenticate_uri, auth_type = password, auth_url, username, "
            "password, project_name, user_domain_name, project_domain_name): pass "
            "--config-file")
    conf = cfg.ConfigOpts()
    try:
        conf(args=[], project="hotplate", prog="hotplate",
             default_config_files=list(sources.files),
             default_config_dirs=list(sources.dirs), use_env=False)
    except cfg.Error as exc:
        raise ConfigError(f"configuration: {exc}") from None
    return conf


def check_authtoken(conf: cfg.ConfigOpts) -> None:
    """Refuse a ``[keystone_authtoken]`` that cannot validate a token (call once
    keystonemiddleware has registered its options on ``conf``).

    Raises:
        ConfigError: naming what is missing, never a secret's value.
    """
    group = conf[AUTHTOKEN]
    if not group.auth_type:
        raise ConfigError(f"[{AUTHTOKEN}]/auth_type is not set: Keystone mode needs the "
                          "service user that validates tokens (auth_type = password, "
                          "auth_url, username, password, project_name, ...)")
    missing = [name for name in ("auth_url",) if not _get(group, name)]
    if missing:
        raise ConfigError(f"[{AUTHTOKEN}]/{missing[0]} is not set")


def _get(group: cfg.ConfigOpts.GroupAttr, name: str) -> object:
    try:
        return group[name]
    except cfg.NoSuchOptError:
        return None
