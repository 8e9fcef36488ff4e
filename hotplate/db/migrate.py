"""Schema migrations, run from code: ``upgrade(url)``, ``current(url)``.

The Alembic scripts live in ``hotplate/db/migrations`` and ship with the
package, so an installed hotplate can migrate its database without an
alembic.ini or a source checkout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, pool, text
from sqlalchemy.engine import URL

from hotplate.db.engine import ensure_sqlite_directory, require_driver

MIGRATIONS = Path(__file__).with_name("migrations")

Database = str | URL | Engine
"""A URL, or an engine whose connections the migration borrows."""


def config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    """The newest revision the package knows."""
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def upgrade(db: Database, revision: str = "head") -> None:
    """Bring the schema up to ``revision`` (default: the newest)."""
    _run(db, lambda cfg: command.upgrade(cfg, revision))


def downgrade(db: Database, revision: str = "base") -> None:
    """Take the schema down to ``revision`` (default: no tables at all)."""
    _run(db, lambda cfg: command.downgrade(cfg, revision))


def current(db: Database) -> str | None:
    """The revision the database is at; None for a database never migrated."""
    with _connection(db) as conn:
        return MigrationContext.configure(conn).get_current_revision()


_LOCK_KEY = 0x686F74706C617465  # "hotplate"
"""The advisory lock that serialises migrations of engines starting together."""


def _run(db: Database, action: Callable[[Config], None]) -> None:
    with _connection(db) as conn:
        _lock_migrations(conn, take=True)
        try:
            cfg = config()
            cfg.attributes["connection"] = conn
            action(cfg)
            conn.commit()
        finally:
            conn.rollback()
            _lock_migrations(conn, take=False)


def _lock_migrations(conn: Connection, *, take: bool) -> None:
    """Take (or release) the lock that makes a concurrent migration wait for this one.

    Several engines started at once against a fresh server database would
    otherwise each try to create the same tables. SQLite needs nothing: its
    writer lock already serialises them.
    """
    dialect = conn.dialect.name
    if dialect == "postgresql":
        verb = "pg_advisory_lock" if take else "pg_advisory_unlock"
        conn.execute(text(f"SELECT {verb}(:key)"), {"key": _LOCK_KEY})
    elif dialect in ("mysql", "mariadb"):
        conn.execute(text("SELECT GET_LOCK('hotplate_migrate', 300)" if take
                          else "SELECT RELEASE_LOCK('hotplate_migrate')"))
    conn.commit()


@contextmanager
def _connection(db: Database) -> Iterator[Connection]:
    if isinstance(db, Engine):
        with db.connect() as conn:
            yield conn
        return
    ensure_sqlite_directory(db)
    engine = create_engine(require_driver(db), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()
