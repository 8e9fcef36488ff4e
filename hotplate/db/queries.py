"""Hot-path statements, built once at import and run with bound parameters.

Building a SQLAlchemy statement and computing its cache key costs more than
SQLite takes to run it (about 0.3 ms for the resource UPDATE ... RETURNING);
a statement object built once computes its cache key once. Parameters are
named ``b_*`` so they never clash with the column names an UPDATE sets from
its execution parameters.
"""

from __future__ import annotations

from sqlalchemy import Select, bindparam, select, update

from hotplate.db import schema as s
from hotplate.db.rows import (
    attr_data_subquery,
    resource_select_columns,
    stack_select_columns,
)

_r, _st, _t, _rpd = s.resource, s.stack, s.stack_tag, s.resource_properties_data
_resource_with_attrs = _r.outerjoin(_rpd, _rpd.c.id == _r.c.attr_data_id)

RESOURCE_RETURNING = resource_select_columns(attr_data_subquery())
"""A resource row as RETURNING gives it back (attr_data by scalar subquery)."""

GET_RESOURCE = (
    select(*resource_select_columns(_rpd.c.data))
    .select_from(_resource_with_attrs)
    .where(_r.c.id == bindparam("b_id"))
)
LIST_RESOURCES = (
    select(*resource_select_columns(_rpd.c.data))
    .select_from(_resource_with_attrs)
    .where(_r.c.stack_id == bindparam("b_stack_id"))
    .order_by(_r.c.id)
)
LIST_RESOURCES_NAMED = LIST_RESOURCES.where(_r.c.name == bindparam("b_name"))
RESOURCES_BY_PHYSICAL_ID = (
    select(*resource_select_columns(_rpd.c.data))
    .select_from(_resource_with_attrs)
    .where(_r.c.nova_instance == bindparam("b_physical_id"))
    .order_by(_r.c.id)
)
_NODE_SELECT = (
    select(
        *resource_select_columns(_rpd.c.data, "r_"),
        *stack_select_columns("s_"),
        _t.c.tag.label("s_tag"),
    )
    .select_from(
        _r.join(_st, _st.c.id == _r.c.stack_id)
        .outerjoin(_rpd, _rpd.c.id == _r.c.attr_data_id)
        .outerjoin(_t, _t.c.stack_id == _st.c.id)
    )
)
LOAD_NODE = _NODE_SELECT.where(_r.c.id == bindparam("b_id")).order_by(_t.c.id)
"""Resource, attribute data, stack and tags in one SELECT (one row per tag)."""
LOAD_NODES = (_NODE_SELECT.where(_r.c.id.in_(bindparam("b_ids", expanding=True)))
              .order_by(_r.c.id, _t.c.id))
"""LOAD_NODE for many resources (a batch's), run through SQLAlchemy: the fast path
compiles a statement once, and an expanding IN is compiled per list length."""


def _get_stack(include_deleted: bool) -> Select[tuple[object, ...]]:
    query = (
        select(*stack_select_columns(), _t.c.tag)
        .select_from(_st.outerjoin(_t, _t.c.stack_id == _st.c.id))
        .where(_st.c.id == bindparam("b_id"))
        .order_by(_t.c.id)
    )
    return query if include_deleted else query.where(_st.c.deleted_at.is_(None))


GET_STACK = {flag: _get_stack(flag) for flag in (False, True)}
"""By include_deleted: the stack and its tags in one SELECT (one row per tag)."""

# Conditional resource writes. SET comes from the execution parameters (the
# columns being written), plus the atomic_key bump every write makes.
_bump = {"atomic_key": _r.c.atomic_key + 1}
UPDATE_IF_UNLOCKED = (
    update(_r)
    .where(
        _r.c.id == bindparam("b_id"),
        _r.c.engine_id.is_(None),
        _r.c.atomic_key == bindparam("b_atomic_key"),
    )
    .values(_bump)
)
"""acquire_resource and update_resource_if_unlocked."""
UPDATE_IF_ENGINE = (
    update(_r)
    .where(_r.c.id == bindparam("b_id"), _r.c.engine_id == bindparam("b_engine_id"))
    .values(_bump)
)
"""update_resource_locked (our engine) and steal_resource_lock (the dead one)."""

RESOURCE_WRITES = {
    (by_engine, returning): (base.returning(*RESOURCE_RETURNING) if returning else base)
    for by_engine, base in ((False, UPDATE_IF_UNLOCKED), (True, UPDATE_IF_ENGINE))
    for returning in (False, True)
}
"""By (conditioned on engine_id?, with RETURNING?)."""
