"""The event sinks' outbox: events waiting for a durable sink (a webhook) to take them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0006"
down_revision = "0005"
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
        "event_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("event_uuid", sa.String(36), nullable=False),
        sa.Column("sink_key", sa.String(64), nullable=False),
        sa.Column("sink", JSON_TEXT, nullable=False),
        sa.Column("body", JSON_TEXT, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TIMESTAMP, nullable=False),
        sa.Column("claimed_by", sa.String(36)),
        sa.Column("claimed_until", TIMESTAMP),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        **MYSQL,
    )
    op.create_index("ix_event_outbox_next_attempt_at", "event_outbox", ["next_attempt_at"])
    op.create_index("ix_event_outbox_sink", "event_outbox", ["stack_id", "sink_key", "id"])


def downgrade() -> None:
    op.drop_index("ix_event_outbox_sink", table_name="event_outbox")
    op.drop_index("ix_event_outbox_next_attempt_at", table_name="event_outbox")
    op.drop_table("event_outbox")
