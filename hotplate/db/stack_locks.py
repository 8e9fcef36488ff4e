"""The stack lock of the legacy engine: one ``stack_lock`` row per stack being worked on.

A legacy stack's operation runs in one thread of the engine whose id the row
holds (engine/legacy/). Each change is one statement; the primary key and the
row lock its statement takes settle every race::

    method              statement and condition                          loser gets
    ------------------  -----------------------------------------------  -------------
    acquire_stack_lock  INSERT (stack_id, engine_id)                      the holder's id
    steal_stack_lock    UPDATE ... SET engine_id = <live>                 False
                          WHERE stack_id = ? AND engine_id = <dead>
    release_stack_lock  DELETE ... WHERE stack_id = ? AND engine_id = <ours>  False

A paused holder that comes back finds its lock stolen: its release matches no
row, which is how it learns that it must stop (Heat's engine exits then).
"""

from __future__ import annotations

from sqlalchemy import Executable, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.model.ids import EngineId, StackId

_lock = s.stack_lock

ACQUIRE_TRIES = 3
"""An INSERT that lost, then found no holder (released between the two statements),
tries again this many times in all."""


class StackLockStore(StoreBase):
    def acquire_stack_lock(self, stack_id: StackId, engine_id: EngineId) -> EngineId | None:
        """Take the stack's lock for ``engine_id``: None when taken, else the engine
        holding it (``engine_id`` itself when it holds it already)."""
        row = {"stack_id": str(stack_id), "engine_id": str(engine_id),
               "created_at": self._now(), "updated_at": None}
        for _ in range(ACQUIRE_TRIES):
            try:
                self._tx.write(lambda conn: conn.execute(insert(_lock).values(row)))
                return None
            except IntegrityError:
                holder = self.stack_lock_holder(stack_id)
                if holder is not None:
                    return holder
        raise RuntimeError(f"stack {stack_id}: its lock neither taken nor held")

    def steal_stack_lock(self, stack_id: StackId, dead: EngineId, live: EngineId) -> bool:
        """Move the lock from ``dead`` to ``live``; False if ``dead`` no longer holds it."""
        statement = update(_lock).where(
            _lock.c.stack_id == str(stack_id), _lock.c.engine_id == str(dead),
        ).values(engine_id=str(live), updated_at=self._now())
        return self._one_row(statement)

    def release_stack_lock(self, stack_id: StackId, engine_id: EngineId) -> bool:
        """Drop ``engine_id``'s lock; False if it does not hold it (stolen meanwhile)."""
        statement = delete(_lock).where(_lock.c.stack_id == str(stack_id),
                                        _lock.c.engine_id == str(engine_id))
        return self._one_row(statement)

    def stack_lock_holder(self, stack_id: StackId) -> EngineId | None:
        """The engine holding the stack's lock; None when nobody does."""
        query = select(_lock.c.engine_id).where(_lock.c.stack_id == str(stack_id))
        found = self._tx.read(lambda conn: conn.execute(query).scalar(), single_statement=True)
        return EngineId(found) if found is not None else None

    def _one_row(self, statement: Executable) -> bool:
        return bool(self._tx.write(lambda conn: conn.execute(statement).rowcount) == 1)
