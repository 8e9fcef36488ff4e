"""Secrets at rest: the secrets stored so far are encrypted with auth_encryption_key.

Stored credentials (user_creds' password and trust id), stack users' EC2 secret
keys and redacted resource data were kept as written; from here on they are
encrypted (hotplate/db/crypt.py), and so are those already there. The key
comes from whoever runs the migration (``migrate.upgrade(..., key=...)``); a
database holding secrets is not migrated without one. ``auth_key_check``
records which key the database's secrets are encrypted with.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import context, op
from sqlalchemy.dialects import mysql

from hotplate.db.crypt import METHOD, EncryptionKeyError, SecretBox

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
MYSQL: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}
CHUNK = 500

resource_data = sa.table("resource_data", sa.column("id", sa.Integer), sa.column("value"),
                         sa.column("redact", sa.Boolean), sa.column("decrypt_method"))
stack_user_key = sa.table("stack_user_key", sa.column("access_key"), sa.column("secret"),
                          sa.column("decrypt_method"))
user_creds = sa.table("user_creds", sa.column("id", sa.Integer), sa.column("password"),
                      sa.column("trust_id"), sa.column("decrypt_method"))

Convert = Callable[[str, str], str]
"""(what, value) -> the value converted: encrypted on the way up, decrypted down."""


def upgrade() -> None:
    conn = op.get_bind()
    # Asked before any DDL: MariaDB commits each DDL statement at once, so a migration
    # that stopped after one could not simply be run again.
    box = _box("encrypts the secrets stored so far") if _has_plain_secrets(conn) else None
    op.create_table(
        "auth_key_check",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("decrypt_method", sa.String(64), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        **MYSQL,
    )
    with op.batch_alter_table("stack_user_key") as batch:
        batch.alter_column("secret", type_=sa.String(255), existing_type=sa.String(64),
                           existing_nullable=False)
        batch.add_column(sa.Column("decrypt_method", sa.String(64)))
    if box is not None:
        _convert_all(conn, lambda what, value: box.encrypt(value)[1], METHOD,
                     encrypted=False)


def downgrade() -> None:
    conn = op.get_bind()
    if _has_encrypted_secrets(conn):
        box = _box("decrypts the stored secrets")
        _convert_all(conn, lambda what, value: box.decrypt(
            METHOD, value, what=what), None, encrypted=True)
    with op.batch_alter_table("stack_user_key") as batch:
        batch.drop_column("decrypt_method")
        batch.alter_column("secret", type_=sa.String(64), existing_type=sa.String(255),
                           existing_nullable=False)
    op.drop_table("auth_key_check")


def _box(does: str) -> SecretBox:
    box = context.config.attributes.get("secret_box")
    if box is None:
        raise EncryptionKeyError(
            f"migration 0010 {does} and needs [DEFAULT]/auth_encryption_key: run it "
            "with the configuration and data directory of the engines ('hotplate db sync')")
    return box  # type: ignore[no-any-return]


def _plain(column: Any) -> Any:
    return sa.or_(column.is_(None), column == "")


def _has_plain_secrets(conn: sa.Connection) -> bool:
    """Whether the database, before this migration, stores a secret (in plaintext)."""
    checks = [
        sa.select(resource_data.c.id).where(resource_data.c.redact.is_(True),
                                            resource_data.c.value.is_not(None),
                                            _plain(resource_data.c.decrypt_method)),
        sa.select(stack_user_key.c.access_key),
        sa.select(user_creds.c.id).where(
            sa.or_(user_creds.c.password.is_not(None), user_creds.c.trust_id.is_not(None)),
            _plain(user_creds.c.decrypt_method)),
    ]
    return any(conn.execute(check.limit(1)).first() is not None for check in checks)


def _has_encrypted_secrets(conn: sa.Connection) -> bool:
    checks = [sa.select(table.c.decrypt_method).where(table.c.decrypt_method == METHOD)
              for table in (resource_data, stack_user_key, user_creds)]
    return any(conn.execute(check.limit(1)).first() is not None for check in checks)


def _convert_all(conn: sa.Connection, convert: Convert, method: str | None, *,
                 encrypted: bool) -> None:
    """Every secret, converted in place, a chunk of rows per statement batch."""
    def chosen(column: Any) -> Any:
        return column == METHOD if encrypted else _plain(column)

    rd = resource_data
    rows: Any = conn.execute(sa.select(rd.c.id, rd.c.value).where(
        rd.c.redact.is_(True), rd.c.value.is_not(None), chosen(rd.c.decrypt_method))).all()
    _update(conn, rd, rd.c.id, [
        {"b_key": row.id, "value": convert(f"resource data {row.id}", row.value),
         "decrypt_method": method} for row in rows])
    sk = stack_user_key
    rows = conn.execute(sa.select(sk.c.access_key, sk.c.secret)
                        .where(chosen(sk.c.decrypt_method))).all()
    _update(conn, sk, sk.c.access_key, [
        {"b_key": row.access_key, "secret": convert("a stack user's secret key", row.secret),
         "decrypt_method": method} for row in rows])
    uc = user_creds
    rows = conn.execute(sa.select(uc.c.id, uc.c.password, uc.c.trust_id).where(
        sa.or_(uc.c.password.is_not(None), uc.c.trust_id.is_not(None)),
        chosen(uc.c.decrypt_method))).all()
    _update(conn, uc, uc.c.id, [
        {"b_key": row.id,
         "password": (convert(f"user_creds {row.id}", row.password)
                      if row.password is not None else None),
         "trust_id": (convert(f"user_creds {row.id}", row.trust_id)
                      if row.trust_id is not None else None),
         "decrypt_method": method} for row in rows])


def _update(conn: sa.Connection, table: Any, key: Any, params: list[dict[str, Any]]) -> None:
    if not params:
        return
    columns: dict[str, Any] = {name: sa.bindparam(name) for name in params[0]
                               if name != "b_key"}
    statement = sa.update(table).where(key == sa.bindparam("b_key")).values(columns)
    for start in range(0, len(params), CHUNK):
        conn.execute(statement, params[start:start + CHUNK])
