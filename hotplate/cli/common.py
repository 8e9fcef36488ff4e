"""What the command line's subcommands share: where the database is, the token store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = "var"


def default_db_url(data_dir: str) -> str:
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path.resolve() / 'hotplate.sqlite'}"


def auth_store(db_url: str) -> Any:
    from hotplate.db.auth_store import AuthStore
    from hotplate.db.engine import make_engine

    return AuthStore(make_engine(db_url, pool_size=4))
