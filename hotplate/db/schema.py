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

from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from hotplate.db.types import JsonText, UtcDateTime

metadata = MetaData()

MYSQL_TABLE_ARGS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    # Binary collation: names compare case-sensitively, as on PostgreSQL and SQLite.
    "mysql_collate": "utf8mb4_bin",
}


def _timestamps() -> list[Column[Any]]:
    return [
        Column("created_at", UtcDateTime(), nullable=False),
        Column("updated_at", UtcDateTime()),
    ]


raw_template = Table(
    "raw_template",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("template", JsonText()),
    Column("files", JsonText()),
    Column("environment", JsonText()),
    *_timestamps(),
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
    *_timestamps(),
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
    *_timestamps(),
    Column("deleted_at", UtcDateTime()),
    Index("ix_stack_tenant_name", "tenant", "name"),
    Index("ix_stack_owner_id", "owner_id"),
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
    *_timestamps(),
    Index("ix_stack_tag_stack_id", "stack_id"),
    **MYSQL_TABLE_ARGS,
)

resource_properties_data = Table(
    "resource_properties_data",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("data", JsonText()),
    Column("encrypted", Boolean),
    *_timestamps(),
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
    *_timestamps(),
    UniqueConstraint("uuid", name="uq_resource_uuid"),
    Index("ix_resource_stack_id", "stack_id"),
    Index("ix_resource_root_stack_id", "root_stack_id"),
    Index("ix_resource_engine_id", "engine_id"),
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
    *_timestamps(),
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
    *_timestamps(),
    UniqueConstraint("uuid", name="uq_event_uuid"),
    Index("ix_event_stack_id_id", "stack_id", "id"),
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
    *_timestamps(),
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
    *_timestamps(),
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
    *_timestamps(),
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

# Signals: stored before resource_signal answers, applied once (db/signals.py). A
# repeated signal id of one resource is refused by the unique key. No foreign key:
# the sweep forgets the signals of deleted resources.
resource_signal = Table(
    "resource_signal",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("stack_id", String(36), nullable=False),
    Column("resource_id", Integer, nullable=False),
    Column("signal_id", String(255), nullable=False),
    Column("details", JsonText()),
    Column("received_at", UtcDateTime(), nullable=False),
    Column("attempted_at", UtcDateTime(), nullable=False),
    Column("applied_at", UtcDateTime()),
    UniqueConstraint("resource_id", "signal_id", name="uq_resource_signal_resource_id_signal_id"),
    Index("ix_resource_signal_applied_at", "applied_at"),
    **MYSQL_TABLE_ARGS,
)

# Token authentication: a project is named in URLs (``/v1/{name}``); a token is
# kept only as the SHA-256 hex digest of its plaintext.
project = Table(
    "project",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    UniqueConstraint("name", name="uq_project_name"),
    **MYSQL_TABLE_ARGS,
)

api_token = Table(
    "api_token",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column(
        "project_id",
        String(36),
        ForeignKey("project.id", name="fk_api_token_project_id"),
        nullable=False,
    ),
    Column("role", String(16), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime()),
    Column("revoked_at", UtcDateTime()),
    UniqueConstraint("token_hash", name="uq_api_token_token_hash"),
    Index("ix_api_token_project_id", "project_id"),
    **MYSQL_TABLE_ARGS,
)

# Software configs and deployments (Heat's tables): a config is immutable once
# made; a deployment binds one to a server (by the server's physical id).
software_config = Table(
    "software_config",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("name", String(255)),
    Column("group", String(255)),
    Column("config", JsonText()),
    Column("tenant", String(256), nullable=False),
    *_timestamps(),
    Index("ix_software_config_tenant", "tenant"),
    **MYSQL_TABLE_ARGS,
)

software_deployment = Table(
    "software_deployment",
    metadata,
    Column("id", String(36), primary_key=True),
    Column(
        "config_id",
        String(36),
        ForeignKey("software_config.id", name="fk_software_deployment_config_id"),
        nullable=False,
    ),
    Column("server_id", String(36), nullable=False),
    Column("input_values", JsonText()),
    Column("output_values", JsonText()),
    Column("action", String(255)),
    Column("status", String(255)),
    Column("status_reason", Text),
    Column("tenant", String(256), nullable=False),
    Column("stack_user_project_id", String(64)),
    *_timestamps(),
    Index("ix_software_deployment_server_id", "server_id"),
    Index("ix_software_deployment_tenant", "tenant"),
    **MYSQL_TABLE_ARGS,
)

# Stack users (db/stack_users.py): the EC2-style keys of a resource's stack user,
# which the CFN API checks signatures against, and the scope of each TOKEN_SIGNAL
# token. Both go with their resource row (ON DELETE CASCADE).
stack_user_key = Table(
    "stack_user_key",
    metadata,
    Column("access_key", String(64), primary_key=True),
    Column("secret", String(64), nullable=False),
    Column(
        "resource_id",
        Integer,
        ForeignKey("resource.id", name="fk_stack_user_key_resource_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("stack_id", String(36), nullable=False),
    Column("stack_name", String(255), nullable=False),
    Column("resource_name", String(255), nullable=False),
    Column("project", String(256), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    UniqueConstraint("resource_id", name="uq_stack_user_key_resource_id"),
    **MYSQL_TABLE_ARGS,
)

signal_token = Table(
    "signal_token",
    metadata,
    Column(
        "token_id",
        String(36),
        ForeignKey("api_token.id", name="fk_signal_token_token_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "resource_id",
        Integer,
        ForeignKey("resource.id", name="fk_signal_token_resource_id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("stack_id", String(36), nullable=False),
    Column("stack_name", String(255), nullable=False),
    Column("resource_name", String(255), nullable=False),
    Index("ix_signal_token_resource_id", "resource_id"),
    **MYSQL_TABLE_ARGS,
)

# The event sinks' outbox (db/outbox.py): one row per event and durable sink (a
# webhook), written right after the event's own transaction and deleted once the
# sink took it. ``sink_key`` groups the rows of one sink of one stack, delivered in
# id order; a claim (``claimed_by`` until ``claimed_until``) keeps two engines from
# sending the same row at once. No foreign key: rows outlive a deleted stack.
event_outbox = Table(
    "event_outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("stack_id", String(36), nullable=False),
    Column("event_uuid", String(36), nullable=False),
    Column("sink_key", String(64), nullable=False),
    Column("sink", JsonText(), nullable=False),
    Column("body", JsonText(), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", UtcDateTime(), nullable=False),
    Column("claimed_by", String(36)),
    Column("claimed_until", UtcDateTime()),
    Column("last_error", Text),
    Column("created_at", UtcDateTime(), nullable=False),
    Index("ix_event_outbox_next_attempt_at", "next_attempt_at"),
    Index("ix_event_outbox_sink", "stack_id", "sink_key", "id"),
    **MYSQL_TABLE_ARGS,
)

# A durable sink's watermark for one stack (db/outbox.py): every event of the stack
# up to ``last_event_id`` was handed to the outbox for that sink (or came before the
# sink was set). Written when an action sets the stack's durable sinks; advanced by
# the delivery threads' catch-up, which hands over what a dead engine left.
event_sink_watermark = Table(
    "event_sink_watermark",
    metadata,
    Column("stack_id", String(36), primary_key=True),
    Column("sink_key", String(64), primary_key=True),
    Column("sink", JsonText(), nullable=False),
    Column("last_event_id", Integer, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime()),
    **MYSQL_TABLE_ARGS,
)

# The events handed to the outbox above their sink's watermark, written with the
# outbox rows: the catch-up tells by them what was handed over (the outbox row itself
# is gone once delivered) and drops them as the watermark passes.
event_sink_handed = Table(
    "event_sink_handed",
    metadata,
    Column("stack_id", String(36), primary_key=True),
    Column("sink_key", String(64), primary_key=True),
    Column("event_id", Integer, primary_key=True, autoincrement=False),
    **MYSQL_TABLE_ARGS,
)
