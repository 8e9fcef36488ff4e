"""Stack snapshots: Heat's ``snapshot`` and ``resource_snapshot`` tables.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0012"
down_revision = "0011"
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
        "snapshot",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("stack_id", sa.String(36),
                  sa.ForeignKey("stack.id", name="fk_snapshot_stack_id"), nullable=False),
        sa.Column("name", sa.String(255)),
        sa.Column("data", JSON_TEXT),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("action", sa.String(255)),
        sa.Column("status", sa.String(255)),
        sa.Column("status_reason", sa.String(255)),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
        sa.Index("ix_snapshot_stack_id", "stack_id"),
        sa.Index("ix_snapshot_tenant", "tenant"),
        **MYSQL,
    )
    op.create_table(
        "resource_snapshot",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("snapshot_id", sa.String(36),
                  sa.ForeignKey("snapshot.id", name="fk_resource_snapshot_snapshot_id",
                                ondelete="CASCADE"),
                  nullable=False),
        sa.Column("resource_name", sa.String(255)),
        sa.Column("data", JSON_TEXT),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
        sa.Index("ix_resource_snapshot_snapshot_id", "snapshot_id"),
        **MYSQL,
    )


def downgrade() -> None:
    # Written to run twice: where DDL commits at once (MariaDB, SQLite's driver), an
    # earlier migration failing further down leaves this one done but not recorded.
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for table in ("resource_snapshot", "snapshot"):
        if table in present:
            op.drop_table(table)
