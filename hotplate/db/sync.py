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

On PostgreSQL a report is one statement, which needs no step to undo: it
locks the point row (``FOR NO KEY UPDATE``, the lock the decrement takes, so
the lock order is the same), inserts the sender's input, and decrements only
if that inserted (a repeated sender changes nothing). Nothing in the
transaction waits for its answer, so it goes to the server with the COMMIT
(fastpath.py's pipeline): the point's row lock is held for the server's time
only. Its answer is read after the COMMIT, and a report that took the point
to zero reads the inputs then (``settle``). The point cannot change under
that read: its count is at zero, and a point is only ever deleted whole (no
inputs found then: the traversal is gone, MISSING, as if the report had come
after the delete).

The decrement serialises the reports to one point on its row lock, so exactly
one report sees zero, with no read-merge-write loop and no retry however wide
the fan-in. ``report_in`` runs a report inside a caller's transaction, so a
finishing resource releases its lock and reports onward atomically;
``settle`` gives its outcome once that transaction has committed.

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
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.fastpath import Deferred
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
_DELETE_POINTS = {
    (keep, only): delete(_sp).where(
        _sp.c.stack_id == bindparam("b_stack"),
        *((_sp.c.traversal_id != bindparam("b_keep"),) if keep else ()),
        *((_sp.c.traversal_id == bindparam("b_traversal"),) if only else ()))
    for keep in (False, True) for only in (False, True)
}
"""A stack's points, by (keeping one traversal's, only one traversal's)."""
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
    """PostgreSQL: lock the point, insert the input, decrement if it inserted.

    ``found``: the point exists (its row lock is held from here to the
    COMMIT, so it cannot be deleted meanwhile and the input's foreign key
    holds); ``fresh``: the input was inserted (a conflict means this sender
    already reported); ``remaining``: the count after the decrement, NULL
    when there was none. The lock is taken by the first CTE, before the
    insert, and the UPDATE then finds the newest row version (READ
    COMMITTED re-reads a row updated since the statement began).
    """
    point = (
        select(_sp.c.entity_id, _sp.c.traversal_id, _sp.c.is_update)
        .where(*_point)
        .with_for_update(key_share=True)  # FOR NO KEY UPDATE: the decrement's own lock
        .cte("point")
    )
    rows = select(point.c.entity_id, point.c.traversal_id, point.c.is_update,
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
    dec = (
        _DECREMENT.where(exists(select(ins.c.sender)))
        .returning(_sp.c.remaining)
        .cte("dec")
    )
    return select(
        select(func.count()).select_from(point).scalar_subquery().label("found"),
        select(func.count()).select_from(ins).scalar_subquery().label("fresh"),
        select(dec.c.remaining).scalar_subquery().label("remaining"),
    )


_REPORT_PG = _report_in_one_statement()


class PendingSync:
    """A report made inside a transaction; ``SyncStore.settle`` gives its outcome
    once the transaction has committed."""

    __slots__ = ("answer", "key", "result")

    def __init__(self, key: dict[str, Any], *, answer: Deferred | None = None,
                 result: SyncResult | None = None) -> None:
        self.key = key
        self.answer = answer
        """PostgreSQL: the report statement's row, read after the COMMIT."""
        self.result = result
        """Elsewhere: the outcome, decided inside the transaction."""


class SyncStore(StoreBase):
    def create_sync_points(
        self, stack_id: StackId, traversal_id: TraversalId, points: Iterable[NewSyncPoint]
    ) -> None:
        """Insert the traversal's points in one executemany, on the fast path (a
        traversal of 5,000 nodes spent a fifth of its start in SQLAlchemy's)."""
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
            self._tx.write_raw(lambda conn: self._fast.execute_many(
                conn, _INSERT_POINTS, rows, set_keys=rows[0]))

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
        return self.settle(self._tx.write_raw(lambda conn: self.report_in(conn, report, now)))

    def sync_many(self, reports: Sequence[SyncReport]) -> list[SyncResult]:
        """Several reports in one transaction, each with the outcome ``sync`` would give."""
        if not reports:
            return []
        now = self._now()
        pending = self._tx.write_raw(lambda conn: [self.report_in(conn, r, now)
                                                   for r in reports])
        return [self.settle(p) for p in pending]

    def report_in(
        self, conn: Connection | PoolProxiedConnection, report: SyncReport, now: Any
    ) -> PendingSync:
        """One report inside the caller's transaction; ``settle`` it after the COMMIT."""
        key = {
            "b_entity_id": report.entity_id,
            "b_traversal_id": report.traversal_id,
            "b_is_update": report.is_update,
        }
        fast = self._fast
        if self._dialect == "postgresql":
            return PendingSync(key, answer=fast.defer(conn, _REPORT_PG, key | {
                "b_now": now, "sender": report.sender, "data": report.data,
                "created_at": now}))
        remaining = self._decrement(conn, key | {"b_now": now})
        if remaining is None:
            return PendingSync(key, result=SyncResult(SyncOutcome.MISSING))
        row = {
            "entity_id": report.entity_id,
            "traversal_id": report.traversal_id,
            "is_update": report.is_update,
            "sender": report.sender,
            "data": report.data,
            "created_at": now,
        }
        if fast.execute(conn, self._insert_input, row, set_keys=row)[1] != 1:
            # This sender already reported: give the decrement back (rare: re-deliveries).
            fast.execute(conn, _INCREMENT, key)
            return PendingSync(key, result=SyncResult(SyncOutcome.DUPLICATE))
        if remaining != 0:
            return PendingSync(key, result=SyncResult(SyncOutcome.WAITING))
        return PendingSync(key, result=self._ready(fast.execute(conn, _INPUTS, key)[0]))

    def settle(self, pending: PendingSync) -> SyncResult:
        """The outcome of a report whose transaction has committed."""
        if pending.result is not None:
            return pending.result
        assert pending.answer is not None
        [answer] = pending.answer.rows()
        if not answer["found"]:
            return SyncResult(SyncOutcome.MISSING)
        if not answer["fresh"]:
            return SyncResult(SyncOutcome.DUPLICATE)
        if answer["remaining"] != 0:
            return SyncResult(SyncOutcome.WAITING)
        inputs = self._tx.read_raw(lambda conn: self._fast.execute(conn, _INPUTS,
                                                                   pending.key)[0])
        if not inputs:  # deleted since the COMMIT: the traversal is gone
            return SyncResult(SyncOutcome.MISSING)
        return self._ready(inputs)

    @staticmethod
    def _ready(inputs: list[dict[str, Any]]) -> SyncResult:
        return SyncResult(SyncOutcome.READY, {r["sender"]: r["data"] for r in inputs})

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
        ``keep_traversal``'s; inputs go by cascade. On the fast path: a traversal
        deletes its stack's points at its start and at its end, and in a tree of
        nested stacks that is twice per stack."""
        statement = _DELETE_POINTS[keep_traversal is not None, traversal_id is not None]
        params = {"b_stack": stack_id, "b_keep": keep_traversal, "b_traversal": traversal_id}
        self._tx.write_raw(lambda conn: self._fast.send(conn, statement, params))

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
