"""Events: an append-only log, written in the transaction of the change it records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.fastpath import FastPath
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
        e = s.event
        stack_ids = [stack_id] if isinstance(stack_id, str) else list(stack_id)
        in_stacks = e.c.stack_id.in_(stack_ids) if len(stack_ids) != 1 else (
            e.c.stack_id == stack_ids[0])
        query = select(e).where(in_stacks)
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
        ascending = sort_dir == "asc"
        query = query.order_by(e.c.id.asc() if ascending else e.c.id.desc())
        if limit is not None:
            query = query.limit(limit)

        def run(conn: Connection) -> list[EventRecord]:
            nonlocal query
            if marker is not None:
                marker_id = conn.execute(
                    select(e.c.id).where(e.c.uuid == marker, in_stacks)
                ).scalar()
                if marker_id is not None:
                    query = query.where(e.c.id > marker_id if ascending else e.c.id < marker_id)
            return [to_event(row) for row in conn.execute(query).mappings()]

        return self._tx.read(run)
