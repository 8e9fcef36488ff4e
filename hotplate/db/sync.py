"""Sync points: when has every predecessor of a node reported?

A point is one row holding ``remaining``, the number of predecessors still to
report. Each report is one transaction:

1. ``UPDATE sync_point SET remaining = remaining - 1 WHERE <key>`` (RETURNING
   remaining; on MariaDB a SELECT follows, under the row lock just taken).
   No row: the point is gone (superseded traversal), answer MISSING.
2. ``INSERT`` the sender's own ``sync_point_input`` row, ignoring a key
   conflict (ON CONFLICT DO NOTHING / INSERT IGNORE, so a PostgreSQL
   transaction stays usable). Nothing inserted: this sender already reported,
   give the decrement back, answer DUPLICATE.
3. ``remaining`` reached zero: SELECT every input and answer READY;
   otherwise WAITING.

On PostgreSQL, steps 1 and 2 go as one statement (the decrement and the
insert as data-modifying CTEs, in that order), saving a round trip while the
point's row lock is held.

The decrement serialises the reports to one point on its row lock, so exactly
one report sees zero, with no read-merge-write loop and no retry however wide
the fan-in. ``sync_in`` runs a report inside a caller's transaction, so a
finishing resource releases its lock and reports onward atomically.

The decrement comes before the insert on purpose: the insert's
foreign key check takes a shared lock on the point row on InnoDB, and two
reporters each holding that shared lock and then both asking for the
exclusive one would deadlock. Taking the exclusive lock first keeps one lock
order everywhere (deleting points cascades to inputs in the same order).

A report from more distinct senders than the point was created for takes
``remaining`` below zero and answers WAITING: a node never fires twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Insert,
    Select,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.types import UtcDateTime
from hotplate.model.ids import StackId, TraversalId
from hotplate.model.records import NewSyncPoint, SyncOutcome, SyncReport, SyncResult

_sp = s.sync_point
_spi = s.sync_point_input
_KEY = {
    "b_entity_id": _sp.c.entity_id,
    "b_traversal_id": _sp.c.traversal_id,
    "b_is_update": _sp.c.is_update,
}
_point = [column == bindparam(name) for name, column in _KEY.items()]
_inputs_of_point = [_spi.c[column.name] == bindparam(name) for name, column in _KEY.items()]

_INSERT_POINTS = insert(_sp)
_DECREMENT = (
    update(_sp)
    .where(*_point)
    .values(remaining=_sp.c.remaining - 1, updated_at=bindparam("b_now", type_=UtcDateTime()))
)
_DECREMENT_RETURNING = _DECREMENT.returning(_sp.c.remaining)
_INCREMENT = update(_sp).where(*_point).values(remaining=_sp.c.remaining + 1)
_REMAINING = select(_sp.c.remaining).where(*_point)
_INPUTS = select(_spi.c.sender, _spi.c.data).where(*_inputs_of_point)


def _insert_input(dialect: str) -> Insert:
    """INSERT that skips a key conflict; its rowcount says whether it inserted."""
    statement: Insert
    if dialect in ("mysql", "mariadb"):
        # Safe here: the point exists and is locked, so the only error
        # IGNORE can swallow is the duplicate key.
        statement = mysql.insert(_spi).prefix_with("IGNORE")
    else:
        dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        statement = dialect_insert(_spi).on_conflict_do_nothing()
    # SQLAlchemy reports INSERT rowcounts only when asked to.
    return statement.execution_options(preserve_rowcount=True)


_INSERT_INPUT = {dialect: _insert_input(dialect) for dialect in ("sqlite", "postgresql", "mysql")}


def _report_in_one_statement() -> Select[Any]:
    """PostgreSQL: the decrement and the insert as one statement (data-modifying CTEs).

    The same two steps in the same order, but one round trip instead of two
    while the point's row lock is held: a wide fan-in queues every reporter
    on that lock, so the time between taking it and committing is what sets
    the pace. The insert reads the decrement's row, so it inserts nothing
    when there is no point; ``fresh`` says whether it inserted.
    """
    dec = _DECREMENT.returning(_sp.c.remaining, _sp.c.entity_id, _sp.c.traversal_id,
                               _sp.c.is_update).cte("dec")
    rows = select(dec.c.entity_id, dec.c.traversal_id, dec.c.is_update,
                  bindparam("sender", type_=_spi.c.sender.type),
                  bindparam("data", type_=_spi.c.data.type),
                  bindparam("created_at", type_=_spi.c.created_at.type))
    ins = (
        postgresql.insert(_spi)
        .from_select(["entity_id", "traversal_id", "is_update", "sender", "data", "created_at"],
                     rows)
        .on_conflict_do_nothing()
        .returning(_spi.c.sender)
        .cte("ins")
    )
    return select(
        select(dec.c.remaining).scalar_subquery().label("remaining"),
        select(func.count()).select_from(ins).scalar_subquery().label("fresh"),
    )


_REPORT_PG = _report_in_one_statement()


class SyncStore(StoreBase):
    def create_sync_points(
        self, stack_id: StackId, traversal_id: TraversalId, points: Iterable[NewSyncPoint]
    ) -> None:
        """Insert the traversal's points in one executemany."""
        now = self._now()
        rows = [
            {
                "entity_id": point.entity_id,
                "traversal_id": traversal_id,
                "is_update": point.is_update,
                "stack_id": stack_id,
                "atomic_key": 0,
                "input_data": None,
                "extra_data": None,
                "remaining": point.remaining,
                "created_at": now,
            }
            for point in points
        ]
        if rows:
            self._tx.write(lambda conn: conn.execute(_INSERT_POINTS, rows))

    def sync(
        self,
        traversal_id: TraversalId,
        entity_id: str,
        is_update: bool,
        sender: str,
        data: Any,
    ) -> SyncResult:
        """Record one predecessor's report; exactly one reporter ever gets READY."""
        report = SyncReport(traversal_id, entity_id, is_update, sender, data)
        now = self._now()
        return self._tx.write_raw(lambda conn: self.sync_in(conn, report, now))

    def sync_many(self, reports: Sequence[SyncReport]) -> list[SyncResult]:
        """Several reports in one transaction, each with the outcome ``sync`` would give."""
        if not reports:
            return []
        now = self._now()
        return self._tx.write_raw(lambda conn: [self.sync_in(conn, r, now) for r in reports])

    def sync_in(
        self, conn: Connection | PoolProxiedConnection, report: SyncReport, now: Any
    ) -> SyncResult:
        """One report inside the caller's transaction."""
        key = {
            "b_entity_id": report.entity_id,
            "b_traversal_id": report.traversal_id,
            "b_is_update": report.is_update,
        }
        fast = self._fast
        if self._dialect == "postgresql":
            found = fast.execute(conn, _REPORT_PG, key | {
                "b_now": now, "sender": report.sender, "data": report.data,
                "created_at": now})[0][0]
            remaining, inserted = found["remaining"], found["fresh"] == 1
            if remaining is None:
                return SyncResult(SyncOutcome.MISSING)
        else:
            remaining = self._decrement(conn, key | {"b_now": now})
            if remaining is None:
                return SyncResult(SyncOutcome.MISSING)
            row = {
                "entity_id": report.entity_id,
                "traversal_id": report.traversal_id,
                "is_update": report.is_update,
                "sender": report.sender,
                "data": report.data,
                "created_at": now,
            }
            inserted = fast.execute(conn, self._insert_input, row, set_keys=row)[1] == 1
        if not inserted:
            # This sender already reported: give the decrement back (rare: re-deliveries).
            fast.execute(conn, _INCREMENT, key)
            return SyncResult(SyncOutcome.DUPLICATE)
        if remaining != 0:
            return SyncResult(SyncOutcome.WAITING)
        rows = fast.execute(conn, _INPUTS, key)[0]
        return SyncResult(SyncOutcome.READY, {r["sender"]: r["data"] for r in rows})

    @property
    def _insert_input(self) -> Insert:
        return _INSERT_INPUT["mysql" if self._dialect == "mariadb" else self._dialect]

    def sync_state(self, traversal_id: TraversalId, entity_id: str, is_update: bool) -> SyncResult:
        """Whether a node's point has heard from all its predecessors, without reporting.

        READY (with the inputs) once ``remaining`` is zero, WAITING before,
        MISSING without a point. A worker of a superseded traversal uses it to
        re-fire its node in the new traversal when that node already went ready.
        """
        key = {"b_entity_id": entity_id, "b_traversal_id": traversal_id, "b_is_update": is_update}

        def run(conn: Connection) -> SyncResult:
            remaining = conn.execute(_REMAINING, key).scalar()
            if remaining is None:
                return SyncResult(SyncOutcome.MISSING)
            if remaining > 0:
                return SyncResult(SyncOutcome.WAITING)
            received = {row.sender: row.data for row in conn.execute(_INPUTS, key)}
            return SyncResult(SyncOutcome.READY, received)

        return self._tx.read(run)

    def delete_sync_points(
        self,
        stack_id: StackId,
        *,
        keep_traversal: TraversalId | None = None,
        traversal_id: TraversalId | None = None,
    ) -> None:
        """Drop the stack's points: only ``traversal_id``'s if given, and never
        ``keep_traversal``'s; inputs go by cascade."""
        statement = delete(_sp).where(_sp.c.stack_id == stack_id)
        if keep_traversal is not None:
            statement = statement.where(_sp.c.traversal_id != keep_traversal)
        if traversal_id is not None:
            statement = statement.where(_sp.c.traversal_id == traversal_id)
        self._tx.write(lambda conn: conn.execute(statement))

    def _decrement(
        self, conn: Connection | PoolProxiedConnection, params: dict[str, Any]
    ) -> int | None:
        """Decrement the point; its new ``remaining``, or None if there is no point."""
        fast = self._fast
        if self._update_returning:
            rows = fast.execute(conn, _DECREMENT_RETURNING, params)[0]
            return int(rows[0]["remaining"]) if rows else None
        if fast.execute(conn, _DECREMENT, params)[1] != 1:
            return None
        return int(fast.execute(conn, _REMAINING, params)[0][0]["remaining"])
