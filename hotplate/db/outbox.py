"""The event sinks' outbox: what a durable sink has still to take, kept across restarts.

A row is one event for one sink of one stack. Rows of the same sink and
stack (one ``sink_key``) go out in id order, one after the other: a row is
sent only when no older row of its group is left, so an event waiting for
its retry holds back the ones after it. Any engine may deliver any row; it
first claims a batch (a compare-and-swap on ``claimed_until``, under a
claim token of its own), so two engines never send a row at once, and a
claim that outlives a dead engine simply lapses. Delivery is at least once:
a sink that took a row but whose answer was lost gets it again, and the
event's uuid (the body's ``id``) lets it tell.

An engine hands its events to the outbox a moment after writing them; one
killed in between would lose them, so each durable sink of a stack also has
a watermark (``event_sink_watermark``), written when an action sets the
sinks (``watch``): every event of the stack up to ``last_event_id`` has
been handed over. What the engines hand over above it is noted in
``event_sink_handed`` with the outbox rows (``add``). The delivery threads'
catch-up (``overdue``, then ``advance``) reads the events above each
watermark that are older than a confirm delay, queues those not noted, and
moves the watermark past them: a compare-and-swap on ``last_event_id``, in
the transaction of the queued rows, so two engines never queue them twice.
The watermark stops at the first event younger than the delay, so an event
whose transaction commits after a later one is still found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    RowMapping,
    and_,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.rows import to_event
from hotplate.db.tx import Rollback
from hotplate.model.records import EventRecord

__all__ = ["Handed", "OutboxRow", "OutboxStore", "Overdue"]

_O = s.event_outbox
_W = s.event_sink_watermark
_H = s.event_sink_handed
_E = s.event

Handed = tuple[str, str, int]
"""(stack id, sink key, event id): an event handed to the outbox for a sink."""


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    stack_id: str
    event_uuid: str
    sink_key: str
    sink: Mapping[str, Any]
    body: Mapping[str, Any]
    attempts: int
    next_attempt_at: datetime
    created_at: datetime
    last_error: str | None = None


@dataclass(frozen=True, slots=True)
class Overdue:
    """An event above its sink's watermark and older than the confirm delay."""

    sink_key: str
    sink: Mapping[str, Any]
    watermark: int
    event: EventRecord
    handed: bool
    """Whether an engine handed it to the outbox already."""


def _row(m: RowMapping) -> OutboxRow:
    return OutboxRow(id=m["id"], stack_id=m["stack_id"], event_uuid=m["event_uuid"],
                     sink_key=m["sink_key"], sink=m["sink"], body=m["body"],
                     attempts=m["attempts"], next_attempt_at=m["next_attempt_at"],
                     created_at=m["created_at"], last_error=m["last_error"])


class OutboxStore(StoreBase):
    """The ``event_outbox`` table; every method is one transaction."""

    def add(self, rows: Sequence[Mapping[str, Any]], handed: Sequence[Handed] = ()) -> None:
        """Queue rows (``stack_id``, ``event_uuid``, ``sink_key``, ``sink``, ``body``),
        due at once, in the order given, noting ``handed`` in the same transaction."""
        if not rows:
            return
        values = self._values(rows)
        noted = [{"stack_id": stack, "sink_key": key, "event_id": event}
                 for stack, key, event in dict.fromkeys(handed)]

        def run(conn: Connection) -> None:
            conn.execute(insert(_O), values)
            if noted:
                conn.execute(insert(_H), noted)

        self._tx.write(run)

    def _values(self, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        now = self._now()
        return [{**row, "attempts": 0, "next_attempt_at": now, "claimed_by": None,
                 "claimed_until": None, "last_error": None, "created_at": now}
                for row in rows]

    def claim(self, token: str, lease_until: datetime, limit: int) -> list[OutboxRow]:
        """Take up to ``limit`` due rows nobody holds, oldest first, until ``lease_until``."""
        now = self._now()
        free = or_(_O.c.claimed_until.is_(None), _O.c.claimed_until < now)
        due = select(_O.c.id).where(_O.c.next_attempt_at <= now, free).order_by(_O.c.id)
        ids = self._tx.read(lambda conn: list(conn.execute(due.limit(limit)).scalars()))
        if not ids:  # the usual answer: read only, no write transaction
            return []

        def run(conn: Connection) -> list[OutboxRow]:
            conn.execute(update(_O).where(_O.c.id.in_(ids), free)
                         .values(claimed_by=token, claimed_until=lease_until))
            found = conn.execute(select(_O).where(_O.c.id.in_(ids), _O.c.claimed_by == token)
                                 .order_by(_O.c.id)).mappings()
            return [_row(m) for m in found]

        return self._tx.write(run)

    def first_ids(self, groups: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """The oldest row left of each (stack id, sink key) group."""
        if not groups:
            return {}
        wanted = or_(*(and_(_O.c.stack_id == stack, _O.c.sink_key == key)
                       for stack, key in groups))
        query = (select(_O.c.stack_id, _O.c.sink_key, func.min(_O.c.id)).where(wanted)
                 .group_by(_O.c.stack_id, _O.c.sink_key))

        def run(conn: Connection) -> dict[tuple[str, str], int]:
            return {(stack, key): first for stack, key, first in conn.execute(query)}

        return self._tx.read(run)

    def delivered(self, row_id: int, token: str) -> None:
        self._tx.write(lambda conn: conn.execute(
            delete(_O).where(_O.c.id == row_id, _O.c.claimed_by == token)))

    def retry_at(self, row_id: int, token: str, when: datetime, error: str) -> None:
        """A failed try: the row is due again at ``when``, and free."""
        self._tx.write(lambda conn: conn.execute(
            update(_O).where(_O.c.id == row_id, _O.c.claimed_by == token)
            .values(attempts=_O.c.attempts + 1, next_attempt_at=when, claimed_by=None,
                    claimed_until=None, last_error=error[:2000])))

    def release(self, row_ids: Sequence[int], token: str) -> None:
        """Give claimed rows back untried (an older row of their group is still due)."""
        if row_ids:
            self._tx.write(lambda conn: conn.execute(
                update(_O).where(_O.c.id.in_(list(row_ids)), _O.c.claimed_by == token)
                .values(claimed_by=None, claimed_until=None)))

    def pending(self, stack_id: str | None = None) -> list[OutboxRow]:
        """Every row left (of one stack), oldest first."""
        query = select(_O).order_by(_O.c.id)
        if stack_id is not None:
            query = query.where(_O.c.stack_id == stack_id)
        return self._tx.read(lambda conn: [_row(m) for m in conn.execute(query).mappings()])

    # -- watermarks ------------------------------------------------------------------
    def watch(self, stack_id: str, sinks: Mapping[str, Mapping[str, Any]]) -> None:
        """Give each of the stack's durable sinks (by key) a watermark, unless it has
        one: at the stack's newest event, so its events from now on are all handed
        over, and none from before."""
        for _ in range(2):  # a second round if another engine wrote one meanwhile
            try:
                self._tx.write(lambda conn: self._watch(conn, stack_id, sinks))
                return
            except IntegrityError:
                continue

    def _watch(self, conn: Connection, stack_id: str,
               sinks: Mapping[str, Mapping[str, Any]]) -> None:
        known = set(conn.execute(select(_W.c.sink_key).where(_W.c.stack_id == stack_id))
                    .scalars())
        new = [key for key in sinks if key not in known]
        if not new:
            return
        last = conn.execute(select(func.coalesce(func.max(_E.c.id), 0))
                            .where(_E.c.stack_id == stack_id)).scalar()
        now = self._now()
        conn.execute(insert(_W), [
            {"stack_id": stack_id, "sink_key": key, "sink": dict(sinks[key]),
             "last_event_id": int(last or 0), "created_at": now, "updated_at": None}
            for key in new])

    def watermarks(self, stack_id: str) -> dict[str, int]:
        """The stack's watermarks, by sink key."""
        query = select(_W.c.sink_key, _W.c.last_event_id).where(_W.c.stack_id == stack_id)
        return self._tx.read(lambda conn: {key: int(last) for key, last in conn.execute(query)})

    def overdue(self, before: datetime, limit: int) -> list[Overdue]:
        """Events above their sinks' watermarks written before ``before``, oldest first,
        each with whether it was handed over; for each sink, only those below its
        first event written since (an event's time is taken before its id)."""
        found = and_(_H.c.stack_id == _W.c.stack_id, _H.c.sink_key == _W.c.sink_key,
                     _H.c.event_id == _E.c.id)
        young = _E.alias("young")
        first_young = (select(func.min(young.c.id))
                       .where(young.c.stack_id == _W.c.stack_id,
                              young.c.id > _W.c.last_event_id, young.c.created_at >= before)
                       .scalar_subquery())
        query = (select(_E, _W.c.sink_key, _W.c.sink, _W.c.last_event_id,
                        _H.c.event_id.label("handed_id"))
                 .select_from(_W.join(_E, and_(_E.c.stack_id == _W.c.stack_id,
                                               _E.c.id > _W.c.last_event_id))
                              .outerjoin(_H, found))
                 .where(_E.c.created_at < before,
                        or_(first_young.is_(None), _E.c.id < first_young))
                 .order_by(_E.c.id).limit(limit))

        def run(conn: Connection) -> list[Overdue]:
            return [Overdue(sink_key=m["sink_key"], sink=m["sink"],
                            watermark=int(m["last_event_id"]), event=to_event(m),
                            handed=m["handed_id"] is not None)
                    for m in conn.execute(query).mappings()]

        return self._tx.read(run)

    def advance(self, stack_id: str, sink_key: str, seen: int, to: int,
                rows: Sequence[Mapping[str, Any]] = ()) -> bool:
        """Move a watermark from ``seen`` to ``to``, queueing ``rows`` (events found not
        handed over) in the same transaction; False, and nothing written, when another
        engine moved it first."""
        values = self._values(rows)
        ours = and_(_W.c.stack_id == stack_id, _W.c.sink_key == sink_key)
        move = (update(_W).where(ours, _W.c.last_event_id == seen)
                .values(last_event_id=to, updated_at=self._now()))
        passed = delete(_H).where(_H.c.stack_id == stack_id, _H.c.sink_key == sink_key,
                                  _H.c.event_id <= to)

        def run(conn: Connection) -> bool:
            if conn.execute(move).rowcount != 1:
                raise Rollback(False)
            if values:
                conn.execute(insert(_O), values)
            conn.execute(passed)
            return True

        return bool(self._tx.write(run))

    def forget(self, stack_id: str, sink_key: str) -> None:
        """Drop a watermark (its sink is no longer the stack's) and its notes."""
        def run(conn: Connection) -> None:
            conn.execute(delete(_W).where(_W.c.stack_id == stack_id, _W.c.sink_key == sink_key))
            conn.execute(delete(_H).where(_H.c.stack_id == stack_id, _H.c.sink_key == sink_key))

        self._tx.write(run)

    def collect(self, deleted_before: datetime) -> None:
        """Drop the watermarks of stacks deleted before ``deleted_before`` (or gone) with
        no event left above them, and the notes no watermark needs any more."""
        live = exists().where(_E.c.stack_id == _W.c.stack_id, _E.c.id > _W.c.last_event_id)
        kept = exists().where(s.stack.c.id == _W.c.stack_id,
                              or_(s.stack.c.deleted_at.is_(None),
                                  s.stack.c.deleted_at >= deleted_before))
        needed = exists().where(_W.c.stack_id == _H.c.stack_id, _W.c.sink_key == _H.c.sink_key,
                                _W.c.last_event_id < _H.c.event_id)

        def run(conn: Connection) -> None:
            conn.execute(delete(_W).where(~kept, ~live))
            conn.execute(delete(_H).where(~needed))

        self._tx.write(run)
