"""Durable event sinks' watermarks: events a dead engine never handed to the outbox
are found and sent.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0008"
down_revision = "0007"
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
        "event_sink_watermark",
        sa.Column("stack_id", sa.String(36), primary_key=True),
        sa.Column("sink_key", sa.String(64), primary_key=True),
        sa.Column("sink", JSON_TEXT, nullable=False),
        sa.Column("last_event_id", sa.Integer, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
        **MYSQL,
    )
    op.create_table(
        "event_sink_handed",
        sa.Column("stack_id", sa.String(36), primary_key=True),
        sa.Column("sink_key", sa.String(64), primary_key=True),
        sa.Column("event_id", sa.Integer, primary_key=True, autoincrement=False),
        **MYSQL,
    )


def downgrade() -> None:
    op.drop_table("event_sink_handed")
    op.drop_table("event_sink_watermark")
