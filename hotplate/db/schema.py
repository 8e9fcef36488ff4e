"""The tables, as SQLAlchemy Core ``Table`` objects.

Names and column meanings follow Heat's (``nova_instance`` is the physical
resource id, ``tenant`` the project id, ``timeout`` minutes). Our additions:
``resource.type``; ``stack.user_id``; ``sync_point.remaining`` and the
``sync_point_input`` table, which together turn a sync point from a hot row
rewritten by every predecessor into an insert per predecessor plus one
atomic decrement.

``event.stack_id`` deliberately has no foreign key: every state change writes
an event, and a foreign key check would take a lock on the stack row in each
of those transactions (a shared lock on InnoDB that blocks stack updates).

The migrations in ``migrations/versions`` create exactly this schema; a test
compares the two on every backend.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from hotplate.db.schema_common import MYSQL_TABLE_ARGS, metadata, timestamps
from hotplate.db.schema_delivery import (
    api_token,
    auth_key_check,
    event_outbox,
    event_sink_handed,
    event_sink_watermark,
    project,
    resource_signal,
    signal_token,
    software_config,
    software_deployment,
    stack_user_key,
)
from hotplate.db.schema_imports import heat_import
from hotplate.db.schema_requests import engine_request
from hotplate.db.schema_snapshots import resource_snapshot, snapshot
from hotplate.db.types import JsonText, UtcDateTime

__all__ = [
    "MYSQL_TABLE_ARGS",
    "api_token",
    "auth_key_check",
    "engine_claim",
    "engine_request",
    "event",
    "event_outbox",
    "event_sink_handed",
    "event_sink_watermark",
    "heat_import",
    "metadata",
    "project",
    "raw_template",
    "resource",
    "resource_attempt",
    "resource_data",
    "resource_properties_data",
    "resource_signal",
    "resource_snapshot",
    "service",
    "signal_token",
    "snapshot",
    "software_config",
    "software_deployment",
    "stack",
    "stack_lock",
    "stack_tag",
    "stack_user_key",
    "sync_point",
    "sync_point_input",
    "user_creds",
]

raw_template = Table(
    "raw_template",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("template", JsonText()),
    Column("files", JsonText()),
    Column("environment", JsonText()),
    *timestamps(),
    **MYSQL_TABLE_ARGS,
)

user_creds = Table(
    "user_creds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(255)),
    Column("password", String(255)),
    Column("region_name", String(255)),
    Column("decrypt_method", String(64)),
    Column("tenant", String(1024)),
    Column("auth_url", Text),
    Column("tenant_id", String(256)),
    Column("trust_id", String(255)),
    Column("trustor_user_id", String(64)),
    *timestamps(),
    **MYSQL_TABLE_ARGS,
)

stack = Table(
    "stack",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("name", String(255), nullable=False),
    Column(
        "raw_template_id",
        Integer,
        ForeignKey("raw_template.id", name="fk_stack_raw_template_id"),
        nullable=False,
    ),
    Column(
        "prev_raw_template_id",
        Integer,
        ForeignKey("raw_template.id", name="fk_stack_prev_raw_template_id"),
    ),
    Column("username", String(256)),
    Column("user_id", String(64)),
    Column("tenant", String(256)),
    Column("user_creds_id", Integer, ForeignKey("user_creds.id", name="fk_stack_user_creds_id")),
    Column("owner_id", String(36)),
    Column("parent_resource_name", String(255)),
    Column("timeout", Integer),
    Column("disable_rollback", Boolean, nullable=False),
    Column("stack_user_project_id", String(64)),
    Column("nested_depth", Integer, nullable=False),
    Column("convergence", Boolean, nullable=False),
    Column("current_traversal", String(36)),
    Column("current_deps", JsonText()),
    Column("action", String(255)),
    Column("status", String(255)),
    Column("status_reason", Text),
    *timestamps(),
    Column("deleted_at", UtcDateTime()),
    Index("ix_stack_tenant_name", "tenant", "name"),
    Index("ix_stack_owner_id", "owner_id"),
    Index("ix_stack_user_creds_id", "user_creds_id"),
    # Named as MariaDB names the index it keeps on a foreign key column by itself: a
    # template is deleted only when no stack or row refers to it, which without these
    # reads the whole table, once per nested stack of an update (migration 0015).
    Index("fk_stack_raw_template_id", "raw_template_id"),
    Index("fk_stack_prev_raw_template_id", "prev_raw_template_id"),
    **MYSQL_TABLE_ARGS,
)

stack_tag = Table(
    "stack_tag",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tag", String(80)),
    Column(
        "stack_id",
        String(36),
        ForeignKey("stack.id", name="fk_stack_tag_stack_id"),
        nullable=False,
    ),
    *timestamps(),
    Index("ix_stack_tag_stack_id", "stack_id"),
    **MYSQL_TABLE_ARGS,
)

resource_properties_data = Table(
    "resource_properties_data",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("data", JsonText()),
    Column("encrypted", Boolean),
    *timestamps(),
    **MYSQL_TABLE_ARGS,
)

resource = Table(
    "resource",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(36), nullable=False),
    Column("nova_instance", String(255)),
    Column("name", String(255), nullable=False),
    Column("type", String(255), nullable=False),
    Column("action", String(255), nullable=False),
    Column("status", String(255), nullable=False),
    Column("status_reason", Text),
    Column(
        "stack_id",
        String(36),
        ForeignKey("stack.id", name="fk_resource_stack_id"),
        nullable=False,
    ),
    Column("rsrc_metadata", JsonText()),
    Column("properties_data", JsonText()),
    Column("engine_id", String(36)),
    Column("atomic_key", Integer, nullable=False),
    Column("needed_by", JsonText()),
    Column("requires", JsonText()),
    Column("replaces", Integer),
    Column("replaced_by", Integer),
    Column(
        "current_template_id",
        Integer,
        ForeignKey("raw_template.id", name="fk_resource_current_template_id"),
    ),
    Column("root_stack_id", String(36)),
    Column(
        "rsrc_prop_data_id",
        Integer,
        ForeignKey("resource_properties_data.id", name="fk_resource_rsrc_prop_data_id"),
    ),
    Column(
        "attr_data_id",
        Integer,
        ForeignKey("resource_properties_data.id", name="fk_resource_attr_data_id"),
    ),
    *timestamps(),
    UniqueConstraint("uuid", name="uq_resource_uuid"),
    Index("ix_resource_stack_id", "stack_id"),
    Index("ix_resource_root_stack_id", "root_stack_id"),
    Index("ix_resource_engine_id", "engine_id"),
    Index("fk_resource_current_template_id", "current_template_id"),  # as the stack's
    **MYSQL_TABLE_ARGS,
)

resource_data = Table(
    "resource_data",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "resource_id",
        Integer,
        ForeignKey("resource.id", name="fk_resource_data_resource_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("key", String(255), nullable=False),
    Column("value", Text),
    Column("redact", Boolean),
    Column("decrypt_method", String(64)),
    *timestamps(),
    UniqueConstraint("resource_id", "key", name="uq_resource_data_resource_id_key"),
    **MYSQL_TABLE_ARGS,
)

event = Table(
    "event",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(36), nullable=False),
    Column("stack_id", String(36), nullable=False),
    Column("resource_action", String(255)),
    Column("resource_status", String(255)),
    Column("resource_name", String(255)),
    Column("physical_resource_id", String(255)),
    Column("resource_status_reason", Text),
    Column("resource_type", String(255)),
    Column(
        "rsrc_prop_data_id",
        Integer,
        ForeignKey("resource_properties_data.id", name="fk_event_rsrc_prop_data_id"),
    ),
    *timestamps(),
    UniqueConstraint("uuid", name="uq_event_uuid"),
    Index("ix_event_stack_id_id", "stack_id", "id"),
    Index("ix_event_stack_id_resource_name_id", "stack_id", "resource_name", "id"),
    **MYSQL_TABLE_ARGS,
)

sync_point = Table(
    "sync_point",
    metadata,
    Column("entity_id", String(36), nullable=False),
    Column("traversal_id", String(36), nullable=False),
    Column("is_update", Boolean, nullable=False),
    Column(
        "stack_id",
        String(36),
        ForeignKey("stack.id", name="fk_sync_point_stack_id"),
        nullable=False,
    ),
    Column("atomic_key", Integer, nullable=False),
    Column("input_data", JsonText()),
    Column("extra_data", JsonText()),
    Column("remaining", Integer, nullable=False),
    *timestamps(),
    PrimaryKeyConstraint("entity_id", "traversal_id", "is_update", name="pk_sync_point"),
    Index("ix_sync_point_stack_id", "stack_id"),
    **MYSQL_TABLE_ARGS,
)

sync_point_input = Table(
    "sync_point_input",
    metadata,
    Column("entity_id", String(36), nullable=False),
    Column("traversal_id", String(36), nullable=False),
    Column("is_update", Boolean, nullable=False),
    Column("sender", String(255), nullable=False),
    Column("data", JsonText()),
    Column("created_at", UtcDateTime(), nullable=False),
    PrimaryKeyConstraint(
        "entity_id", "traversal_id", "is_update", "sender", name="pk_sync_point_input"
    ),
    ForeignKeyConstraint(
        ["entity_id", "traversal_id", "is_update"],
        ["sync_point.entity_id", "sync_point.traversal_id", "sync_point.is_update"],
        name="fk_sync_point_input_sync_point",
        ondelete="CASCADE",
    ),
    **MYSQL_TABLE_ARGS,
)

stack_lock = Table(
    "stack_lock",
    metadata,
    Column(
        "stack_id",
        String(36),
        ForeignKey("stack.id", name="fk_stack_lock_stack_id"),
        primary_key=True,
    ),
    Column("engine_id", String(36)),
    *timestamps(),
    **MYSQL_TABLE_ARGS,
)

service = Table(
    "service",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("engine_id", String(36), nullable=False),
    Column("host", String(255), nullable=False),
    Column("hostname", String(255), nullable=False),
    Column("binary", String(255), nullable=False),
    Column("topic", String(255), nullable=False),
    Column("report_interval", Integer, nullable=False),
    *timestamps(),
    Column("deleted_at", UtcDateTime()),
    **MYSQL_TABLE_ARGS,
)

# Recovery: a claim names who does a once-only job (the sweep, the takeover of a dead
# engine) until it expires; an attempt is one handle_<action> call a plugin recorded
# with its idempotency token (TestResource does, so tests can count creates).
engine_claim = Table(
    "engine_claim",
    metadata,
    Column("name", String(255), primary_key=True),
    Column("engine_id", String(36), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    **MYSQL_TABLE_ARGS,
)

resource_attempt = Table(
    "resource_attempt",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("stack_id", String(36), nullable=False),
    Column("resource_uuid", String(36), nullable=False),
    Column("resource_name", String(255), nullable=False),
    Column("action", String(255), nullable=False),
    Column("token", String(36), nullable=False),
    Column("retry", Boolean, nullable=False),
    Column("engine_id", String(36), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Index("ix_resource_attempt_stack_id", "stack_id"),
    **MYSQL_TABLE_ARGS,
)

