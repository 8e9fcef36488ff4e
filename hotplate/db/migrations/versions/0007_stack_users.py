"""Stack users: EC2-style keys per resource, and the scope of TOKEN_SIGNAL tokens.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0007"
down_revision = "0006"
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
        "stack_user_key",
        sa.Column("access_key", sa.String(64), primary_key=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("resource_id", sa.Integer, nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("stack_name", sa.String(255), nullable=False),
        sa.Column("resource_name", sa.String(255), nullable=False),
        sa.Column("project", sa.String(256), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(["resource_id"], ["resource.id"],
                                name="fk_stack_user_key_resource_id", ondelete="CASCADE"),
        sa.UniqueConstraint("resource_id", name="uq_stack_user_key_resource_id"),
        **MYSQL,
    )
    op.create_table(
        "signal_token",
        sa.Column("token_id", sa.String(36), primary_key=True),
        sa.Column("resource_id", sa.Integer, nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("stack_name", sa.String(255), nullable=False),
        sa.Column("resource_name", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["token_id"], ["api_token.id"],
                                name="fk_signal_token_token_id", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["resource_id"], ["resource.id"],
                                name="fk_signal_token_resource_id", ondelete="CASCADE"),
        **MYSQL,
    )
    op.create_index("ix_signal_token_resource_id", "signal_token", ["resource_id"])


def downgrade() -> None:
    op.drop_table("signal_token")
    op.drop_table("stack_user_key")
