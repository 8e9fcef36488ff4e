"""The stack list query: filters, sort keys and keyset pagination by marker.

Pagination is by keyset, not OFFSET: the marker row's sort values are read
and the page starts strictly after them, with ``id`` as the final tiebreak so
the order is total and no row is shown twice or skipped between pages.
``updated_at`` sorts as ``COALESCE(updated_at, created_at)`` (a never-updated
stack counts as updated when created): the three backends disagree on where
NULLs sort, a coalesced key has no NULLs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, and_, false, func, or_, select

from hotplate.db import schema as s
from hotplate.db.rows import plain, stack_select_columns

SORT_KEYS = ("created_at", "updated_at", "name", "status")
STACK_FILTERS = {
    "id": "id",
    "name": "name",
    "status": "status",
    "action": "action",
    "username": "username",
    "owner_id": "owner_id",
    "tenant": "tenant",
    "project_id": "tenant",
}


def sort_expression(key: str) -> ColumnElement[Any]:
    st = s.stack
    if key == "updated_at":
        return func.coalesce(st.c.updated_at, st.c.created_at)
    if key not in SORT_KEYS:
        raise ValueError(f"cannot sort stacks by {key!r}; use one of {', '.join(SORT_KEYS)}")
    return st.c[key]


def stack_list_query(
    conn: Connection,
    project_id: str | None,
    *,
    limit: int | None,
    marker: str | None,
    sort_keys: Sequence[str],
    sort_dir: str,
    filters: Mapping[str, Any],
    show_deleted: bool,
    show_nested: bool,
) -> Select[Any]:
    """Build the page query (reading the marker's sort values through ``conn``)."""
    if sort_dir not in ("asc", "desc"):
        raise ValueError(f"sort_dir must be 'asc' or 'desc', not {sort_dir!r}")
    st = s.stack
    keys = [sort_expression(k) for k in dict.fromkeys(sort_keys or ("created_at",))]
    keys.append(st.c.id)
    query = select(*stack_select_columns())
    if project_id is not None:
        query = query.where(st.c.tenant == project_id)
    if not show_deleted:
        query = query.where(st.c.deleted_at.is_(None))
    if not show_nested:
        query = query.where(st.c.owner_id.is_(None))
    for name, value in filters.items():
        query = query.where(_filter(name, value))
    if marker is not None:
        marker_values = conn.execute(select(*keys).where(st.c.id == marker)).first()
        if marker_values is not None:
            query = query.where(_after(keys, tuple(marker_values), sort_dir == "asc"))
    ordered = [k.asc() if sort_dir == "asc" else k.desc() for k in keys]
    query = query.order_by(*ordered)
    if limit is not None:
        query = query.limit(limit)
    return query


def _filter(name: str, value: Any) -> ColumnElement[bool]:
    column_name = STACK_FILTERS.get(name)
    if column_name is None:
        raise ValueError(f"cannot filter stacks by {name!r}")
    column = s.stack.c[column_name]
    if isinstance(value, list | tuple | set | frozenset):
        values = [plain(v) for v in value]
        return column.in_(values) if values else false()
    return column == plain(value)


def _after(
    keys: Sequence[ColumnElement[Any]], marker: tuple[Any, ...], ascending: bool
) -> ColumnElement[bool]:
    """Rows strictly after ``marker`` in the (k1, k2, ..., id) order."""
    clauses = []
    for i, key in enumerate(keys):
        equal_prefix = [keys[j] == marker[j] for j in range(i)]
        beyond = key > marker[i] if ascending else key < marker[i]
        clauses.append(and_(*equal_prefix, beyond))
    return or_(*clauses)
