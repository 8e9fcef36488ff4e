"""Resource rows outside the lock protocol: creation, reads, removal, key/value data."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from itertools import groupby
from typing import Any

from sqlalchemy import BindParameter, Connection, Insert, bindparam, delete, func, insert, select
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import queries as q
from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.crypt import EncryptionKeyError
from hotplate.db.events import insert_event
from hotplate.db.rows import to_resource, to_stack
from hotplate.model.ids import EngineId, ResourceId, StackId
from hotplate.model.records import NewEvent, NewResource, ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)

_INSERT_RETURNING_IDS = insert(s.resource).returning(s.resource.c.id, s.resource.c.uuid)
_DOOMED = select(s.resource.c.id, s.resource.c.attr_data_id).where(
    s.resource.c.stack_id == bindparam("b_stack"),
    s.resource.c.action == Action.DELETE.value,
    s.resource.c.status == Status.COMPLETE.value,
)
"""A stack's DELETE_COMPLETE rows, to purge."""
_PURGE = (
    delete(s.resource_data).where(s.resource_data.c.resource_id == bindparam("b_id")),
    delete(s.resource).where(s.resource.c.id == bindparam("b_id")),
)
"""One purged row: its data rows, then the row (foreign key order)."""
_LOCK_HOLDERS = select(s.resource.c.engine_id).where(
    s.resource.c.stack_id == bindparam("b_stack"), s.resource.c.engine_id.is_not(None),
).distinct()
"""The engines holding locks of a stack's rows: asked before every delete of a
nested stack."""
_PURGE_ATTRS = delete(s.resource_properties_data).where(
    s.resource_properties_data.c.id == bindparam("b_id"))
_CHUNK = 500
"""Ids per IN (...) list: well under every backend's bound-parameter limit."""


def new_resource_row(new: NewResource, now: datetime) -> dict[str, Any]:
    """Insert parameters of a row born INIT_COMPLETE, unlocked, atomic_key 0."""
    return {
        "uuid": new.uuid,
        "stack_id": new.stack_id,
        "name": new.name,
        "type": new.resource_type,
        "action": Action.INIT.value,
        "status": Status.COMPLETE.value,
        "status_reason": "",
        "atomic_key": 0,
        "engine_id": None,
        "current_template_id": new.current_template_id,
        "requires": list(new.requires),
        "replaces": new.replaces,
        "root_stack_id": new.root_stack_id,
        "created_at": now,
    }


def _as_inserted(resource_id: ResourceId, new: NewResource, now: datetime) -> ResourceRecord:
    """The record of a row just inserted by ``new_resource_row``: what ``to_resource``
    makes of it when read (the columns it leaves out read NULL)."""
    return ResourceRecord(
        id=resource_id, uuid=new.uuid, stack_id=new.stack_id, name=new.name,
        resource_type=new.resource_type, action=Action.INIT, status=Status.COMPLETE,
        status_reason="", atomic_key=0, created_at=now, physical_resource_id=None,
        engine_id=None, current_template_id=new.current_template_id,
        requires=tuple(new.requires), replaces=new.replaces, replaced_by=None, metadata={},
        properties_data=None, attr_data=None, updated_at=None, root_stack_id=new.root_stack_id)


def _chunks(ids: Sequence[int]) -> list[Sequence[int]]:
    return [ids[i : i + _CHUNK] for i in range(0, len(ids), _CHUNK)]


class ResourceStore(StoreBase):
    def create_resources(self, rows: Sequence[NewResource]) -> list[ResourceId]:
        """One executemany INSERT ... RETURNING (id, uuid); ids in the order given.

        Rows come back in no promised order, so they are matched to the input
        by their uuid (unique per row): SQLAlchemy's own ordering would fall
        back to a statement per row on SQLite.
        """
        return [record.id for record in self.create_resource_records(rows)]

    def create_resource_records(self, rows: Sequence[NewResource]) -> list[ResourceRecord]:
        """``create_resources``, answering each row as a read would give it back: built
        from the values inserted, so a traversal's start holds its new rows without
        reading thousands of them again."""
        if not rows:
            return []
        now = self._now()
        params = [new_resource_row(new, now) for new in rows]

        def run(conn: Connection) -> list[ResourceId]:
            by_uuid = {row.uuid: row.id for row in conn.execute(_INSERT_RETURNING_IDS, params)}
            return [ResourceId(by_uuid[new.uuid]) for new in rows]

        ids = self._tx.write(run)
        return [_as_inserted(rid, new, now) for rid, new in zip(ids, rows, strict=True)]

    def get_resource(self, resource_id: ResourceId) -> ResourceRecord | None:
        params = {"b_id": resource_id}
        row = self._tx.read(
            lambda conn: conn.execute(q.GET_RESOURCE, params).mappings().first(),
            single_statement=True,
        )
        return to_resource(row, secrets=self._secrets) if row is not None else None

    def load_node(
        self, resource_id: ResourceId
    ) -> tuple[ResourceRecord | None, StackRecord | None]:
        """Resource, attribute data, stack and tags: one SELECT (a row per tag).

        The stack is returned even when soft-deleted: the worker decides.
        """
        params = {"b_id": resource_id}
        rows = self._tx.read_raw(lambda conn: self._fast.execute(conn, q.LOAD_NODE, params)[0])
        if not rows:
            return None, None
        tags = tuple(row["s_tag"] for row in rows if row["s_tag"] is not None)
        return to_resource(rows[0], "r_", secrets=self._secrets), to_stack(rows[0], tags, "s_")

    def load_nodes(
        self, resource_ids: Sequence[ResourceId]
    ) -> dict[ResourceId, tuple[ResourceRecord, StackRecord]]:
        """``load_node`` for many resources in one SELECT; those gone are left out."""
        if not resource_ids:
            return {}
        params = {"b_ids": sorted({int(rid) for rid in resource_ids})}
        rows = self._tx.read(
            lambda conn: conn.execute(q.LOAD_NODES, params).mappings().all(),
            single_statement=True,
        )
        found: dict[ResourceId, tuple[ResourceRecord, StackRecord]] = {}
        for _, group in groupby(rows, key=lambda row: row["r_id"]):
            same = list(group)
            tags = tuple(row["s_tag"] for row in same if row["s_tag"] is not None)
            resource = to_resource(same[0], "r_", secrets=self._secrets)
            found[resource.id] = (resource, to_stack(same[0], tags, "s_"))
        return found

    def list_resources(self, stack_id: StackId, *, data: bool = True) -> list[ResourceRecord]:
        """On the fast path: every listing and every traversal's start reads a whole
        stack, and SQLAlchemy's rows cost more than the records made from them.

        ``data=False``: the records without their data (properties, attributes,
        metadata and requires left empty), as a plain listing shows them, for half
        of what reading and decoding the data costs.
        """
        params = {"b_stack_id": stack_id}
        query = q.LIST_RESOURCES if data else q.LIST_RESOURCE_SUMMARIES
        rows = self._tx.read_raw(lambda conn: self._fast.execute(conn, query, params)[0])
        return [to_resource(row, secrets=self._secrets, partial=not data) for row in rows]

    def resources_named(self, stack_id: StackId, name: str) -> list[ResourceRecord]:
        params = {"b_stack_id": stack_id, "b_name": name}
        rows = self._tx.read(
            lambda conn: conn.execute(q.LIST_RESOURCES_NAMED, params).mappings().all(),
            single_statement=True,
        )
        return [to_resource(row, secrets=self._secrets) for row in rows]

    def resources_by_physical_id(self, physical_id: str) -> list[ResourceRecord]:
        params = {"b_physical_id": physical_id}
        rows = self._tx.read(
            lambda conn: conn.execute(q.RESOURCES_BY_PHYSICAL_ID, params).mappings().all(),
            single_statement=True,
        )
        return [to_resource(row, secrets=self._secrets) for row in rows]

    def delete_resource(self, resource_id: ResourceId) -> None:
        """Remove the row, its resource_data and its attribute data."""
        r = s.resource

        def run(conn: Connection) -> None:
            attr_id = conn.execute(select(r.c.attr_data_id).where(r.c.id == resource_id)).scalar()
            _delete_rows(conn, [resource_id], [attr_id] if attr_id is not None else [])

        self._tx.write(run)

    def purge_deleted_resources(self, stack_id: StackId) -> int:
        """Remove the stack's DELETE_COMPLETE rows and their data; returns how many.

        On the fast path: every traversal ends with it, so in a tree of nested
        stacks each stack does, mostly to find nothing."""
        fast = self._fast

        def run(conn: PoolProxiedConnection) -> int:
            # Delete by the ids read, not by the condition again: a row that
            # reaches DELETE_COMPLETE meanwhile waits for the next purge
            # rather than losing its attribute row to an orphan.
            found = fast.execute(conn, _DOOMED, {"b_stack": stack_id})[0]
            ids = [{"b_id": row["id"]} for row in found]
            attr_ids = [{"b_id": row["attr_data_id"]} for row in found
                        if row["attr_data_id"] is not None]
            if ids:  # one executemany per statement: a wide stack's delete purges thousands
                for statement in _PURGE:
                    fast.execute_many(conn, statement, ids, set_keys=())
            if attr_ids:
                fast.execute_many(conn, _PURGE_ATTRS, attr_ids, set_keys=())
            return len(ids)

        return self._tx.write_raw(run)

    def count_resources_in_tree(self, root_stack_id: StackId) -> int:
        """Rows of every stack under the root (the root's own included), as Heat counts
        them against ``max_resources_per_stack``."""
        r = s.resource
        query = select(func.count()).select_from(r).where(r.c.root_stack_id == root_stack_id)
        return int(self._tx.read(lambda conn: conn.execute(query).scalar_one()))

    def engines_holding_locks(self, stack_id: StackId) -> set[EngineId]:
        rows = self._tx.read_raw(
            lambda conn: self._fast.execute(conn, _LOCK_HOLDERS, {"b_stack": stack_id})[0])
        return {EngineId(row["engine_id"]) for row in rows}

    # -- resource data -------------------------------------------------------
    def set_resource_data(
        self, resource_id: ResourceId, key: str, value: str, *, redact: bool = False,
        event: NewEvent | None = None,
    ) -> None:
        """Insert or overwrite one key (a single upsert), with ``event`` in the same commit.
        A ``redact`` value is stored encrypted, as Heat stores it."""
        now = self._now()
        statement, params = self._upsert_resource_data(resource_id, key, value, redact, now)

        def run(conn: Connection) -> None:
            conn.execute(statement, params)
            insert_event(conn, event, now)

        self._tx.write(run)

    def get_resource_data(self, resource_id: ResourceId) -> dict[str, str]:
        """Every key of the resource, redacted values decrypted.

        Raises:
            EncryptionKeyError: a redacted value another key encrypted.
        """
        return self._read_data(resource_id, as_stored_if_sealed=False)

    def list_resource_data(self, resource_id: ResourceId) -> dict[str, str]:
        """Every key of the resource for an operator's listing (``heat-manage
        resource_data_list``): redacted values decrypted, and a value the key does not
        open given as stored, as Heat's listing shows what it can."""
        return self._read_data(resource_id, as_stored_if_sealed=True)

    def _read_data(self, resource_id: ResourceId, *, as_stored_if_sealed: bool,
                   ) -> dict[str, str]:
        rd = s.resource_data
        query = select(rd.c.key, rd.c.value, rd.c.redact, rd.c.decrypt_method).where(
            rd.c.resource_id == resource_id)
        rows = self._tx.read(lambda conn: conn.execute(query).all())
        found = {}
        for row in rows:
            try:
                found[row.key] = self._data_value(resource_id, row)
            except EncryptionKeyError:
                if not as_stored_if_sealed:
                    raise
                LOG.warning("resource data %r of resource %s: the key does not open it; "
                            "shown as stored", row.key, resource_id)
                found[row.key] = row.value
        return found

    def _data_value(self, resource_id: ResourceId, row: Any) -> Any:
        if not (row.redact and row.decrypt_method and row.value is not None):
            return row.value
        what = f"resource data {row.key!r} of resource {resource_id}"
        return self._secrets.decrypt(row.decrypt_method, row.value, what=what)

    def delete_resource_data(
        self, resource_id: ResourceId, key: str, *, event: NewEvent | None = None
    ) -> bool:
        """Drop one key; ``event`` is recorded only if the key was there (one commit)."""
        rd = s.resource_data
        statement = delete(rd).where(rd.c.resource_id == resource_id, rd.c.key == key)
        now = self._now()

        def run(conn: Connection) -> bool:
            gone = conn.execute(statement).rowcount > 0
            if gone:
                insert_event(conn, event, now)
            return gone

        return self._tx.write(run)

    def _upsert_resource_data(
        self, resource_id: ResourceId, key: str, value: str, redact: bool, now: datetime
    ) -> tuple[Insert, dict[str, Any]]:
        """The upsert of one key and its parameters (the value encrypted when
        ``redact``); the statement is built once per dialect."""
        method = ""
        if redact:
            method, value = self._secrets.encrypt(value)
        return _UPSERT_DATA[self._dialect], {
            "resource_id": resource_id, "key": key, "value": value, "redact": redact,
            "decrypt_method": method, "created_at": now,
            "u_value": value, "u_redact": redact, "u_decrypt_method": method,
            "u_updated_at": now,
        }


def _delete_rows(conn: Connection, ids: Sequence[int], attr_ids: Sequence[int]) -> int:
    """Delete resource rows with their data rows; the attribute rows after them (FK order)."""
    r, rd, rpd = s.resource, s.resource_data, s.resource_properties_data
    deleted = 0
    for chunk in _chunks(ids):
        conn.execute(delete(rd).where(rd.c.resource_id.in_(chunk)))
        deleted += conn.execute(delete(r).where(r.c.id.in_(chunk))).rowcount
    for chunk in _chunks(attr_ids):
        conn.execute(delete(rpd).where(rpd.c.id.in_(chunk)))
    return deleted


def _build_upsert(dialect: str) -> Insert:
    """INSERT a data row, or overwrite value/redact/decrypt_method/updated_at of the
    existing key."""
    rd = s.resource_data
    changes: dict[str, BindParameter[Any]] = {
        name: bindparam(f"u_{name}")
        for name in ("value", "redact", "decrypt_method", "updated_at")
    }
    if dialect in ("mysql", "mariadb"):
        return mysql.insert(rd).on_duplicate_key_update(changes)
    dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return dialect_insert(rd).on_conflict_do_update(
        index_elements=[rd.c.resource_id, rd.c.key], set_=changes
    )


_UPSERT_DATA = {d: _build_upsert(d) for d in ("sqlite", "postgresql", "mysql", "mariadb")}
