"""The initial schema: Heat's convergence tables plus sync_point_input.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

Types are spelled out here rather than imported, so this revision stays the
same whatever later code does: JSON is text (LONGTEXT on MySQL/MariaDB),
timestamps are naive UTC with microseconds.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
MYSQL: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP),
    ]


def upgrade() -> None:
    op.create_table(
        "raw_template",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("template", JSON),
        sa.Column("files", JSON),
        sa.Column("environment", JSON),
        *_timestamps(),
        **MYSQL,
    )
    op.create_table(
        "user_creds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(255)),
        sa.Column("password", sa.String(255)),
        sa.Column("region_name", sa.String(255)),
        sa.Column("decrypt_method", sa.String(64)),
        sa.Column("tenant", sa.String(1024)),
        sa.Column("auth_url", sa.Text),
        sa.Column("tenant_id", sa.String(256)),
        sa.Column("trust_id", sa.String(255)),
        sa.Column("trustor_user_id", sa.String(64)),
        *_timestamps(),
        **MYSQL,
    )
    op.create_table(
        "stack",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("raw_template_id", sa.Integer, nullable=False),
        sa.Column("prev_raw_template_id", sa.Integer),
        sa.Column("username", sa.String(256)),
        sa.Column("user_id", sa.String(64)),
        sa.Column("tenant", sa.String(256)),
        sa.Column("user_creds_id", sa.Integer),
        sa.Column("owner_id", sa.String(36)),
        sa.Column("parent_resource_name", sa.String(255)),
        sa.Column("timeout", sa.Integer),
        sa.Column("disable_rollback", sa.Boolean, nullable=False),
        sa.Column("stack_user_project_id", sa.String(64)),
        sa.Column("nested_depth", sa.Integer, nullable=False),
        sa.Column("convergence", sa.Boolean, nullable=False),
        sa.Column("current_traversal", sa.String(36)),
        sa.Column("current_deps", JSON),
        sa.Column("action", sa.String(255)),
        sa.Column("status", sa.String(255)),
        sa.Column("status_reason", sa.Text),
        *_timestamps(),
        sa.Column("deleted_at", TIMESTAMP),
        sa.ForeignKeyConstraint(
            ["raw_template_id"], ["raw_template.id"], name="fk_stack_raw_template_id"
        ),
        sa.ForeignKeyConstraint(
            ["prev_raw_template_id"], ["raw_template.id"], name="fk_stack_prev_raw_template_id"
        ),
        sa.ForeignKeyConstraint(
            ["user_creds_id"], ["user_creds.id"], name="fk_stack_user_creds_id"
        ),
        **MYSQL,
    )
    op.create_index("ix_stack_tenant_name", "stack", ["tenant", "name"])
    op.create_index("ix_stack_owner_id", "stack", ["owner_id"])

    op.create_table(
        "stack_tag",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tag", sa.String(80)),
        sa.Column("stack_id", sa.String(36), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], name="fk_stack_tag_stack_id"),
        **MYSQL,
    )
    op.create_index("ix_stack_tag_stack_id", "stack_tag", ["stack_id"])

    op.create_table(
        "resource_properties_data",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("data", JSON),
        sa.Column("encrypted", sa.Boolean),
        *_timestamps(),
        **MYSQL,
    )
    op.create_table(
        "resource",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("nova_instance", sa.String(255)),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("type", sa.String(255), nullable=False),
        sa.Column("action", sa.String(255), nullable=False),
        sa.Column("status", sa.String(255), nullable=False),
        sa.Column("status_reason", sa.Text),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("rsrc_metadata", JSON),
        sa.Column("properties_data", JSON),
        sa.Column("engine_id", sa.String(36)),
        sa.Column("atomic_key", sa.Integer, nullable=False),
        sa.Column("needed_by", JSON),
        sa.Column("requires", JSON),
        sa.Column("replaces", sa.Integer),
        sa.Column("replaced_by", sa.Integer),
        sa.Column("current_template_id", sa.Integer),
        sa.Column("root_stack_id", sa.String(36)),
        sa.Column("rsrc_prop_data_id", sa.Integer),
        sa.Column("attr_data_id", sa.Integer),
        *_timestamps(),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], name="fk_resource_stack_id"),
        sa.ForeignKeyConstraint(
            ["current_template_id"], ["raw_template.id"], name="fk_resource_current_template_id"
        ),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="fk_resource_rsrc_prop_data_id",
        ),
        sa.ForeignKeyConstraint(
            ["attr_data_id"], ["resource_properties_data.id"], name="fk_resource_attr_data_id"
        ),
        sa.UniqueConstraint("uuid", name="uq_resource_uuid"),
        **MYSQL,
    )
    op.create_index("ix_resource_stack_id", "resource", ["stack_id"])
    op.create_index("ix_resource_root_stack_id", "resource", ["root_stack_id"])

    op.create_table(
        "resource_data",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("resource_id", sa.Integer, nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.Text),
        sa.Column("redact", sa.Boolean),
        sa.Column("decrypt_method", sa.String(64)),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["resource.id"],
            name="fk_resource_data_resource_id",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("resource_id", "key", name="uq_resource_data_resource_id_key"),
        **MYSQL,
    )
    op.create_table(
        "event",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("resource_action", sa.String(255)),
        sa.Column("resource_status", sa.String(255)),
        sa.Column("resource_name", sa.String(255)),
        sa.Column("physical_resource_id", sa.String(255)),
        sa.Column("resource_status_reason", sa.Text),
        sa.Column("resource_type", sa.String(255)),
        sa.Column("rsrc_prop_data_id", sa.Integer),
        *_timestamps(),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"],
            ["resource_properties_data.id"],
            name="fk_event_rsrc_prop_data_id",
        ),
        sa.UniqueConstraint("uuid", name="uq_event_uuid"),
        **MYSQL,
    )
    op.create_index("ix_event_stack_id_id", "event", ["stack_id", "id"])

    op.create_table(
        "sync_point",
        sa.Column("entity_id", sa.String(36), nullable=False),
        sa.Column("traversal_id", sa.String(36), nullable=False),
        sa.Column("is_update", sa.Boolean, nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("atomic_key", sa.Integer, nullable=False),
        sa.Column("input_data", JSON),
        sa.Column("extra_data", JSON),
        sa.Column("remaining", sa.Integer, nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("entity_id", "traversal_id", "is_update", name="pk_sync_point"),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], name="fk_sync_point_stack_id"),
        **MYSQL,
    )
    op.create_index("ix_sync_point_stack_id", "sync_point", ["stack_id"])

    op.create_table(
        "sync_point_input",
        sa.Column("entity_id", sa.String(36), nullable=False),
        sa.Column("traversal_id", sa.String(36), nullable=False),
        sa.Column("is_update", sa.Boolean, nullable=False),
        sa.Column("sender", sa.String(255), nullable=False),
        sa.Column("data", JSON),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint(
            "entity_id", "traversal_id", "is_update", "sender", name="pk_sync_point_input"
        ),
        sa.ForeignKeyConstraint(
            ["entity_id", "traversal_id", "is_update"],
            ["sync_point.entity_id", "sync_point.traversal_id", "sync_point.is_update"],
            name="fk_sync_point_input_sync_point",
            ondelete="CASCADE",
        ),
        **MYSQL,
    )
    op.create_table(
        "stack_lock",
        sa.Column("stack_id", sa.String(36), primary_key=True),
        sa.Column("engine_id", sa.String(36)),
        *_timestamps(),
        sa.ForeignKeyConstraint(["stack_id"], ["stack.id"], name="fk_stack_lock_stack_id"),
        **MYSQL,
    )
    op.create_table(
        "service",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("engine_id", sa.String(36), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("hostname", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("report_interval", sa.Integer, nullable=False),
        *_timestamps(),
        sa.Column("deleted_at", TIMESTAMP),
        **MYSQL,
    )


def downgrade() -> None:
    for table in (
        "service",
        "stack_lock",
        "sync_point_input",
        "sync_point",
        "event",
        "resource_data",
        "resource",
        "resource_properties_data",
        "stack_tag",
        "stack",
        "user_creds",
        "raw_template",
    ):
        op.drop_table(table)
