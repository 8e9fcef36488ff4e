"""Hot-path statements, built once at import and run with bound parameters.

Building a SQLAlchemy statement and computing its cache key costs more than
SQLite takes to run it (about 0.3 ms for the resource UPDATE ... RETURNING);
a statement object built once computes its cache key once. Parameters are
named ``b_*`` so they never clash with the column names an UPDATE sets from
its execution parameters.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, Select, bindparam, func, select, update

from hotplate.db import schema as s
from hotplate.db.rows import (
    RESOURCE_SUMMARY_COLUMNS,
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
LIST_RESOURCE_SUMMARIES = (
    select(*(_r.c[name] for name in RESOURCE_SUMMARY_COLUMNS))
    .where(_r.c.stack_id == bindparam("b_stack_id"))
    .order_by(_r.c.id)
)
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


def _stack_named(include_deleted: bool) -> Select[tuple[object, ...]]:
    query = select(_st.c.id).where(_st.c.tenant == bindparam("b_project"),
                                   _st.c.name == bindparam("b_name"))
    if not include_deleted:
        query = query.where(_st.c.deleted_at.is_(None))
    return query.order_by(_st.c.deleted_at.is_not(None), _st.c.created_at.desc(),
                          _st.c.id).limit(1)


STACK_NAMED = {flag: _stack_named(flag) for flag in (False, True)}
"""By include_deleted: the id of a project's stack of that name (the live one first,
else the latest deleted one); GET_STACK then reads it. Every request that names a
stack asks."""


def _child_stacks(include_deleted: bool) -> Select[tuple[object, ...]]:
    query = (
        select(*stack_select_columns(), _t.c.tag)
        .select_from(_st.outerjoin(_t, _t.c.stack_id == _st.c.id))
        .where(_st.c.owner_id == bindparam("b_owner"))
        .order_by(_st.c.created_at, _st.c.id, _t.c.id)
    )
    return query if include_deleted else query.where(_st.c.deleted_at.is_(None))


CHILD_STACKS = {flag: _child_stacks(flag) for flag in (False, True)}
"""By include_deleted: the stacks a stack owns, oldest first, with their tags (one
row per tag). Every nested listing (events, resources) walks the tree with it."""

_e = s.event
_NO_EVENT_ID = 2**62
"""Beyond any event id: where a newest-first page starts without a marker."""


def _events_page(what: str, ascending: bool, many: bool) -> Select[tuple[object, ...]]:
    def in_stacks(table: Any) -> ColumnElement[bool]:
        if many:
            return cast(ColumnElement[bool],
                        table.c.stack_id.in_(bindparam("b_stacks", expanding=True)))
        return cast(ColumnElement[bool], table.c.stack_id == bindparam("b_stack"))

    mark = _e.alias("marker")
    marker_id = select(mark.c.id).where(mark.c.uuid == bindparam("b_marker"),
                                        in_stacks(mark)).scalar_subquery()
    columns = (_e.c.uuid,) if what == "ids" else (_e,)
    query = select(*columns).where(in_stacks(_e))
    if ascending:
        query = query.where(_e.c.id > func.coalesce(marker_id, 0)).order_by(_e.c.id.asc())
    else:
        query = query.where(_e.c.id < func.coalesce(marker_id, _NO_EVENT_ID)
                            ).order_by(_e.c.id.desc())
    return query.limit(bindparam("b_limit"))


EVENTS_PAGE = {(what, ascending, many): _events_page(what, ascending, many)
               for what in ("rows", "ids") for ascending in (True, False)
               for many in (True, False)}
"""By (rows or ids, ascending, several stacks): a page of events after a marker (an
event uuid of those stacks; unknown or None: from the first), in one statement.
A stream of the web view asks for one every 250 ms."""
