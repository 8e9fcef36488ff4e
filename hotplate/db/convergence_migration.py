"""Writing a stack tree's migration to convergence (convergence/migration.py) in one
transaction: every stack of the tree moves, or none does.

Each stack must still be as it was read: live, COMPLETE, not yet convergence, and on
the same traversal; each row it converts must be unlocked. Anything else (an action
started meanwhile) undoes the whole migration, and the caller reports the stack busy.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, Engine, delete, func, select, update

from hotplate.convergence.migration import StackConversion
from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.rows import to_stack
from hotplate.db.tx import Rollback, Transactions
from hotplate.model.ids import NO_TRAVERSAL
from hotplate.model.records import StackRecord

__all__ = ["ConvergenceMigrationStore", "convert_to_convergence", "nested_stacks"]


def nested_stacks(engine: Engine, root_id: str) -> list[StackRecord]:
    """Every live stack nested under ``root_id``, at any depth, parents first."""
    st = s.stack
    found: list[StackRecord] = []
    owners = [root_id]
    with engine.connect() as conn:
        while owners:
            rows = conn.execute(select(st).where(st.c.owner_id.in_(owners),
                                                 st.c.deleted_at.is_(None))
                                .order_by(st.c.created_at, st.c.id)).mappings().all()
            children = [to_stack(row) for row in rows]
            found.extend(children)
            owners = [str(child.id) for child in children]
    return found


def convert_to_convergence(engine: Engine, conversions: Sequence[StackConversion]) -> bool:
    """Apply every conversion; False (and nothing written) if any stack or row had moved
    on since it was read."""
    def run(conn: Connection) -> bool:
        for conversion in conversions:
            if not _convert(conn, conversion):
                raise Rollback(False)
        for conversion in conversions:
            if conversion.prev_template_id is not None:
                _drop_template(conn, conversion.prev_template_id)
        return True

    return bool(Transactions(engine).write(run))


def _convert(conn: Connection, conversion: StackConversion) -> bool:
    st, r, rd = s.stack, s.resource, s.resource_data
    moved = conn.execute(
        update(st)
        .where(st.c.id == conversion.stack_id, st.c.deleted_at.is_(None),
               st.c.status == "COMPLETE", st.c.convergence.is_(False),
               func.coalesce(st.c.current_traversal, NO_TRAVERSAL)
               == conversion.expected_traversal)
        .values(convergence=True, current_traversal=conversion.new_traversal,
                current_deps=None, prev_raw_template_id=None))
    if moved.rowcount != 1:
        return False
    for row_id, requires in conversion.requires.items():
        converted = conn.execute(
            update(r)
            .where(r.c.id == row_id, r.c.stack_id == conversion.stack_id,
                   r.c.engine_id.is_(None))
            .values(current_template_id=conversion.template_id, requires=list(requires),
                    atomic_key=r.c.atomic_key + 1))
        if converted.rowcount != 1:
            return False
    if conversion.dropped:
        dropped = list(conversion.dropped)
        if conn.execute(select(r.c.id).where(r.c.id.in_(dropped), r.c.engine_id.is_not(None))
                        ).first() is not None:
            return False
        attrs = [i for i in conn.execute(select(r.c.attr_data_id).where(
            r.c.id.in_(dropped), r.c.attr_data_id.is_not(None))).scalars()]
        conn.execute(delete(rd).where(rd.c.resource_id.in_(dropped)))
        conn.execute(delete(r).where(r.c.id.in_(dropped)))
        if attrs:
            conn.execute(delete(s.resource_properties_data).where(
                s.resource_properties_data.c.id.in_(attrs)))
    return True


def _drop_template(conn: Connection, template_id: int) -> None:
    """The stack's previous template, unless a stack or a row still refers to it."""
    st, r, rt = s.stack, s.resource, s.raw_template
    conn.execute(delete(rt).where(
        rt.c.id == template_id,
        ~select(st.c.id).where((st.c.raw_template_id == template_id)
                               | (st.c.prev_raw_template_id == template_id)).exists(),
        ~select(r.c.id).where(r.c.current_template_id == template_id).exists()))


class ConvergenceMigrationStore(StoreBase):
    """The two reads and the write above, on the store's engine (a SqlStore mixin), for
    the engine topic's ``migrate_convergence_1``."""

    def nested_stacks(self, root_id: str) -> list[StackRecord]:
        return nested_stacks(self.engine, root_id)

    def convert_to_convergence(self, conversions: Sequence[StackConversion]) -> bool:
        return convert_to_convergence(self.engine, conversions)
