"""Schema migrations, run from code: ``upgrade(url)``, ``current(url)``.

The Alembic scripts live in ``hotplate/db/migrations`` and ship with the
package, so an installed hotplate can migrate its database without an
alembic.ini or a source checkout.

hotplate's tables carry Heat's names, so a heat.conf's ``[database]
connection`` could point hotplate at Heat's live database, where a migration
would alter tables heat-engine still uses. Before migrating (or going back),
a database without a hotplate revision that has a mark of Heat's schema
(a table only Heat has, sqlalchemy-migrate's ``migrate_version``, or an
Alembic revision that is not hotplate's) is refused with
``ForeignDatabaseError``, and nothing is written to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, inspect, pool, text
from sqlalchemy.engine import URL, make_url

from hotplate.db.crypt import SecretBox
from hotplate.db.engine import ensure_sqlite_directory, require_driver
from hotplate.db.key_check import verify_key
from hotplate.db.schema import metadata

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


def upgrade(db: Database, revision: str = "head", *, key: SecretBox | None = None) -> None:
    """Bring the schema up to ``revision`` (default: the newest).

    ``key`` encrypts the secrets a migration finds stored in plaintext (0010), and
    is then checked against the key the database's secrets are encrypted with
    (``key_check.verify_key``). Without it, a database holding such secrets is
    not migrated, and no key is checked.

    Raises:
        EncryptionKeyError: ``key`` is not the database's key, or a migration
            needed one.
    """
    _run(db, lambda cfg: command.upgrade(cfg, revision), key)


def downgrade(db: Database, revision: str = "base", *, key: SecretBox | None = None) -> None:
    """Take the schema down to ``revision`` (default: no tables at all); ``key``
    decrypts what a migration going back stores in plaintext again."""
    _run(db, lambda cfg: command.downgrade(cfg, revision), key, check=False)


def current(db: Database) -> str | None:
    """The revision the database is at; None for a database never migrated."""
    with _connection(db) as conn:
        return MigrationContext.configure(conn).get_current_revision()


_LOCK_KEY = 0x686F74706C617465  # "hotplate"
"""The advisory lock that serialises migrations of engines starting together."""


class ForeignDatabaseError(ValueError):
    """The database is another schema's (OpenStack Heat's): hotplate will not migrate
    it. The text is one line for the user, the URL shown without its password."""


HEAT_TABLES = frozenset({
    "raw_template", "raw_template_files", "user_creds", "service", "stack", "stack_lock",
    "stack_tag", "resource", "resource_data", "resource_properties_data", "event",
    "sync_point", "snapshot", "resource_snapshot", "software_config",
    "software_deployment", "watch_rule", "watch_data", "migrate_version",
})
"""Every table Heat's schema has had (Icehouse to 2026.2), with sqlalchemy-migrate's
version table; those hotplate's schema lacks are the marks of Heat's database."""

HEAT_REVISIONS = frozenset({"c6214ca60943", "88be64598c0f", "97b2a986f922",
                            "d2db381e3324"})
"""Heat's Alembic revisions (2023.1 on), named in the refusal."""


def refuse_foreign(conn: Connection) -> None:
    """Raise ForeignDatabaseError unless hotplate may migrate the database of ``conn``.

    A database at one of hotplate's revisions is hotplate's; an empty one, or one
    with unrelated tables, becomes hotplate's. Only Heat's marks are refused.
    """
    revision = MigrationContext.configure(conn).get_current_revision()
    script = ScriptDirectory.from_config(config())
    ours = {rev.revision for rev in script.walk_revisions()}
    if revision in ours:
        return
    marks = sorted((set(inspect(conn).get_table_names()) & HEAT_TABLES)
                   - set(metadata.tables))
    if revision is None and not marks:
        return
    where = make_url(conn.engine.url).render_as_string(hide_password=True)
    found = [f"tables {', '.join(marks)}"] if marks else []
    if revision is not None:
        found.append(f"schema revision {revision}")
    whose = ("OpenStack Heat's" if marks or revision in HEAT_REVISIONS
             else "another program's")
    raise ForeignDatabaseError(
        f"refusing to use the database at {where}: it is {whose} "
        f"({'; '.join(found)}), not hotplate's. hotplate keeps a schema of its own and "
        "never migrates Heat's: set [database]/connection to a database for hotplate "
        "(an empty one is set up on first start)")


def _run(db: Database, action: Callable[[Config], None], key: SecretBox | None, *,
         check: bool = True) -> None:
    with _connection(db) as conn:
        _lock_migrations(conn, take=True)
        try:
            refuse_foreign(conn)
            cfg = config()
            cfg.attributes["connection"] = conn
            cfg.attributes["secret_box"] = key
            action(cfg)
            if check and key is not None and inspect(conn).has_table("auth_key_check"):
                verify_key(conn, key)
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
