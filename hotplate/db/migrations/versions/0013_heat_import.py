"""Stacks brought over from a Heat database (``hotplate manage import-heat``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
MYSQL: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def upgrade() -> None:
    op.create_table(
        "heat_import",
        sa.Column("stack_id", sa.String(36), primary_key=True),
        sa.Column("heat_fingerprint", sa.String(64), nullable=False),
        sa.Column("local_fingerprint", sa.String(64), nullable=False),
        sa.Column("source", sa.String(255), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
        **MYSQL,
    )


def downgrade() -> None:
    # Written to run twice: where DDL commits at once (MariaDB, SQLite's driver), a
    # later failure leaves this one done but not recorded.
    if "heat_import" in set(sa.inspect(op.get_bind()).get_table_names()):
        op.drop_table("heat_import")
