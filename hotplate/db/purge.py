"""Removing what deleted stacks leave behind: ``heat-manage purge_deleted``.

A stack's delete removes its resources and sync points and keeps the stack
row, marked ``deleted_at``, so that ``stack list --show-deleted`` and the
stack's events still answer (``engine/worker/traversal.py``: ``mark_complete``
and ``purge_db``). What then stays of a deleted stack:

- the stack row, its tags and its events (hotplate's events point at no
  properties row: the column is Heat's, kept for its schema);
- its template (``raw_template_id``); its stored credentials normally go with
  a root stack's delete (``engine/stack_credentials.py``), but stay when that
  failed (Keystone away) or when a nested stack still named them;
- what has no foreign key to it: its event sinks' outbox rows, watermarks and
  notes, its stored signals, its resources' recorded attempts;
- anything a delete that never finished left: resource rows (with their data,
  stack users' keys, signal tokens), sync points, the stack lock.

A purge removes all of it for the stacks deleted before a cutoff, a batch of
stacks per transaction, so an error leaves every stack either whole or gone.
Rows several stacks may share (templates, properties, credentials) go only
once nothing refers to them any more.

Two tables, in deletion order, say what hangs off a stack: ``HANGING`` (rows
that belong to the doomed stacks, found by a column naming the stack or a row
found before them) and ``SHARED`` (rows kept while anything refers to them). A
table added later is one entry there.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Table, delete, exists, select

from hotplate.db import schema as s
from hotplate.db.tx import Transactions

LOG = logging.getLogger(__name__)

__all__ = [
    "HANGING", "OUTLIVES_STACKS", "SHARED", "Hanging", "PurgeResult", "Shared", "purge_deleted",
    "purge_stacks",
]


@dataclass(frozen=True)
class Hanging:
    """Rows of ``table`` that go with the doomed stacks: those whose ``column``
    holds a doomed stack's id or, with ``parent``, a value of ``parent``'s column
    among the rows of that table that go (``parent`` must come later in
    ``HANGING``: its rows are still there when these are found)."""

    table: Table
    column: str
    parent: tuple[Table, str] | None = None


@dataclass(frozen=True)
class Shared:
    """Rows of ``table`` (by its ``id``) that the doomed rows refer to through
    ``referrers`` (a table of ``HANGING``, or ``stack``, and its column); each
    goes once no row anywhere refers to it any more."""

    table: Table
    referrers: tuple[tuple[Table, str], ...]


HANGING: tuple[Hanging, ...] = (
    # A resource's signal tokens are API tokens: the token row goes, its scope
    # (signal_token) by cascade.
    Hanging(s.api_token, "id", parent=(s.signal_token, "token_id")),
    Hanging(s.signal_token, "resource_id", parent=(s.resource, "id")),
    Hanging(s.stack_user_key, "resource_id", parent=(s.resource, "id")),
    Hanging(s.resource_data, "resource_id", parent=(s.resource, "id")),
    Hanging(s.resource, "stack_id"),
    Hanging(s.resource_signal, "stack_id"),
    Hanging(s.resource_attempt, "stack_id"),
    Hanging(s.event, "stack_id"),
    Hanging(s.event_outbox, "stack_id"),
    Hanging(s.event_sink_watermark, "stack_id"),
    Hanging(s.event_sink_handed, "stack_id"),
    # sync_point_input goes with its point (ON DELETE CASCADE).
    Hanging(s.sync_point, "stack_id"),
    Hanging(s.stack_lock, "stack_id"),
    Hanging(s.stack_tag, "stack_id"),
    # A stack's delete deletes its snapshots; an abandoned stack keeps them.
    Hanging(s.resource_snapshot, "snapshot_id", parent=(s.snapshot, "id")),
    Hanging(s.snapshot, "stack_id"),
)
"""What belongs to a doomed stack, in the order it is deleted (children first)."""

OUTLIVES_STACKS: tuple[str, ...] = ("heat_import",)
"""Tables naming a stack that a purge leaves alone on purpose: an import's record says
which of Heat's stacks came over, so a stack deleted and purged here is not brought
back by the next ``import-heat``."""

SHARED: tuple[Shared, ...] = (
    Shared(s.resource_properties_data, ((s.resource, "rsrc_prop_data_id"),
                                        (s.resource, "attr_data_id"),
                                        (s.event, "rsrc_prop_data_id"))),
    Shared(s.raw_template, ((s.stack, "raw_template_id"), (s.stack, "prev_raw_template_id"),
                            (s.resource, "current_template_id"))),
    Shared(s.user_creds, ((s.stack, "user_creds_id"),)),
)
"""What doomed rows refer to and other stacks may too, deleted after the stacks."""


@dataclass(frozen=True)
class PurgeResult:
    """What a purge removed: the stacks (id, name) and the dead service rows."""

    stacks: tuple[tuple[str, str], ...]
    services: int


def purge_deleted(engine: Engine, deleted_before: datetime, *, project_id: str | None = None,
                  batch_size: int = 20) -> PurgeResult:
    """Remove the stacks soft-deleted before ``deleted_before`` (of ``project_id``
    only, when given) with everything that hangs off them, ``batch_size`` stacks
    per transaction; and the service rows soft-deleted before it, as Heat does.

    ``batch_size`` 0 purges no stack (Heat's reading of it).
    """
    sv = s.service
    writes = Transactions(engine)  # BEGIN IMMEDIATE on SQLite: an engine may be writing too
    services = writes.write(lambda conn: conn.execute(
        delete(sv).where(sv.c.deleted_at < deleted_before)).rowcount)
    st = s.stack
    query = select(st.c.id, st.c.name).where(st.c.deleted_at < deleted_before)
    if project_id:
        query = query.where(st.c.tenant == project_id)
    with engine.connect() as conn:
        doomed = [(str(row.id), str(row.name)) for row in conn.execute(query.order_by(st.c.id))]
    purged: list[tuple[str, str]] = []
    for start in range(0, len(doomed), batch_size) if batch_size > 0 else ():
        batch = doomed[start:start + batch_size]
        LOG.info("Purging stacks %s", ", ".join(f"{name} ({sid})" for sid, name in batch))
        writes.write(functools.partial(purge_stacks, stack_ids=[sid for sid, _ in batch]))
        purged.extend(batch)
    return PurgeResult(tuple(purged), int(services))


def purge_stacks(conn: Connection, stack_ids: Sequence[str]) -> None:
    """One transaction's work: the stacks, what hangs off them, then what they
    shared and nobody else refers to (also how an import replaces its copy)."""
    st = s.stack
    doomed_stacks = st.c.id.in_(stack_ids)
    found = {entry.table.name: _selection(entry, stack_ids) for entry in HANGING}
    found[st.name] = doomed_stacks
    candidates = [(shared, _referred(conn, shared, found)) for shared in SHARED]
    for entry in HANGING:
        conn.execute(delete(entry.table).where(found[entry.table.name]))
    conn.execute(delete(st).where(doomed_stacks))
    for shared, ids in candidates:
        if ids:
            _delete_unreferenced(conn, shared, ids)


def _selection(entry: Hanging, stack_ids: Sequence[str]) -> ColumnElement[bool]:
    """The WHERE clause of ``entry``'s doomed rows."""
    column = entry.table.c[entry.column]
    if entry.parent is None:
        return column.in_(stack_ids)
    parent_table, parent_column = entry.parent
    parent = next(e for e in HANGING if e.table is parent_table)
    return column.in_(select(parent_table.c[parent_column])
                      .where(_selection(parent, stack_ids)))


def _referred(conn: Connection, shared: Shared, found: dict[str, Any]) -> set[Any]:
    """The ids of ``shared`` rows the doomed rows refer to, read before they go."""
    ids: set[Any] = set()
    for table, column in shared.referrers:
        query = select(table.c[column]).where(found[table.name], table.c[column].is_not(None))
        ids.update(conn.execute(query.distinct()).scalars())
    return ids


def _delete_unreferenced(conn: Connection, shared: Shared, ids: set[Any]) -> None:
    key = shared.table.c.id
    unreferenced = [~exists().where(table.c[column] == key)
                    for table, column in shared.referrers]
    ordered = sorted(ids)
    for start in range(0, len(ordered), _CHUNK):
        chunk = ordered[start:start + _CHUNK]
        conn.execute(delete(shared.table).where(key.in_(chunk), *unreferenced))


_CHUNK = 500
"""Ids per IN list: well under every backend's limit on bound parameters."""
