"""The migrations build exactly the schema the code declares, on every backend."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, pool

from hotplate.db import migrate
from hotplate.db.schema import metadata


def _schema_diff(url: str) -> list[Any]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            return set(inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_matches_the_models(db_url: str) -> None:
    # db_url is a database emptied and then upgraded from nothing.
    assert migrate.current(db_url) == migrate.head()
    assert _schema_diff(db_url) == []
    assert _tables(db_url) == {t.name for t in metadata.sorted_tables} | {"alembic_version"}


def test_downgrade_and_upgrade_again(db_url: str) -> None:
    migrate.downgrade(db_url)
    assert migrate.current(db_url) is None
    assert _tables(db_url) == {"alembic_version"}
    migrate.upgrade(db_url)
    assert migrate.current(db_url) == migrate.head()
    assert _schema_diff(db_url) == []


def test_upgrade_is_idempotent(db_url: str) -> None:
    migrate.upgrade(db_url)
    assert migrate.current(db_url) == migrate.head()


def test_migration_scripts_ship_inside_the_package() -> None:
    assert (migrate.MIGRATIONS / "env.py").is_file()
    assert (migrate.MIGRATIONS / "script.py.mako").is_file()
    assert list((migrate.MIGRATIONS / "versions").glob("0001_*.py"))
