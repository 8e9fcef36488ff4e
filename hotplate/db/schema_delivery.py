"""The tables of signals, tokens, software configuration and event delivery.

Part of the schema (``schema.py`` names them all): what resource_signal stores
before it answers, the API's and the stack users' credentials, Heat's
software_config and software_deployment, and the outbox of event sinks.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from hotplate.db.schema_common import MYSQL_TABLE_ARGS, metadata, timestamps
from hotplate.db.types import JsonText, UtcDateTime

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
    *timestamps(),
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
    *timestamps(),
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
    Column("secret", String(255), nullable=False),
    Column("decrypt_method", String(64)),
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

auth_key_check = Table(
    # One row: a known text encrypted with the first auth_encryption_key that used the
    # database, so another key is refused at start (db/key_check.py).
    "auth_key_check",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("decrypt_method", String(64), nullable=False),
    Column("value", Text, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
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
