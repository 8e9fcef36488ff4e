"""Signals kept before they are answered: stored, de-duplicated by id, applied once.

``resource_signal`` stores a signal (``record_signal``) before the caller
gets its answer, so an engine that dies before handling it loses nothing:
the recovery sweep finds it unapplied (``signals_to_redrive``), claims it
(``claim_signal``, a compare-and-swap on ``attempted_at``) and applies it
again. The unique key (resource_id, signal_id) makes a repeated signal a
no-op: its insert fails and the caller learns it is a repeat.

A handler that changes its resource's metadata (a wait condition handle)
writes it together with the signal's applied mark
(``write_signal_metadata``): the metadata is a compare-and-swap on the
resource row's ``atomic_key`` (the row unlocked, as every signal write),
the mark a compare-and-swap on ``applied_at IS NULL``; either failing rolls
both back. So a signal re-driven after its engine died, or applied by two
engines at once, changes the metadata exactly once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, exists, insert, select, update
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.tx import Rollback
from hotplate.model.ids import ResourceId, StackId
from hotplate.model.signals import MetadataWrite, StoredSignal

_sig = s.resource_signal
_r = s.resource


def _to_signal(row: Any) -> StoredSignal:
    return StoredSignal(id=int(row.id), stack_id=StackId(row.stack_id),
                        resource_id=ResourceId(int(row.resource_id)),
                        signal_id=str(row.signal_id), details=row.details,
                        received_at=row.received_at, attempted_at=row.attempted_at,
                        applied_at=row.applied_at)


class SignalStore(StoreBase):
    def record_signal(self, stack_id: StackId, resource_id: ResourceId, signal_id: str,
                      details: Any) -> StoredSignal | None:
        """Store a signal as received; None when one of that id is already stored."""
        now = self._now()
        row = {"stack_id": stack_id, "resource_id": resource_id, "signal_id": signal_id,
               "details": details, "received_at": now, "attempted_at": now,
               "applied_at": None}

        def run(conn: Connection) -> int:
            result = conn.execute(insert(_sig).values(row))
            key = result.inserted_primary_key
            if key is not None and key[0] is not None:
                return int(key[0])
            found = conn.execute(select(_sig.c.id).where(
                _sig.c.resource_id == resource_id, _sig.c.signal_id == signal_id)).scalar()
            return int(found or 0)

        try:
            new_id = self._tx.write(run)
        except IntegrityError:  # the same id again: a repeat
            return None
        return StoredSignal(id=new_id, stack_id=stack_id, resource_id=resource_id,
                            signal_id=signal_id, details=details, received_at=now,
                            attempted_at=now)

    def get_signal(self, resource_id: ResourceId, signal_id: str) -> StoredSignal | None:
        query = select(_sig).where(_sig.c.resource_id == resource_id,
                                   _sig.c.signal_id == signal_id)
        found = self._tx.read(lambda conn: conn.execute(query).first(), single_statement=True)
        return _to_signal(found) if found is not None else None

    def list_signals(self, resource_id: ResourceId) -> list[StoredSignal]:
        """The resource's stored signals, in the order they were received."""
        query = select(_sig).where(_sig.c.resource_id == resource_id).order_by(_sig.c.id)
        rows = self._tx.read(lambda conn: conn.execute(query).all(), single_statement=True)
        return [_to_signal(row) for row in rows]

    def mark_signal_applied(self, signal: int) -> bool:
        """Set the applied mark; False when it was set already (or the signal is gone)."""
        statement = (update(_sig).where(_sig.c.id == signal, _sig.c.applied_at.is_(None))
                     .values(applied_at=self._now()))
        return bool(self._tx.write(lambda conn: conn.execute(statement).rowcount == 1))

    def write_signal_metadata(self, signal: int, resource_id: ResourceId,
                              expected_atomic_key: int,
                              metadata: dict[str, Any]) -> MetadataWrite:
        """The resource's metadata and the signal's applied mark, in one transaction.

        The row must be unlocked with ``atomic_key = expected`` (bumped by the
        write); the signal must not be applied yet.
        """
        now = self._now()
        write_row = (update(_r).where(_r.c.id == resource_id, _r.c.engine_id.is_(None),
                                      _r.c.atomic_key == expected_atomic_key)
                     .values(rsrc_metadata=metadata, atomic_key=_r.c.atomic_key + 1,
                             updated_at=now))
        mark = (update(_sig).where(_sig.c.id == signal, _sig.c.applied_at.is_(None))
                .values(applied_at=now))
        row_exists = select(exists().where(_r.c.id == resource_id))

        def run(conn: Connection) -> MetadataWrite:
            if conn.execute(write_row).rowcount != 1:
                present = bool(conn.execute(row_exists).scalar())
                raise Rollback(MetadataWrite.CONFLICT if present else MetadataWrite.GONE)
            if conn.execute(mark).rowcount != 1:
                raise Rollback(MetadataWrite.ALREADY_APPLIED)
            return MetadataWrite.APPLIED

        return self._tx.write(run)

    def signals_to_redrive(self, attempted_before: datetime,
                           limit: int = 100) -> list[StoredSignal]:
        """Unapplied signals whose last attempt began before ``attempted_before``."""
        query = (select(_sig).where(_sig.c.applied_at.is_(None),
                                    _sig.c.attempted_at < attempted_before)
                 .order_by(_sig.c.id).limit(limit))
        rows = self._tx.read(lambda conn: conn.execute(query).all(), single_statement=True)
        return [_to_signal(row) for row in rows]

    def claim_signal(self, signal: StoredSignal) -> StoredSignal | None:
        """Take an unapplied signal to apply it again: a compare-and-swap on its
        ``attempted_at`` as read, so one engine wins each; None: another did."""
        now = self._now()
        statement = (update(_sig).where(_sig.c.id == signal.id, _sig.c.applied_at.is_(None),
                                        _sig.c.attempted_at == signal.attempted_at)
                     .values(attempted_at=now))
        won = self._tx.write(lambda conn: conn.execute(statement).rowcount == 1)
        if not won:
            return None
        return StoredSignal(id=signal.id, stack_id=signal.stack_id,
                            resource_id=signal.resource_id, signal_id=signal.signal_id,
                            details=signal.details, received_at=signal.received_at,
                            attempted_at=now)

    def delete_orphan_signals(self) -> int:
        """Forget the signals of resources that no longer exist."""
        statement = delete(_sig).where(~exists().where(_r.c.id == _sig.c.resource_id))
        return int(self._tx.write(lambda conn: conn.execute(statement).rowcount))
