"""Migration 0010, on every backend: the secrets stored before it (redacted resource
data, stack users' secret keys, stored credentials) are encrypted by it and read back the
same after it; without a key it refuses before touching anything; going back decrypts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, column, create_engine, delete, insert, inspect, pool, select
from sqlalchemy import table as sa_table

from hotplate.db import migrate
from hotplate.db import schema as s
from hotplate.db.crypt import METHOD, EncryptionKeyError, SecretBox
from hotplate.db.key_check import verify_key
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock, make_resource, make_stack

KEY = SecretBox("m" * 32)
BEFORE = ScriptDirectory.from_config(migrate.config()).get_revision("0010").down_revision
NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def old_database(db_url: str) -> Iterator[Engine]:
    """The session's database taken back to the revision before 0010, emptied; brought
    back to the newest, emptied again, afterwards."""
    engine = create_engine(db_url, poolclass=pool.NullPool)
    _empty(engine)
    migrate.downgrade(db_url, str(BEFORE))
    try:
        yield engine
    finally:
        present = set(inspect(engine).get_table_names())  # the tables of that revision
        _empty(engine, tables=[t for t in reversed(s.metadata.sorted_tables)
                               if t.name in present])
        migrate.upgrade(db_url)
        _empty(engine)
        engine.dispose()


def _empty(engine: Engine, tables: list[Any] | None = None) -> None:
    with engine.begin() as conn:
        for table in tables if tables is not None else reversed(s.metadata.sorted_tables):
            conn.execute(delete(table))


def _write_old_rows(engine: Engine, clock: FakeClock) -> dict[str, Any]:
    """Rows as the code before 0010 wrote them: every secret in plaintext."""
    store = SqlStore(engine, clock)
    stack = make_stack(store, clock)
    rid = make_resource(store, stack, "server")
    old_key = sa_table("stack_user_key", *(column(c.name) for c in s.stack_user_key.c
                                            if c.name != "decrypt_method"))
    with engine.begin() as conn:
        conn.execute(insert(s.resource_data), [
            {"resource_id": rid, "key": "secret_key", "value": "ec2-s3cret", "redact": True,
             "created_at": NOW},
            {"resource_id": rid, "key": "signal_token", "value": "tok-s3cret",
             "redact": True, "decrypt_method": "", "created_at": NOW},
            {"resource_id": rid, "key": "pre-create", "value": "pending", "redact": False,
             "created_at": NOW},
        ])
        conn.execute(insert(old_key).values(
            access_key="AK0001", secret="0123456789abcdef0123456789abcdef01234567",
            resource_id=rid, stack_id=stack.id, stack_name=stack.name,
            resource_name="server", project="p", created_at=NOW))
        trust = conn.execute(insert(s.user_creds).values(
            trust_id="trust-s3cret", trustor_user_id="u", created_at=NOW)).inserted_primary_key
        password = conn.execute(insert(s.user_creds).values(
            username="demo", password="pa55-s3cret", created_at=NOW)).inserted_primary_key
    return {"resource": rid, "trust": trust[0], "password": password[0]}


def _raw(engine: Engine) -> str:
    """Every value of the secret-bearing columns, as text (sorted)."""
    with engine.connect() as conn:
        return repr([sorted(map(str, conn.execute(select(*columns)))) for columns in (
            (s.resource_data.c.key, s.resource_data.c.value),
            (s.stack_user_key.c.access_key, s.stack_user_key.c.secret),
            (s.user_creds.c.id, s.user_creds.c.password, s.user_creds.c.trust_id))])


def test_rows_written_before_read_back_the_same_after(
        db_url: str, old_database: Engine, clock: FakeClock) -> None:
    made = _write_old_rows(old_database, clock)
    migrate.upgrade(db_url, key=KEY)
    assert migrate.current(db_url) == migrate.head()
    raw = _raw(old_database)
    for secret in ("ec2-s3cret", "tok-s3cret", "0123456789abcdef", "trust-s3cret",
                   "pa55-s3cret"):
        assert secret not in raw
    assert "pending" in raw  # not a secret: left as it was
    store = SqlStore(old_database, clock, KEY)
    assert store.get_resource_data(made["resource"]) == {
        "secret_key": "ec2-s3cret", "signal_token": "tok-s3cret", "pre-create": "pending"}
    key = store.find_stack_user_key("AK0001")
    assert key is not None and key.secret == "0123456789abcdef0123456789abcdef01234567"
    assert getattr(store.get_user_creds(made["trust"]), "trust_id", None) == "trust-s3cret"
    assert getattr(store.get_user_creds(made["password"]), "password", None) == "pa55-s3cret"
    with old_database.connect() as conn:
        assert {m for (m,) in conn.execute(select(s.user_creds.c.decrypt_method))} == {METHOD}
    verify_key(old_database, KEY)  # the migrating key is the database's
    with pytest.raises(EncryptionKeyError):
        verify_key(old_database, SecretBox("x" * 32))
    migrate.upgrade(db_url, key=KEY)  # again: nothing encrypted twice
    assert store.get_resource_data(made["resource"])["secret_key"] == "ec2-s3cret"


def test_without_a_key_it_refuses_and_changes_nothing(
        db_url: str, old_database: Engine, clock: FakeClock) -> None:
    _write_old_rows(old_database, clock)
    before = _raw(old_database)
    with pytest.raises(EncryptionKeyError, match=r"migration 0010 encrypts the secrets "
                       r"stored so far and needs \[DEFAULT\]/auth_encryption_key"):
        migrate.upgrade(db_url)
    assert migrate.current(db_url) == BEFORE
    assert _raw(old_database) == before
    migrate.upgrade(db_url, key=KEY)
    assert migrate.current(db_url) == migrate.head()


def test_going_back_decrypts(db_url: str, old_database: Engine, clock: FakeClock) -> None:
    made = _write_old_rows(old_database, clock)
    before = _raw(old_database)
    migrate.upgrade(db_url, key=KEY)
    with pytest.raises(EncryptionKeyError, match="decrypts the stored secrets"):
        migrate.downgrade(db_url, str(BEFORE))
    migrate.downgrade(db_url, str(BEFORE), key=KEY)
    assert migrate.current(db_url) == BEFORE
    after = _raw(old_database)
    for secret in ("ec2-s3cret", "tok-s3cret", "trust-s3cret", "pa55-s3cret"):
        assert secret in after
    assert after == before
    assert made["resource"]
