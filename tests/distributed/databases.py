"""A fresh PostgreSQL database beside the one a URL names, for the scale-out tests and
``benchmarks/scale_out.py``."""

from __future__ import annotations

from sqlalchemy import create_engine, pool, text
from sqlalchemy.engine import make_url

from hotplate.db import migrate


def fresh_postgres_database(url: str, name: str) -> str:
    """Drop and create database ``name`` on the server of ``url``, migrate it; its URL.

    Any connection still open to the old one (a killed engine's) is ended.
    """
    admin = create_engine(make_url(url).set(database="postgres"),
                          poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            conn.execute(text(f"CREATE DATABASE {name}"))
    finally:
        admin.dispose()
    ours = make_url(url).set(database=name).render_as_string(hide_password=False)
    migrate.upgrade(ours)
    return ours


def drop_database(url: str, name: str) -> None:
    """Drop database ``name`` on the server of ``url``, ending any connection to it."""
    admin = create_engine(make_url(url).set(database="postgres"),
                          poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    finally:
        admin.dispose()
