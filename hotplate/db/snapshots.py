"""Stack snapshots (a SqlStore mixin): the ``snapshot`` and ``resource_snapshot`` rows.

The documents are sealed with the store's key when written (they carry
parameter values and resource data) and unsealed when read; a document
without the seal is read as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update

from hotplate.db.base import StoreBase
from hotplate.db.crypt import is_sealed
from hotplate.db.schema import resource_snapshot, snapshot
from hotplate.model.snapshots import SnapshotRecord

_ANY_SNAPSHOT = select(snapshot.c.id).where(snapshot.c.stack_id == bindparam("b_stack")).limit(1)

REASON_LENGTH = 255
"""``status_reason``'s column length (Heat's): a longer reason is cut."""


class SnapshotStore(StoreBase):
    """The snapshots of stacks and of their resources."""

    def create_snapshot(self, snapshot_id: str, stack_id: str, project_id: str,
                        name: str | None, data: Mapping[str, Any], action: str,
                        status: str) -> SnapshotRecord:
        values = {"id": snapshot_id, "stack_id": stack_id, "tenant": project_id, "name": name,
                  "data": self._sealed_document(data), "action": action, "status": status,
                  "status_reason": None, "created_at": self._now()}
        self._tx.write(lambda conn: conn.execute(insert(snapshot).values(**values)))
        made = self.get_snapshot(snapshot_id)
        assert made is not None
        return made

    def get_snapshot(self, snapshot_id: str) -> SnapshotRecord | None:
        def read(conn: Connection) -> SnapshotRecord | None:
            row = conn.execute(select(snapshot).where(snapshot.c.id == snapshot_id)).first()
            if row is None:
                return None
            return self._snapshot_of(row, self._snapshot_parts(conn, row.id))

        return self._tx.read(read)

    def list_snapshots(self, stack_id: str) -> list[SnapshotRecord]:
        """The stack's snapshots, oldest first."""
        # Most stacks have none, and every delete asks: a fast probe first.
        if not self._tx.read_raw(
                lambda conn: self._fast.execute(conn, _ANY_SNAPSHOT, {"b_stack": stack_id})[0]):
            return []

        def read(conn: Connection) -> list[SnapshotRecord]:
            rows = conn.execute(select(snapshot).where(snapshot.c.stack_id == stack_id)
                                .order_by(snapshot.c.created_at, snapshot.c.id)).all()
            return [self._snapshot_of(row, self._snapshot_parts(conn, row.id)) for row in rows]

        return self._tx.read(read)

    def count_snapshots(self, stack_id: str) -> int:
        query = select(func.count()).select_from(snapshot).where(snapshot.c.stack_id == stack_id)
        return int(self._tx.read(lambda conn: conn.execute(query).scalar()) or 0)

    def update_snapshot(self, snapshot_id: str, *, action: str | None = None,
                        status: str | None = None, status_reason: str | None = None,
                        data: Mapping[str, Any] | None = None,
                        only_if_status: str | None = None) -> bool:
        """Set what is given; False if the snapshot is gone (or, with
        ``only_if_status``, no longer in that status)."""
        values: dict[str, Any] = {"updated_at": self._now()}
        if action is not None:
            values["action"] = action
        if status is not None:
            values["status"] = status
        if status_reason is not None:
            values["status_reason"] = status_reason[:REASON_LENGTH]
        if data is not None:
            values["data"] = self._sealed_document(data)
        statement = update(snapshot).where(snapshot.c.id == snapshot_id)
        if only_if_status is not None:
            statement = statement.where(snapshot.c.status == only_if_status)
        count = self._tx.write(lambda conn: conn.execute(statement.values(**values)).rowcount)
        return bool(count)

    def delete_snapshot(self, snapshot_id: str) -> None:
        """The snapshot and its resources' rows."""
        def write(conn: Connection) -> None:
            conn.execute(delete(resource_snapshot)
                         .where(resource_snapshot.c.snapshot_id == snapshot_id))
            conn.execute(delete(snapshot).where(snapshot.c.id == snapshot_id))

        self._tx.write(write)

    def add_resource_snapshot(self, snapshot_id: str, resource_name: str,
                              data: Mapping[str, Any]) -> None:
        """One resource's part of a snapshot; a second write for a name replaces the
        first (an action walked again after its engine died)."""
        values = {"id": str(uuid.uuid4()), "snapshot_id": snapshot_id,
                  "resource_name": resource_name, "data": self._sealed_document(data),
                  "created_at": self._now()}

        def write(conn: Connection) -> None:
            conn.execute(delete(resource_snapshot).where(
                resource_snapshot.c.snapshot_id == snapshot_id,
                resource_snapshot.c.resource_name == resource_name))
            conn.execute(insert(resource_snapshot).values(**values))

        self._tx.write(write)

    def _snapshot_parts(self, conn: Connection, snapshot_id: str) -> dict[str, dict[str, Any]]:
        rows = conn.execute(
            select(resource_snapshot.c.resource_name, resource_snapshot.c.data)
            .where(resource_snapshot.c.snapshot_id == snapshot_id)
            .order_by(resource_snapshot.c.created_at, resource_snapshot.c.id)).all()
        return {row.resource_name: self._unsealed(row.data, f"snapshot {snapshot_id}")
                for row in rows}

    def _snapshot_of(self, row: Any, resources: dict[str, dict[str, Any]]) -> SnapshotRecord:
        data = None if row.data is None else self._unsealed(row.data, f"snapshot {row.id}")
        return SnapshotRecord(
            id=row.id, stack_id=row.stack_id, name=row.name, project_id=row.tenant,
            action=row.action, status=row.status, status_reason=row.status_reason,
            created_at=row.created_at, data=data, resources=resources)

    def _sealed_document(self, document: Mapping[str, Any]) -> dict[str, Any]:
        return self._secrets.seal(dict(document))

    def _unsealed(self, document: Any, what: str) -> Any:
        if is_sealed(document):
            return self._secrets.unseal(document, what=what)
        return document
