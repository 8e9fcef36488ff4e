"""What the command line's subcommands share: the settings, where the database is, the
token store."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotplate.config import Settings
    from hotplate.db.crypt import SecretBox

DEFAULT_DATA_DIR = "var"

FLAGS = {
    "db_url": ("database", "connection"),
    "transport_url": ("DEFAULT", "transport_url"),
    "engine_host": ("DEFAULT", "host"),
    "workers": ("DEFAULT", "num_engine_workers"),
    "threads": ("DEFAULT", "executor_thread_pool_size"),
    "host": ("heat_api", "bind_host"),
    "port": ("heat_api", "bind_port"),
    "cfn_port": ("heat_api_cfn", "bind_port"),
    "auth": ("paste_deploy", "flavor"),
}
"""Command-line flag (argparse dest) -> the option it overrides."""


def add_config_arguments(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``--config-file`` and ``--config-dir``, Heat's flags; on a subcommand too, so they
    may follow its name (``hotplate engine --config-file /etc/heat/heat.conf``)."""
    # A subcommand's own dests: argparse would let its list replace the top level's.
    prefix = "" if top else "sub_"
    parser.add_argument("--config-file", dest=f"{prefix}config_file", action="append",
                        default=[], metavar="PATH",
                        help="a configuration file in Heat's format (repeatable; later "
                             "ones win; default: ~/.hotplate/hotplate.conf, else "
                             "/etc/hotplate/hotplate.conf)")
    parser.add_argument("--config-dir", dest=f"{prefix}config_dir", action="append",
                        default=[], metavar="DIR",
                        help="a directory whose *.conf files are read after the "
                             "--config-file ones (default: hotplate.conf.d beside the "
                             "default file)")


def settings(args: argparse.Namespace) -> Settings:
    """The command's settings: its flags over ``HOTPLATE_<OPTION>`` variables over the
    configuration file over the defaults; read once per command."""
    cached: Settings | None = getattr(args, "_settings", None)
    if cached is None:
        from hotplate.config import load

        overrides = {option: getattr(args, dest, None) for dest, option in FLAGS.items()}
        files = [*args.config_file, *getattr(args, "sub_config_file", [])]
        dirs = [*args.config_dir, *getattr(args, "sub_config_dir", [])]
        cached = load(files, dirs, overrides=overrides)
        args._settings = cached
    return cached


def notifier(conf: Settings, rpc_url: str | None, host: str) -> Any:
    """The notifier ``[oslo_messaging_notifications]`` asks for, or None (no driver: the
    default). Build it in the process that sends: it runs a thread of its own.

    Raises:
        ValueError: a driver oslo.messaging does not have, or an unusable URL.
    """
    if not conf.notifications.enabled:
        return None
    from hotplate.config import use_for_messaging
    from hotplate.rpc.notifier import build_notifier

    use_for_messaging(conf.sources)
    settings_ = conf.notifications
    return build_notifier(list(settings_.drivers), settings_.transport_url or rpc_url,
                          list(settings_.topics), host)


def secret_box(args: argparse.Namespace, *, make: bool = True) -> SecretBox | None:
    """What the command encrypts secrets with: ``[DEFAULT]/auth_encryption_key``, else
    the key kept in ``--data-dir`` (made there, mode 0600, the first time, unless
    ``make`` is false: then None when there is none yet).

    Commands that read no secret (``api``, ``token ...``) pass ``make=False``: a key
    they made would be refused by the database, or worse, encrypt its secrets when
    they are the first to migrate it."""
    cached: SecretBox | None = getattr(args, "_secret_box", None)
    if cached is None:
        from hotplate.db.crypt import KEY_FILE, SecretBox, key_file

        conf = settings(args).secrets
        if conf.auth_encryption_key is not None:
            key, source = conf.auth_encryption_key, "as configured"
        elif make or (Path(args.data_dir) / KEY_FILE).exists():
            key, path = key_file(args.data_dir)
            source = f"unset: the key file {path.resolve()}"
        else:
            return None
        cached = SecretBox(key, source=source, encrypt_parameters_and_properties=(
            conf.encrypt_parameters_and_properties))
        args._secret_box = cached
    return cached


PREVIOUS_KEY_VARIABLE = "HOTPLATE_PREVIOUS_ENCRYPTION_KEY"


def previous_key(args: argparse.Namespace, *, required: bool) -> Any:
    """The key given as the command's ``previous_encryption_key`` argument, else in
    PREVIOUS_KEY_VARIABLE (which keeps it off the process list); None when neither
    is and it is not ``required``."""
    from hotplate.db.crypt import SecretBox

    key = args.previous_encryption_key or os.environ.get(PREVIOUS_KEY_VARIABLE)
    if not key:
        if required:
            raise SystemExit("error: give the previous auth_encryption_key (argument, or "
                             f"{PREVIOUS_KEY_VARIABLE})")
        return None
    from hotplate.db.crypt import OPTION, EncryptionKeyError

    try:
        return SecretBox(key, source="the previous key given")
    except EncryptionKeyError as exc:  # its text names the option: name the argument
        raise EncryptionKeyError(str(exc).replace(OPTION, "the previous key")) from None


def default_db_url(data_dir: str) -> str:
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path.resolve() / 'hotplate.sqlite'}"


def database_url(args: argparse.Namespace) -> str:
    """The command's database: ``[database]/connection`` (``--db-url``,
    HOTPLATE_DB_URL), else SQLite under ``--data-dir``.

    A URL whose driver is not installed (or that does not parse) ends the
    command at once with one line naming what to install, exit status 2,
    before anything else starts.
    """
    from hotplate.db.engine import DatabaseUrlError, require_driver

    url: str = settings(args).database.connection or default_db_url(args.data_dir)
    try:
        require_driver(url)
    except DatabaseUrlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return url


def auth_store(db_url: str) -> Any:
    from hotplate.db.auth_store import AuthStore
    from hotplate.db.engine import make_engine

    return AuthStore(make_engine(db_url, pool_size=4))
