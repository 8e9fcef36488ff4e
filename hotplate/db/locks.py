"""The resource lock: every conditional write of a resource row.

Each write is one ``UPDATE resource ... WHERE id = ? AND <condition>`` that
also bumps ``atomic_key``; the row lock the UPDATE takes decides races, and a
loser matches no row and writes nothing (not even its event). Where the
backend has ``UPDATE ... RETURNING`` the written row comes back from the
UPDATE itself; on MariaDB a SELECT follows in the same transaction, which
reads our own uncommitted write under the row lock we still hold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Insert, bindparam, insert, update
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import queries as q
from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.events import insert_event, insert_events
from hotplate.db.resources import new_resource_row
from hotplate.db.rows import inserted_id, resource_values, to_resource
from hotplate.db.tx import Rollback
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.records import NewEvent, NewResource, ResourceRecord

_r = s.resource
_DATA_COLUMNS = ("resource_id", "key", "value", "redact", "decrypt_method", "created_at")


class _Keep(Enum):
    KEEP = "keep"


KEEP = _Keep.KEEP
"""Leave engine_id as it is (the write neither takes nor drops the lock)."""


class ResourceLockStore(StoreBase):
    if TYPE_CHECKING:
        # Provided by ResourceStore, the mixin SqlStore combines this one with.
        def _upsert_resource_data(
            self, resource_id: ResourceId, key: str, value: str, redact: bool, now: datetime
        ) -> tuple[Insert, dict[str, Any]]: ...

    def acquire_resource(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> ResourceRecord | None:
        """SET engine_id = ours WHERE engine_id IS NULL AND atomic_key = expected."""
        condition = {"b_atomic_key": expected_atomic_key}
        return self._record(self._write_resource(resource_id, condition, values, event, engine_id))

    def update_resource_locked(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
        *,
        release: bool = False,
    ) -> ResourceRecord | None:
        """Write while holding the lock (WHERE engine_id = ours); ``release`` unlocks."""
        condition = {"b_engine_id": engine_id}
        new_engine = None if release else KEEP
        written = self._write_resource(resource_id, condition, values, event, new_engine)
        return self._record(written)

    def update_resource_if_unlocked(
        self,
        resource_id: ResourceId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> ResourceRecord | None:
        """Write WHERE engine_id IS NULL AND atomic_key = expected, without locking."""
        condition = {"b_atomic_key": expected_atomic_key}
        return self._record(self._write_resource(resource_id, condition, values, event, KEEP))

    def steal_resource_lock(
        self,
        resource_id: ResourceId,
        dead_engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> bool:
        """SET engine_id = NULL, <values> WHERE engine_id = the dead engine."""
        condition = {"b_engine_id": dead_engine_id}
        row = self._write_resource(resource_id, condition, values, event, None, want_row=False)
        return row is not None

    def make_replacement(
        self,
        old_id: ResourceId,
        new: NewResource,
        *,
        expected_engine_id: EngineId | None,
        expected_atomic_key: int | None = None,
        release: bool = True,
        old_values: Mapping[str, Any] | None = None,
        events: Sequence[NewEvent] = (),
    ) -> ResourceId | None:
        """INSERT the replacement (replaces = old_id), then mark the old row replaced_by it.

        Both in one transaction: when the old row fails its condition the
        insert is rolled back too. Concurrent callers queue on the old row's
        lock; the first bumps atomic_key (and releases the lock), so the
        others no longer match. Without ``expected_atomic_key`` and with
        ``release=False`` nothing changes the condition, so pass the key
        when racing callers may hold the same lock. ``old_values`` are
        written to the old row with the mark (its state as the replacement
        leaves it) and ``events`` in the same transaction: one statement
        more (an executemany), none when there are none.
        """
        now = self._now()
        row = new_resource_row(new, now) | {"replaces": old_id}
        conditions = [
            _r.c.id == old_id,
            _r.c.engine_id.is_(None)
            if expected_engine_id is None
            else _r.c.engine_id == expected_engine_id,
        ]
        if expected_atomic_key is not None:
            conditions.append(_r.c.atomic_key == expected_atomic_key)
        marks: dict[str, Any] = self._sealed(resource_values(old_values or {})) | {
            "atomic_key": _r.c.atomic_key + 1, "updated_at": now}
        if release:
            marks["engine_id"] = None

        def run(conn: Connection) -> ResourceId:
            new_id = ResourceId(inserted_id(conn.execute(insert(_r).values(row))))
            marked = conn.execute(
                update(_r).where(*conditions).values(marks | {"replaced_by": new_id})
            )
            if marked.rowcount != 1:
                raise Rollback(None)
            insert_events(conn, events, now, self._fast)
            return new_id

        return self._tx.write(run)

    # -- the one conditional write ---------------------------------------------
    def _write_resource(
        self,
        resource_id: ResourceId,
        condition: dict[str, Any],
        values: Mapping[str, Any],
        event: NewEvent | Sequence[NewEvent] | None,
        engine_id: EngineId | _Keep | None,
        *,
        want_row: bool = True,
        after: Callable[[PoolProxiedConnection], Any] | None = None,
    ) -> dict[str, Any] | None:
        """UPDATE ... WHERE id AND condition, bump atomic_key, then attrs and event.

        ``condition`` holds ``b_atomic_key`` (row unlocked, key matches) or
        ``b_engine_id`` (row locked by that engine). ``engine_id`` is the
        lock's new value (KEEP: unchanged). Returns the row as written (empty
        when not ``want_row``), or None when no row matched. Statements: the
        UPDATE (RETURNING where possible; else a SELECT after it), the
        attribute row when ``attr_data`` is given (an UPDATE of the existing
        row, or an INSERT plus linking it), one upsert per ``resource_data``
        key, the event(s), then whatever ``after`` runs (its result is stored
        under the ``"after"`` key of the returned row).
        """
        now = self._now()
        params = self._sealed(resource_values(values))
        if engine_id is not KEEP:
            params["engine_id"] = engine_id
        params.setdefault("updated_at", now)
        params |= condition
        params["b_id"] = resource_id
        has_attrs = "attr_data" in values
        need_row = want_row or has_attrs
        returning = need_row and self._update_returning
        statement = q.RESOURCE_WRITES["b_engine_id" in condition, returning]

        def run(conn: PoolProxiedConnection) -> dict[str, Any] | None:
            set_keys = [k for k in params if not k.startswith("b_")]
            found, count = self._fast.execute(conn, statement, params, set_keys=set_keys)
            if returning:
                if not found:
                    return None
                row = found[0]
            else:
                if count != 1:
                    return None
                row = self._select_row(conn, resource_id) if need_row else {}
            if has_attrs:
                row["attr_data"] = attrs = values["attr_data"]
                if attrs and self._secrets.parameters_and_properties:
                    attrs = self._secrets.seal(attrs)
                self._store_attr_data(conn, resource_id, row["attr_data_id"], attrs, now)
            for key, (value, redact) in (values.get("resource_data") or {}).items():
                upsert, upsert_params = self._upsert_resource_data(
                    resource_id, key, value, redact, now)
                self._fast.send(conn, upsert, upsert_params, set_keys=_DATA_COLUMNS)
            if event is None or isinstance(event, NewEvent):
                insert_event(conn, event, now, self._fast)
            else:
                insert_events(conn, event, now, self._fast)
            if after is not None:
                row["after"] = after(conn)
            return row

        return self._tx.write_grouped(run, int(resource_id))

    def _record(self, row: dict[str, Any] | None) -> ResourceRecord | None:
        return to_resource(row, secrets=self._secrets) if row is not None else None

    def _sealed(self, params: dict[str, Any]) -> dict[str, Any]:
        """Column values with the properties encrypted, when they are to be."""
        if self._secrets.parameters_and_properties and params.get("properties_data"):
            params["properties_data"] = self._secrets.seal(params["properties_data"])
        return params

    def _select_row(self, conn: PoolProxiedConnection, resource_id: ResourceId) -> dict[str, Any]:
        return self._fast.execute(conn, q.GET_RESOURCE, {"b_id": resource_id})[0][0]

    def _store_attr_data(
        self, conn: PoolProxiedConnection, resource_id: ResourceId, attr_id: int | None,
        data: Any, now: datetime,
    ) -> None:
        """Overwrite the resource's attribute row in place, or create and link one.

        In place (as Heat's create_or_update does) so a resource never leaves
        orphaned attribute rows behind however often its attributes change.
        """
        fast = self._fast
        if attr_id is not None:
            params = {"b_id": attr_id, "data": data, "updated_at": now}
            fast.execute(conn, _UPDATE_ATTRS, params, set_keys=("data", "updated_at"))
            return
        created = {"data": data, "encrypted": False, "created_at": now}
        rows, _ = fast.execute(conn, _INSERT_ATTRS, created, set_keys=created)
        fast.execute(conn, _LINK_ATTRS, {"b_id": resource_id, "attr_data_id": rows[0]["id"]},
                     set_keys=("attr_data_id",))





_UPDATE_ATTRS = update(s.resource_properties_data).where(
    s.resource_properties_data.c.id == bindparam("b_id")
)
_INSERT_ATTRS = insert(s.resource_properties_data).returning(s.resource_properties_data.c.id)
_LINK_ATTRS = update(_r).where(_r.c.id == bindparam("b_id"))
