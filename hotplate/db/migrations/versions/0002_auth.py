"""Token authentication: the project and api_token tables.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0002"
down_revision = "0001"
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
        "project",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.UniqueConstraint("name", name="uq_project_name"),
        **MYSQL,
    )
    op.create_table(
        "api_token",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(36), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP),
        sa.Column("revoked_at", TIMESTAMP),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"], name="fk_api_token_project_id"),
        sa.UniqueConstraint("token_hash", name="uq_api_token_token_hash"),
        **MYSQL,
    )
    op.create_index("ix_api_token_project_id", "api_token", ["project_id"])


def downgrade() -> None:
    op.drop_table("api_token")
    op.drop_table("project")
