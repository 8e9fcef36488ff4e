"""A heat.conf's ``[database] connection`` may name Heat's own database: hotplate refuses
it in one line, before it writes anything, and never migrates it.

The Heat databases here are real: a SQLite file and a PostgreSQL database
made with tables of Heat's schema (as its Alembic initial revision creates
them, or as sqlalchemy-migrate left them before 2023).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, pool, text
from sqlalchemy.engine import make_url

from hotplate.db.migrate import ForeignDatabaseError, current, head, upgrade
from tests.real_services import POSTGRES, url_or_skip

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
MIGRATE = ["CREATE TABLE watch_rule (id INTEGER PRIMARY KEY, name VARCHAR(255))",
           "CREATE TABLE migrate_version (repository_id VARCHAR(250) PRIMARY KEY, "
           "repository_path TEXT, version INTEGER)",
           "INSERT INTO migrate_version VALUES ('heat', '/heat/db/migrate_repo', 86)"]


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


def hotplate(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
    return subprocess.run([sys.executable, "-m", "hotplate.cli.main", *args],
                          env={**env, "HOME": str(home)}, cwd=home, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("era", ["alembic", "sqlalchemy-migrate"])
def test_a_heat_sqlite_database_is_refused_and_left_alone(tmp_path: Path, era: str) -> None:
    url = f"sqlite:///{tmp_path}/heat.sqlite"
    build(url, HEAT_SCHEMA + (ALEMBIC if era == "alembic" else MIGRATE))
    before = tables(url)
    conf = tmp_path / "heat.conf"
    conf.write_text(f"[database]\nconnection = {url}\n")
    done = hotplate("db", "sync", "--config-file", str(conf), home=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    # software_config is hotplate's table too: only Heat's own tables are marks
    marks = ("tables raw_template_files; schema revision d2db381e3324"
             if era == "alembic" else "tables migrate_version, raw_template_files, "
             "watch_rule")
    assert last == (
        f"error: refusing to use the database at {url}: it is OpenStack Heat's ({marks}), "
        "not hotplate's. hotplate keeps a schema of its own and never migrates Heat's: set "
        "[database]/connection to a database for hotplate (an empty one is set up on "
        "first start)")
    assert tables(url) == before


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


@pytest.fixture
def heat_postgres() -> Iterator[str]:
    """A database of Heat's on the real PostgreSQL server, dropped afterwards."""
    server = url_or_skip(POSTGRES)
    name = f"hotplate_heatdb_{uuid.uuid4().hex[:8]}"
    admin = create_engine(make_url(server).set(database="postgres"),
                          poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        build(url, HEAT_SCHEMA + ALEMBIC)
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


def test_engine_refuses_a_heat_postgresql_database_before_it_forks(
        heat_postgres: str, tmp_path: Path) -> None:
    before = tables(heat_postgres)
    # As a heat.conf says it: the driverless postgresql:// form.
    heat_url = heat_postgres.replace("postgresql+psycopg://", "postgresql://")
    conf = tmp_path / "heat.conf"
    conf.write_text("[DEFAULT]\ntransport_url = rabbit://guest:guest@127.0.0.1:5672/\n"
                    f"num_engine_workers = 2\n[database]\nconnection = {heat_url}\n")
    done = hotplate("engine", "--config-file", str(conf), home=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # no engine process announced itself
    shown = make_url(heat_postgres).render_as_string(hide_password=True)
    assert done.stderr.splitlines()[-1].startswith(
        f"error: refusing to use the database at {shown}: it is OpenStack Heat's "
        "(tables raw_template_files; schema revision d2db381e3324)")
    assert tables(heat_postgres) == before
    assert current(heat_postgres) == "d2db381e3324"


@pytest.mark.parametrize("command", [["serve", "--noauth"], ["run", "t.yaml"],
                                     ["token", "create", "--project", "p", "--role", "admin"]])
def test_every_command_on_the_database_refuses_it(tmp_path: Path, command: list[str]) -> None:
    url = f"sqlite:///{tmp_path}/heat.sqlite"
    build(url, HEAT_SCHEMA + ALEMBIC)
    (tmp_path / "t.yaml").write_text("heat_template_version: 2021-04-16\n")
    done = hotplate("--db-url", url, *command, home=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        f"error: refusing to use the database at {url}: it is OpenStack Heat's")
