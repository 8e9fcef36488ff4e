"""Templates and stacks: rows, tags, and the traversal compare-and-swap."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.pool import PoolProxiedConnection

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.events import insert_event
from hotplate.db.listing import stack_list_query
from hotplate.db.queries import CHILD_STACKS, GET_STACK, STACK_NAMED
from hotplate.db.rows import inserted_id, stack_row, stack_values, to_stack
from hotplate.db.tx import Rollback
from hotplate.model.errors import StackExists
from hotplate.model.ids import StackId, TemplateId, TraversalId
from hotplate.model.records import NewEvent, RawTemplate, StackRecord

_SWAP_TRAVERSAL = update(s.stack).where(
    s.stack.c.id == bindparam("b_id"),
    s.stack.c.current_traversal == bindparam("b_traversal"),
    s.stack.c.deleted_at.is_(None),
)
"""The traversal compare-and-swap; SET comes from the execution parameters."""
_SETTLE_TRAVERSAL = _SWAP_TRAVERSAL.where(s.stack.c.status == "IN_PROGRESS")
"""The swap that settles a traversal (COMPLETE or FAILED): only a running action
settles, once (model/states.py); a second settle of one traversal matches nothing."""
_SETTLE_AS = _SETTLE_TRAVERSAL.where(s.stack.c.action == bindparam("b_action"))
"""Settling with the action named: the running action must be that one."""
_STACK_DEPS = select(s.stack.c.current_traversal, s.stack.c.current_deps).where(
    s.stack.c.id == bindparam("b_id"))
ENCRYPTED_PARAM_NAMES = "encrypted_param_names"
"""The environment key naming the parameters stored encrypted (Heat's)."""
_TAG_CHUNK = 500
"""Stack ids per tag query: well under every backend's bound-parameter limit."""


def load_tags(conn: Connection, stack_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Tags of each stack, in the order they were given."""
    found: dict[str, list[str]] = {}
    t = s.stack_tag
    for start in range(0, len(stack_ids), _TAG_CHUNK):
        chunk = stack_ids[start : start + _TAG_CHUNK]
        rows = conn.execute(
            select(t.c.stack_id, t.c.tag).where(t.c.stack_id.in_(chunk)).order_by(t.c.id)
        )
        for stack_id, tag in rows:
            found.setdefault(stack_id, []).append(tag)
    return {stack_id: tuple(tags) for stack_id, tags in found.items()}


def insert_tags(conn: Connection, stack_id: str, tags: Iterable[str], now: datetime) -> None:
    rows = [{"stack_id": stack_id, "tag": tag, "created_at": now} for tag in tags]
    if rows:
        conn.execute(insert(s.stack_tag), rows)


class StackStore(StoreBase):
    # -- templates -----------------------------------------------------------
    def create_raw_template(
        self, template: Mapping[str, Any], files: Mapping[str, Any],
        environment: Mapping[str, Any], *, hidden: Collection[str] = (),
    ) -> TemplateId:
        """Store a template; with ``encrypt_parameters_and_properties`` the values of its
        ``hidden`` parameters are stored encrypted, named in the environment's
        ``encrypted_param_names`` as Heat names them."""
        row = {
            "template": dict(template),
            "files": dict(files),
            "environment": self._hide_parameters(environment, hidden),
            "created_at": self._now(),
        }

        def run(conn: Connection) -> TemplateId:
            result = conn.execute(insert(s.raw_template).values(row))
            return TemplateId(inserted_id(result))

        return self._tx.write(run)

    def get_raw_template(self, template_id: TemplateId) -> RawTemplate | None:
        """The template as it was given: encrypted parameters decrypted (and no
        ``encrypted_param_names``).

        Raises:
            EncryptionKeyError: a parameter another key encrypted.
        """
        t = s.raw_template
        query = select(t.c.template, t.c.files, t.c.environment).where(t.c.id == template_id)
        row = self._tx.read(lambda conn: conn.execute(query).first())
        if row is None:
            return None
        environment = self._shown_parameters(template_id, row.environment or {})
        return RawTemplate(template_id, row.template or {}, row.files or {}, environment)

    def _hide_parameters(self, environment: Mapping[str, Any],
                         hidden: Collection[str]) -> dict[str, Any]:
        params = environment.get("parameters") or {}
        names = sorted(name for name in hidden if name in params)
        if not (names and self._secrets.parameters_and_properties):
            return dict(environment)
        # As JSON, so that a value comes back with its type (a number, a list).
        encrypted = {name: self._secrets.encrypt_json(params[name]) for name in names}
        return {**environment, "parameters": {**params, **encrypted},
                ENCRYPTED_PARAM_NAMES: names}

    def _shown_parameters(self, template_id: TemplateId,
                          environment: dict[str, Any]) -> dict[str, Any]:
        names = environment.pop(ENCRYPTED_PARAM_NAMES, None)
        if not names:
            return environment
        params = dict(environment.get("parameters") or {})
        for name in names:
            params[name] = self._secrets.decrypt_json(
                params[name], what=f"parameter {name!r} of template {template_id}")
        return {**environment, "parameters": params}

    def delete_raw_template(self, template_id: TemplateId) -> None:
        """Delete the template unless a stack or a resource row still refers to it.

        Rows being cleaned up keep their old template until they are purged;
        deleting it under them would break their deletion.
        """
        st, r = s.stack, s.resource
        statement = delete(s.raw_template).where(
            s.raw_template.c.id == template_id,
            ~select(st.c.id).where(
                (st.c.raw_template_id == template_id) | (st.c.prev_raw_template_id == template_id)
            ).exists(),
            ~select(r.c.id).where(r.c.current_template_id == template_id).exists(),
        )
        self._tx.write(lambda conn: conn.execute(statement))

    # -- stacks --------------------------------------------------------------
    def create_stack(self, stack: StackRecord, event: NewEvent | None = None) -> None:
        """Insert the stack, its tags and its event; StackExists on a live name clash.

        The name check runs inside the write transaction. SQLite serialises
        writers, so there it is airtight; on PostgreSQL and MariaDB two
        concurrent creates of one name can both pass (as in Heat: the schema
        has no unique key, since deleted stacks keep their names).
        """
        now = self._now()
        st = s.stack
        clash = (
            select(st.c.id)
            .where(st.c.tenant == stack.project_id, st.c.name == stack.name)
            .where(st.c.deleted_at.is_(None))
            .limit(1)
        )

        def run(conn: Connection) -> None:
            if conn.execute(clash).first() is not None:
                raise StackExists(stack.name)
            conn.execute(insert(st), stack_row(stack))
            insert_tags(conn, stack.id, stack.tags, now)
            insert_event(conn, event, now)

        self._tx.write(run)

    def get_stack(self, stack_id: StackId, *, include_deleted: bool = False) -> StackRecord | None:
        """The stack and its tags in one SELECT (tags by outer join, in their order), on
        the fast path: a traversal reads its stack a few times, and a tree of nested
        stacks reads each of them, so SQLAlchemy's cost per statement was most of it."""
        query, params = GET_STACK[include_deleted], {"b_id": stack_id}
        rows = self._tx.read_raw(lambda conn: self._fast.execute(conn, query, params)[0])
        if not rows:
            return None
        tags = tuple(row["tag"] for row in rows if row["tag"] is not None)
        return to_stack(rows[0], tags)

    def list_child_stacks(self, owner_id: StackId, *,
                          include_deleted: bool = False) -> list[StackRecord]:
        """The stacks ``owner_id`` owns (its nested stacks, one level), oldest first,
        in one prepared statement: a listing with ``nested_depth`` walks the tree
        with it, and the web view's stream does every 250 ms."""
        rows = self._tx.read_raw(lambda conn: self._fast.execute(
            conn, CHILD_STACKS[include_deleted], {"b_owner": owner_id})[0])
        by_id: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_id.setdefault(row["id"], []).append(row)
        return [to_stack(found[0], tuple(r["tag"] for r in found if r["tag"] is not None))
                for found in by_id.values()]

    def get_stack_deps(self, stack_id: StackId) -> tuple[TraversalId, Any] | None:
        """The stack's current traversal and its graph (None until stored), in one SELECT."""
        rows = self._tx.read_raw(
            lambda conn: self._fast.execute(conn, _STACK_DEPS, {"b_id": stack_id})[0])
        if not rows:
            return None
        return TraversalId(rows[0]["current_traversal"] or ""), rows[0]["current_deps"]

    def get_stack_by_name(
        self, project_id: str, name: str, *, include_deleted: bool = False
    ) -> StackRecord | None:
        """The live stack of that name; with ``include_deleted``, else the latest deleted one.

        Two prepared statements: the id, then the stack and its tags (deleted or not:
        a stack deleted between the two is shown as it was a moment before).
        """
        params = {"b_project": project_id, "b_name": name}

        def run(conn: Any) -> list[dict[str, Any]]:
            found = self._fast.execute(conn, STACK_NAMED[include_deleted], params)[0]
            if not found:
                return []
            return self._fast.execute(conn, GET_STACK[True], {"b_id": found[0]["id"]})[0]

        rows = self._tx.read_raw(run)
        if not rows:
            return None
        return to_stack(rows[0], tuple(row["tag"] for row in rows if row["tag"] is not None))

    def list_stacks(
        self,
        project_id: str | None,
        *,
        limit: int | None = None,
        marker: StackId | None = None,
        sort_keys: Sequence[str] = ("created_at",),
        sort_dir: str = "desc",
        filters: Mapping[str, Any] | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
    ) -> list[StackRecord]:
        """A page of stacks; ``marker`` (a stack id) starts after that stack.

        ``project_id`` None lists every project. Nested stacks (owner_id set)
        are hidden unless ``show_nested``. An unknown marker is ignored.
        """

        def run(conn: Connection) -> list[StackRecord]:
            query = stack_list_query(
                conn,
                project_id,
                limit=limit,
                marker=marker,
                sort_keys=sort_keys,
                sort_dir=sort_dir,
                filters=filters or {},
                show_deleted=show_deleted,
                show_nested=show_nested,
            )
            rows = conn.execute(query).mappings().all()
            tags = load_tags(conn, [row["id"] for row in rows])
            return [to_stack(row, tags.get(row["id"], ())) for row in rows]

        return self._tx.read(run)

    def update_stack_if_traversal(
        self,
        stack_id: StackId,
        expected_traversal: TraversalId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> bool:
        """UPDATE stack SET <values> WHERE id=? AND current_traversal=? (live stacks only).

        A write that settles the stack (status COMPLETE or FAILED) also needs
        it IN_PROGRESS, in the action ``values`` names if any: the state
        table of model/states.py, enforced by the condition itself, so two
        engines that both see a traversal finish write its end once.
        ``tags`` in ``values`` replaces the stack's tags. The event is written
        only when the condition held.
        """
        now = self._now()
        params = stack_values(values)
        params.setdefault("updated_at", now)
        params |= {"b_id": stack_id, "b_traversal": expected_traversal}
        statement = _SWAP_TRAVERSAL
        if values.get("status") in ("COMPLETE", "FAILED"):
            statement = _SETTLE_TRAVERSAL
            if "action" in values:
                statement = _SETTLE_AS
                params["b_action"] = str(values["action"])

        def run(conn: Connection) -> bool:
            if conn.execute(statement, params).rowcount != 1:
                raise Rollback(False)
            conn.execute(delete(s.stack_tag).where(s.stack_tag.c.stack_id == stack_id))
            insert_tags(conn, stack_id, values["tags"] or (), now)
            insert_event(conn, event, now)
            return True

        if "tags" in values:
            return self._tx.write(run)
        set_keys = [key for key in params if not key.startswith("b_")]

        def run_fast(conn: PoolProxiedConnection) -> bool:
            # A traversal swaps its stack's row at its start and at its end, and a tree
            # of nested stacks does so for each stack: SQLAlchemy's cost per statement
            # and per transaction was most of it.
            if self._fast.execute(conn, statement, params, set_keys=set_keys)[1] != 1:
                raise Rollback(False)
            insert_event(conn, event, now, self._fast)
            return True

        # Committed at once: what follows notifies and runs the lifecycle plugins.
        return self._tx.write_alone(run_fast)

    def soft_delete_stack(self, stack_id: StackId) -> None:
        statement = (
            update(s.stack)
            .where(s.stack.c.id == stack_id, s.stack.c.deleted_at.is_(None))
            .values(deleted_at=self._now())
        )
        self._tx.write(lambda conn: conn.execute(statement))
