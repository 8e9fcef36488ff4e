"""Backends for the Store contract suite: SQLite always, PostgreSQL and MariaDB when
there is one.

HOTPLATE_TEST_POSTGRES_URL / HOTPLATE_TEST_MYSQL_URL name the servers; unset,
the standard local ports are probed (5432, 3306), and set empty they turn the
backend off (tests/real_services.py). Their database is wiped and migrated
from scratch once per session, and every test starts from empty tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, MetaData, create_engine, delete, pool

from hotplate.db import migrate
from hotplate.db.engine import make_engine
from hotplate.db.schema import metadata
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock
from tests.real_services import MYSQL, POSTGRES, RealService, url_or_skip

BACKENDS: dict[str, RealService | None] = {
    "sqlite": None,
    "postgresql": POSTGRES,
    "mariadb": MYSQL,
}
POOL_SIZE = 24
"""Above the race tests' thread count, so a thread never waits for a connection."""


def drop_everything(url: str) -> None:
    """Drop every table of the database, ours or not (the test database is disposable)."""
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        found = MetaData()
        found.reflect(engine)
        found.drop_all(engine)
    finally:
        engine.dispose()


def backend_url(name: str, tmp_dir: Path) -> str:
    service = BACKENDS[name]
    if service is None:
        return f"sqlite:///{tmp_dir / 'hotplate.db'}"
    return url_or_skip(service)


@pytest.fixture(scope="session", params=list(BACKENDS))
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A freshly migrated database on each backend."""
    url = backend_url(request.param, tmp_path_factory.mktemp(request.param))
    drop_everything(url)
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="session")
def db_engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url, pool_size=POOL_SIZE)
    yield engine
    engine.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(db_engine: Engine, clock: FakeClock) -> SqlStore:
    """A store on empty tables."""
    with db_engine.begin() as conn:
        for table in reversed(metadata.sorted_tables):
            conn.execute(delete(table))
    return SqlStore(db_engine, clock)


@pytest.fixture
def backend(db_engine: Engine) -> str:
    """'sqlite', 'postgresql' or 'mariadb'."""
    dialect = db_engine.dialect
    return "mariadb" if dialect.name == "mysql" else dialect.name
