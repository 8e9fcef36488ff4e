"""Events: an append-only log, written in the transaction of the change it records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, insert, select
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.fastpath import FastPath
from hotplate.db.queries import EVENTS_PAGE
from hotplate.db.rows import to_event
from hotplate.model.ids import StackId
from hotplate.model.records import EventRecord, NewEvent

_INSERT_EVENT = insert(s.event)
EVENT_FILTERS = ("resource_action", "resource_status", "resource_name", "resource_type",
                 "uuid")
"""Event columns a listing filters on; heat-api shows one event by filtering on its uuid."""


def insert_events(
    conn: Connection | PoolProxiedConnection,
    events: Sequence[NewEvent],
    now: datetime,
    fast: FastPath,
) -> None:
    """INSERT several event rows with one executemany (in order: their ids ascend)."""
    if len(events) == 1:
        insert_event(conn, events[0], now, fast)
    elif events:
        rows = [_event_row(event, now) for event in events]
        fast.execute_many(conn, _INSERT_EVENT, rows, set_keys=rows[0])


def _event_row(event: NewEvent, now: datetime) -> dict[str, Any]:
    return {
        "uuid": event.uuid,
        "stack_id": event.stack_id,
        "resource_action": event.resource_action,
        "resource_status": event.resource_status,
        "resource_name": event.resource_name,
        "physical_resource_id": event.physical_resource_id,
        "resource_status_reason": event.resource_status_reason,
        "resource_type": event.resource_type,
        "created_at": now,
        "updated_at": None,
    }


def insert_event(
    conn: Connection | PoolProxiedConnection,
    event: NewEvent | None,
    now: datetime,
    fast: FastPath | None = None,
) -> None:
    """INSERT one event row (nothing when ``event`` is None)."""
    if event is None:
        return
    params = _event_row(event, now)
    if fast is not None:
        fast.send(conn, _INSERT_EVENT, params, set_keys=params)
    else:
        assert isinstance(conn, Connection), "a driver connection needs the fast path"
        conn.execute(_INSERT_EVENT, params)


class EventStore(StoreBase):
    def add_event(self, event: NewEvent) -> None:
        now = self._now()
        self._tx.write(lambda conn: insert_event(conn, event, now))

    def list_events(
        self,
        stack_id: StackId | Sequence[StackId],
        *,
        resource_name: str | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_dir: str = "asc",
        filters: Mapping[str, Any] | None = None,
    ) -> list[EventRecord]:
        """Events of a stack (or of several: a stack and its nested stacks), in one order.

        ``marker`` (an event uuid) starts after that event; an unknown marker
        is ignored (the first page), as Heat does.
        """
        if sort_dir not in ("asc", "desc"):
            raise ValueError(f"sort_dir must be 'asc' or 'desc', not {sort_dir!r}")
        if resource_name is None and not filters and limit is not None:
            rows = self._page(stack_id, "rows", limit=limit, marker=marker,
                              ascending=sort_dir == "asc")
            return [to_event(row) for row in rows]
        e = s.event
        query = select(e)
        if resource_name is not None:
            query = query.where(e.c.resource_name == resource_name)
        for key, value in (filters or {}).items():
            if key not in EVENT_FILTERS:
                raise ValueError(f"cannot filter events by {key!r}")
            column = e.c[key]
            if isinstance(value, list | tuple | set | frozenset):
                query = query.where(column.in_([str(v) for v in value]))
            else:
                query = query.where(column == str(value))
        return self._tx.read(lambda conn: [
            to_event(row) for row in conn.execute(_paged(
                conn, query, stack_id, limit=limit, marker=marker,
                ascending=sort_dir == "asc")).mappings()])

    def list_event_ids(self, stack_id: StackId | Sequence[StackId], *,
                       limit: int | None = None, marker: str | None = None) -> list[str]:
        """The uuids of ``list_events(stack_id, marker=marker, limit=limit)``, oldest
        first, and nothing else of them: a cheap check of which events exist."""
        if limit is not None:
            return [str(row["uuid"]) for row in
                    self._page(stack_id, "ids", limit=limit, marker=marker, ascending=True)]
        query = select(s.event.c.uuid)
        return self._tx.read(lambda conn: [
            str(uuid) for uuid in conn.execute(_paged(
                conn, query, stack_id, limit=limit, marker=marker, ascending=True)).scalars()])

    def _page(self, stack_id: StackId | Sequence[StackId], what: str, *, limit: int,
              marker: str | None, ascending: bool) -> list[Any]:
        """A page of events (``rows`` or ``ids``) in one prepared statement, the marker
        found by its subquery: what a poll of the web view's stream costs."""
        stack_ids = [stack_id] if isinstance(stack_id, str) else list(stack_id)
        params: dict[str, Any] = {"b_marker": marker, "b_limit": limit}
        if len(stack_ids) == 1:
            params["b_stack"] = stack_ids[0]
            query = EVENTS_PAGE[what, ascending, False]
            return self._tx.read_raw(lambda conn: self._fast.execute(conn, query, params)[0])
        params["b_stacks"] = stack_ids
        query = EVENTS_PAGE[what, ascending, True]
        return self._tx.read(lambda conn: list(conn.execute(query, params).mappings()))


def _paged(conn: Connection, query: Select[Any], stack_id: StackId | Sequence[StackId], *,
           limit: int | None, marker: str | None, ascending: bool) -> Select[Any]:
    """``query`` over the events of ``stack_id`` (one stack or several), in id order,
    after ``marker`` (an event uuid of those stacks; unknown: from the first)."""
    e = s.event
    stack_ids = [stack_id] if isinstance(stack_id, str) else list(stack_id)
    in_stacks = e.c.stack_id.in_(stack_ids) if len(stack_ids) != 1 else (
        e.c.stack_id == stack_ids[0])
    query = query.where(in_stacks).order_by(e.c.id.asc() if ascending else e.c.id.desc())
    if marker is not None:
        marker_id = conn.execute(select(e.c.id).where(e.c.uuid == marker, in_stacks)).scalar()
        if marker_id is not None:
            query = query.where(e.c.id > marker_id if ascending else e.c.id < marker_id)
    return query.limit(limit) if limit is not None else query
