"""Stack snapshots: Heat's ``snapshot`` and ``resource_snapshot`` tables.

A snapshot row is written when the snapshot is asked for (``CREATE_IN_PROGRESS``,
its ``data`` the stack's template, environment and files), and its ``data`` is
rewritten when the stack's ``SNAPSHOT`` action ends. Each resource that took
part writes one ``resource_snapshot`` row: its name, physical id, type, state,
metadata and resource data, which a restore and a snapshot's deletion hand
back to the resource's plugin.

Both ``data`` columns hold what Heat's do, sealed with the store's key
(db/crypt.py) where hotplate writes them: they carry the stack's parameter
values and the resources' data, hidden and redacted ones included. A row
without the seal (one brought over from Heat) is read as it is.
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, String, Table

from hotplate.db.schema_common import MYSQL_TABLE_ARGS, metadata, timestamps
from hotplate.db.types import JsonText

snapshot = Table(
    "snapshot",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("stack_id", String(36), ForeignKey("stack.id", name="fk_snapshot_stack_id"),
           nullable=False),
    Column("name", String(255)),
    Column("data", JsonText()),
    Column("tenant", String(64), nullable=False),
    Column("action", String(255)),
    Column("status", String(255)),
    Column("status_reason", String(255)),
    *timestamps(),
    Index("ix_snapshot_stack_id", "stack_id"),
    Index("ix_snapshot_tenant", "tenant"),
    **MYSQL_TABLE_ARGS,
)

resource_snapshot = Table(
    "resource_snapshot",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("snapshot_id", String(36),
           ForeignKey("snapshot.id", name="fk_resource_snapshot_snapshot_id",
                      ondelete="CASCADE"),
           nullable=False),
    Column("resource_name", String(255)),
    Column("data", JsonText()),
    *timestamps(),
    Index("ix_resource_snapshot_snapshot_id", "snapshot_id"),
    **MYSQL_TABLE_ARGS,
)
