"""The request ledger: an engine-topic write asked twice (by request id) is done once.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0009"
down_revision = "0008"
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
        "engine_request",
        sa.Column("request_id", sa.String(255), primary_key=True),
        sa.Column("method", sa.String(64), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("engine_id", sa.String(36), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("answer", JSON_TEXT),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
        **MYSQL,
    )
    op.create_index("ix_engine_request_created_at", "engine_request", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_engine_request_created_at", table_name="engine_request")
    op.drop_table("engine_request")
