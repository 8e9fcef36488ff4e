"""Settling a stack stuck IN_PROGRESS by hand: ``heat-manage reset_stack_status``.

For a crash recovery could not mend (engines are meant to be stopped first).
The stack and each stack nested under it, one transaction each, parent first:

- its resources IN_PROGRESS become FAILED, "Stack status manually reset",
  unlocked (``engine_id`` NULL, ``atomic_key`` moved on, so a worker still
  holding the lock loses every write it tries);
- the hooks its resources wait at are forgotten (their resource data);
- if the stack itself is IN_PROGRESS, it becomes FAILED with the same reason,
  and its traversal ends: ``current_traversal`` cleared and the traversal's
  sync points gone, so a worker still running a node finds its traversal
  superseded and writes nothing more (``engine/worker/check_resource.py``);
- its stack lock goes.

Heat does the same, but leaves a convergence stack's traversal running.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Engine, delete, select, update

from hotplate.db import schema as s
from hotplate.db.tx import Transactions
from hotplate.model.ids import NO_TRAVERSAL
from hotplate.template.environment import HOOK_TYPES

__all__ = ["RESET_REASON", "StackNotFound", "reset_stack_status"]

RESET_REASON = "Stack status manually reset"


class StackNotFound(LookupError):
    """No stack row has that id (deleted ones included)."""

    def __init__(self, stack_id: str) -> None:
        super().__init__(f"Stack with id {stack_id} not found")


def reset_stack_status(engine: Engine, stack_id: str, now: datetime) -> list[str]:
    """Reset the stack and every stack nested under it; their ids, the stack first.

    Raises:
        StackNotFound: there is no such stack.
    """
    st = s.stack
    with engine.connect() as conn:
        if conn.execute(select(st.c.id).where(st.c.id == stack_id)).first() is None:
            raise StackNotFound(stack_id)
    done: list[str] = []
    pending = [stack_id]
    while pending:
        current = pending.pop(0)
        if current in done:
            continue
        def reset(conn: Connection, current: str = current) -> list[str]:
            _reset_one(conn, current, now)
            return [str(child) for child in conn.execute(
                select(st.c.id).where(st.c.owner_id == current).order_by(st.c.id)).scalars()]

        # BEGIN IMMEDIATE on SQLite: an engine may be writing the same file.
        pending.extend(Transactions(engine).write(reset))
        done.append(current)
    return done


def _reset_one(conn: Connection, stack_id: str, now: datetime) -> None:
    st, r, rd = s.stack, s.resource, s.resource_data
    conn.execute(
        update(r)
        .where(r.c.stack_id == stack_id, r.c.status == "IN_PROGRESS")
        .values(status="FAILED", status_reason=RESET_REASON, engine_id=None,
                atomic_key=r.c.atomic_key + 1, updated_at=now))
    rows = select(r.c.id).where(r.c.stack_id == stack_id)
    conn.execute(delete(rd).where(rd.c.resource_id.in_(rows), rd.c.key.in_(sorted(HOOK_TYPES))))
    settled = conn.execute(
        update(st)
        .where(st.c.id == stack_id, st.c.status == "IN_PROGRESS")
        .values(status="FAILED", status_reason=RESET_REASON,
                current_traversal=NO_TRAVERSAL, updated_at=now)).rowcount
    if settled:
        conn.execute(delete(s.sync_point).where(s.sync_point.c.stack_id == stack_id))
    conn.execute(delete(s.stack_lock).where(s.stack_lock.c.stack_id == stack_id))
