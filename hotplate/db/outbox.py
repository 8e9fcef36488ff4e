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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, and_, delete, func, insert, or_, select, update

from hotplate.db import schema as s
from hotplate.db.base import StoreBase

__all__ = ["OutboxRow", "OutboxStore"]

_O = s.event_outbox


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


def _row(m: RowMapping) -> OutboxRow:
    return OutboxRow(id=m["id"], stack_id=m["stack_id"], event_uuid=m["event_uuid"],
                     sink_key=m["sink_key"], sink=m["sink"], body=m["body"],
                     attempts=m["attempts"], next_attempt_at=m["next_attempt_at"],
                     created_at=m["created_at"], last_error=m["last_error"])


class OutboxStore(StoreBase):
    """The ``event_outbox`` table; every method is one transaction."""

    def add(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Queue rows (``stack_id``, ``event_uuid``, ``sink_key``, ``sink``, ``body``),
        due at once, in the order given."""
        if not rows:
            return
        now = self._now()
        values = [{**row, "attempts": 0, "next_attempt_at": now, "claimed_by": None,
                   "claimed_until": None, "last_error": None, "created_at": now}
                  for row in rows]
        self._tx.write(lambda conn: conn.execute(insert(_O), values))

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
