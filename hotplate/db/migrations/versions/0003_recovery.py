"""Recovery: claims decided through the database, attempts recorded by test plugins,
and an index to find the resources a dead engine holds.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0003"
down_revision = "0002"
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
        "engine_claim",
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("engine_id", sa.String(36), nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        **MYSQL,
    )
    op.create_table(
        "resource_attempt",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("resource_uuid", sa.String(36), nullable=False),
        sa.Column("resource_name", sa.String(255), nullable=False),
        sa.Column("action", sa.String(255), nullable=False),
        sa.Column("token", sa.String(36), nullable=False),
        sa.Column("retry", sa.Boolean, nullable=False),
        sa.Column("engine_id", sa.String(36), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        **MYSQL,
    )
    op.create_index("ix_resource_attempt_stack_id", "resource_attempt", ["stack_id"])
    op.create_index("ix_resource_engine_id", "resource", ["engine_id"])


def downgrade() -> None:
    op.drop_index("ix_resource_engine_id", table_name="resource")
    op.drop_table("resource_attempt")
    op.drop_table("engine_claim")
