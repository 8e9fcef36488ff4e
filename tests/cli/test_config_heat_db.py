"""A heat.conf's ``[database] connection`` may name Heat's own database: hotplate refuses
it in one line, before it writes anything, and never migrates it.

The Heat databases here are real SQLite files made with tables of Heat's
schema (as its Alembic initial revision creates them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, pool, text

from hotplate.db.migrate import ForeignDatabaseError, current, head, upgrade

HEAT_SCHEMA = [
    "CREATE TABLE raw_template_files (id INTEGER PRIMARY KEY, files TEXT)",
    "CREATE TABLE raw_template (id INTEGER PRIMARY KEY, template TEXT, files_id INTEGER)",
    "CREATE TABLE stack (id VARCHAR(36) PRIMARY KEY, name VARCHAR(255), "
    "raw_template_id INTEGER NOT NULL, disable_rollback BOOLEAN NOT NULL)",
    "CREATE TABLE resource (id INTEGER PRIMARY KEY, stack_id VARCHAR(36), "
    "engine_id VARCHAR(36), atomic_key INTEGER)",
    "CREATE TABLE software_config (id VARCHAR(36) PRIMARY KEY, name VARCHAR(255), "
    "tenant VARCHAR(64) NOT NULL)",
    "CREATE TABLE sync_point (entity_id VARCHAR(36), traversal_id VARCHAR(36), "
    "is_update BOOLEAN, atomic_key INTEGER, stack_id VARCHAR(36))",
    "CREATE TABLE service (id VARCHAR(36) PRIMARY KEY, engine_id VARCHAR(36))",
    "INSERT INTO stack VALUES ('s-1', 'production', 1, FALSE)",
]
ALEMBIC = ["CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
           "INSERT INTO alembic_version VALUES ('d2db381e3324')"]


def build(url: str, statements: list[str]) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            return set(inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_the_library_refuses_it_too(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/heat.sqlite"
    build(url, HEAT_SCHEMA + ALEMBIC)
    with pytest.raises(ForeignDatabaseError, match="it is OpenStack Heat's"):
        upgrade(url)
    assert current(url) == "d2db381e3324"


def test_another_programs_revision_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/other.sqlite"
    build(url, ["CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
                "INSERT INTO alembic_version VALUES ('abc123')"])
    with pytest.raises(ForeignDatabaseError,
                       match=r"it is another program's \(schema revision abc123\)"):
        upgrade(url)


def test_hotplates_own_and_empty_databases_migrate(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/ours.sqlite"
    build(url, ["CREATE TABLE unrelated (id INTEGER)"])  # not Heat's: it stays
    upgrade(url)
    upgrade(url)  # at a hotplate revision: up to date, not refused
    assert current(url) == head()
    assert {"stack", "sync_point_input", "unrelated"} <= tables(url)
