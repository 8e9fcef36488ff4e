"""What the command line's subcommands share: where the database is, the token store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = "var"


def default_db_url(data_dir: str) -> str:
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path.resolve() / 'hotplate.sqlite'}"


def database_url(args: argparse.Namespace) -> str:
    """The command's database: ``--db-url`` (or HOTPLATE_DB_URL), else SQLite under
    ``--data-dir``.

    A URL whose driver is not installed (or that does not parse) ends the
    command at once with one line naming what to install, exit status 2,
    before anything else starts.
    """
    from hotplate.db.engine import DatabaseUrlError, require_driver

    url: str = args.db_url or default_db_url(args.data_dir)
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
