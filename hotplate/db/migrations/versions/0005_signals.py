"""Signals: each stored before resource_signal answers, applied once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
JSON_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
MYSQL: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def upgrade() -> None:
    op.create_table(
        "resource_signal",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("resource_id", sa.Integer, nullable=False),
        sa.Column("signal_id", sa.String(255), nullable=False),
        sa.Column("details", JSON_TEXT),
        sa.Column("received_at", TIMESTAMP, nullable=False),
        sa.Column("attempted_at", TIMESTAMP, nullable=False),
        sa.Column("applied_at", TIMESTAMP),
        sa.UniqueConstraint("resource_id", "signal_id",
                            name="uq_resource_signal_resource_id_signal_id"),
        **MYSQL,
    )
    op.create_index("ix_resource_signal_applied_at", "resource_signal", ["applied_at"])


def downgrade() -> None:
    op.drop_index("ix_resource_signal_applied_at", table_name="resource_signal")
    op.drop_table("resource_signal")
