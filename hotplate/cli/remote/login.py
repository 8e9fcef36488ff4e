"""``hotplate login``: check an API URL and token, and save them for later commands.

The settings go to ``$XDG_CONFIG_HOME/hotplate/config.json`` (by default
``~/.config/hotplate/config.json``), readable by its owner only. Nothing is
saved when the server refuses the token or cannot be reached, unless
``--no-verify`` says to save anyway.
"""

from __future__ import annotations

import argparse
import os

from hotplate.cli.remote.commands import Subparsers, guarded
from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.settings import (
    ENV_TOKEN,
    ENV_URL,
    Connection,
    config_path,
    endpoint_for,
    write_config,
)


def login(args: argparse.Namespace) -> int:
    url = args.url or os.environ.get(ENV_URL)
    if not url:
        raise CommandError(f"no API URL: pass --url (or set {ENV_URL})")
    connection = Connection(endpoint_for(url, args.project),
                            args.token or os.environ.get(ENV_TOKEN) or None)
    if not args.no_verify:
        from hotplate.cli.remote.client import HeatClient

        with HeatClient(connection, timeout=30) as client:
            try:
                client.call("GET", "/stacks", params={"limit": 1})
            except CommandError as exc:
                raise CommandError(f"{exc.message} Nothing was saved (--no-verify saves "
                                   "anyway).")
    path = config_path()
    settings = {"url": connection.endpoint}
    if connection.token:
        settings["token"] = connection.token
    write_config(path, settings)
    print(f"Saved the API URL {connection.endpoint}"
          + (" and its token" if connection.token else "") + f" in {path}")
    return 0


def register(subparsers: Subparsers) -> None:
    help_text = "Save the API URL and token that `hotplate stack ...` commands use."
    p = subparsers.add_parser("login", help=help_text, description=help_text)
    p.add_argument("--url", help="the API, e.g. http://127.0.0.1:8004/v1/admin "
                                 "(default: $HOTPLATE_URL)")
    p.add_argument("--token", help="the API token (default: $HOTPLATE_TOKEN)")
    p.add_argument("--project", help="the project, when --url is the server's root")
    p.add_argument("--no-verify", action="store_true",
                   help="save without checking that the server accepts the token")
    p.set_defaults(func=guarded(login))
