"""Software configs and deployments, with Heat's table and column names.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSON = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
MYSQL: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def _timestamps() -> list[sa.Column[Any]]:
    return [
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
    ]


def upgrade() -> None:
    op.create_table(
        "software_config",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255)),
        sa.Column("group", sa.String(255)),
        sa.Column("config", JSON),
        sa.Column("tenant", sa.String(256), nullable=False),
        *_timestamps(),
        **MYSQL,
    )
    op.create_index("ix_software_config_tenant", "software_config", ["tenant"])
    op.create_table(
        "software_deployment",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("config_id", sa.String(36),
                  sa.ForeignKey("software_config.id", name="fk_software_deployment_config_id"),
                  nullable=False),
        sa.Column("server_id", sa.String(36), nullable=False),
        sa.Column("input_values", JSON),
        sa.Column("output_values", JSON),
        sa.Column("action", sa.String(255)),
        sa.Column("status", sa.String(255)),
        sa.Column("status_reason", sa.Text),
        sa.Column("tenant", sa.String(256), nullable=False),
        sa.Column("stack_user_project_id", sa.String(64)),
        *_timestamps(),
        **MYSQL,
    )
    op.create_index("ix_software_deployment_server_id", "software_deployment", ["server_id"])
    op.create_index("ix_software_deployment_tenant", "software_deployment", ["tenant"])


def downgrade() -> None:
    op.drop_table("software_deployment")
    op.drop_table("software_config")
