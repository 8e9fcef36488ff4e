"""A fresh database beside the one a URL names (PostgreSQL or MariaDB), for the scale-out
and partition tests and ``benchmarks/scale_out.py``."""

from __future__ import annotations

import contextlib

from sqlalchemy import Engine, create_engine, pool, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from hotplate.db import migrate


def _admin(url: str) -> Engine:
    parsed = make_url(url)
    maintenance = "postgres" if parsed.get_backend_name() == "postgresql" else "mysql"
    return create_engine(parsed.set(database=maintenance), poolclass=pool.NullPool,
                         isolation_level="AUTOCOMMIT")


def fresh_database(url: str, name: str) -> str:
    """Drop and create database ``name`` on the server of ``url``, migrate it; its URL.

    Any connection still open to the old one (a killed engine's) is ended.
    """
    ours = empty_database(url, name)
    migrate.upgrade(ours)
    return ours


def empty_database(url: str, name: str) -> str:
    """Drop and create database ``name`` on the server of ``url``, empty; its URL (the
    driver and credentials of ``url``)."""
    drop_database(url, name)
    admin = _admin(url)
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
    finally:
        admin.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


fresh_postgres_database = fresh_database


def drop_database(url: str, name: str) -> None:
    """Drop database ``name`` on the server of ``url``, ending any connection to it."""
    admin = _admin(url)
    try:
        with admin.connect() as conn:
            if admin.dialect.name == "postgresql":
                conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                return
            sessions = conn.execute(text(
                "SELECT id FROM information_schema.processlist WHERE db = :d"),
                {"d": name}).scalars().all()
            for session in sessions:
                with contextlib.suppress(OperationalError):  # it ended meanwhile
                    conn.execute(text(f"KILL {int(session)}"))
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
    finally:
        admin.dispose()
