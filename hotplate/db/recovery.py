"""What recovery reads and writes: claims, lock holders and the sessions a dead one
left, the state of a traversal's sync points, paused hooks, and the attempts plugins
record.

None of it is on the hot path: the recovery timer runs these once per
``periodic_interval`` (engine/worker/recovery.py), and only the sweep's engine reads
a traversal's points.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import (
    Connection,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    type_coerce,
    update,
)
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.rows import attr_data_subquery, resource_select_columns, to_resource, to_stack
from hotplate.db.session_limits import engine_session_name
from hotplate.db.types import UtcDateTime
from hotplate.model.ids import EngineId, ResourceId, StackId, TraversalId
from hotplate.model.records import (
    PointState,
    ResourceAttempt,
    ResourceRecord,
    StackRecord,
)
from hotplate.template.environment import HOOK_TYPES

_r = s.resource
_sp = s.sync_point
_spi = s.sync_point_input
_claim = s.engine_claim
_attempt = s.resource_attempt

END_WAIT_MS = 2000
"""How long ending a dead engine's session may wait for it to end (a session ends
at once unless its backend is stuck in the kernel)."""
PENDING_HOOK = "True"
"""A hook's resource data value while the resource waits at it (breakpoints.py)."""


class RecoveryStore(StoreBase):
    # -- claims ------------------------------------------------------------------
    def claim(self, name: str, engine_id: EngineId, ttl_secs: float) -> bool:
        """Hold ``name`` for ``ttl_secs``: True if it was free, expired, or already ours.

        One conditional UPDATE (ours, or expired), else an INSERT whose primary
        key decides between engines claiming a new name at once.
        """
        now = self._now()
        expires = now + timedelta(seconds=ttl_secs)
        renew = (
            update(_claim)
            .where(_claim.c.name == name,
                   or_(_claim.c.engine_id == engine_id, _claim.c.expires_at < now))
            .values(engine_id=engine_id, expires_at=expires)
        )
        row = {"name": name, "engine_id": engine_id, "expires_at": expires, "created_at": now}

        def run(conn: Connection) -> bool:
            if conn.execute(renew).rowcount == 1:
                return True
            exists = conn.execute(select(_claim.c.name).where(_claim.c.name == name)).first()
            if exists is not None:
                return False
            conn.execute(insert(_claim).values(row))
            return True

        try:
            return bool(self._tx.write(run))
        except IntegrityError:  # another engine inserted it first
            return False

    def release_claims(self, prefix: str, before_secs: float) -> int:
        """Delete claims named ``prefix…`` that expired over ``before_secs`` ago."""
        cutoff = self._now() - timedelta(seconds=before_secs)
        statement = delete(_claim).where(_claim.c.name.startswith(prefix, autoescape=True),
                                         _claim.c.expires_at < cutoff)
        return int(self._tx.write(lambda conn: conn.execute(statement).rowcount))

    # -- locks -------------------------------------------------------------------
    def lock_holders(self) -> set[EngineId]:
        """Every engine that holds at least one resource lock, in any stack."""
        query = select(_r.c.engine_id).where(_r.c.engine_id.is_not(None)).distinct()
        rows = self._tx.read(lambda conn: conn.execute(query).scalars().all(),
                             single_statement=True)
        return {EngineId(engine_id) for engine_id in rows}

    def end_sessions_of(self, engine_id: EngineId) -> int:
        """End the database sessions a dead engine left open; how many were ended.

        On PostgreSQL: this database's sessions named for the engine
        (``engine_session_name``), each waited for up to ``END_WAIT_MS`` (from
        PostgreSQL 14), so that its transaction is rolled back and its row locks
        are free when this returns (session_limits.py says why the server may
        keep them; before 14, a steal that meets one still held runs again).
        MariaDB's sessions need no ending: nothing is pipelined there, so a
        silent session is always between commands, where its
        ``idle_transaction_timeout`` ends it. SQLite has no sessions of others.
        """
        if self._dialect != "postgresql":
            return 0
        params = {"name": engine_session_name(engine_id), "wait": END_WAIT_MS}

        def run(conn: Connection) -> int:
            waits = (conn.dialect.server_version_info or (0,)) >= (14,)  # its timeout: 14
            ending = "pg_terminate_backend(pid, :wait)" if waits else "pg_terminate_backend(pid)"
            query = text(f"SELECT count(*) FILTER (WHERE {ending}) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND application_name = :name "
                         "AND pid <> pg_backend_pid()")
            return int(conn.execute(query, params).scalar_one())

        return self._tx.write(run)

    def resources_locked_by(self, engine_id: EngineId) -> list[ResourceRecord]:
        query = (select(*resource_select_columns(attr_data_subquery()))
                 .where(_r.c.engine_id == engine_id).order_by(_r.c.id))
        rows = self._tx.read(lambda conn: conn.execute(query).mappings().all(),
                             single_statement=True)
        return [to_resource(row, secrets=self._secrets) for row in rows]

    # -- traversals --------------------------------------------------------------
    def stacks_in_progress(self) -> list[StackRecord]:
        """Live stacks whose status is IN_PROGRESS, oldest change first."""
        st = s.stack
        query = (select(st).where(st.c.status == "IN_PROGRESS", st.c.deleted_at.is_(None))
                 .order_by(func.coalesce(st.c.updated_at, st.c.created_at), st.c.id))
        rows = self._tx.read(lambda conn: conn.execute(query).mappings().all(),
                             single_statement=True)
        return [to_stack(row) for row in rows]

    def traversal_points(self, stack_id: StackId, traversal_id: TraversalId,
                         ) -> tuple[list[PointState], set[str]]:
        """Every sync point of the traversal, and every sender that has reported in it."""
        points = (select(_sp.c.entity_id, _sp.c.is_update, _sp.c.remaining,
                         type_coerce(func.coalesce(_sp.c.updated_at, _sp.c.created_at),
                                     UtcDateTime()).label("touched"))
                  .where(_sp.c.stack_id == stack_id, _sp.c.traversal_id == traversal_id))
        senders = (select(_spi.c.sender).join(_sp, and_(
            _sp.c.entity_id == _spi.c.entity_id, _sp.c.traversal_id == _spi.c.traversal_id,
            _sp.c.is_update == _spi.c.is_update))
            .where(_sp.c.stack_id == stack_id, _spi.c.traversal_id == traversal_id)
            .distinct())

        def run(conn: Connection) -> tuple[list[PointState], set[str]]:
            found = [PointState(str(row.entity_id), bool(row.is_update), int(row.remaining),
                                row.touched)
                     for row in conn.execute(points)]
            return found, {str(sender) for sender in conn.execute(senders).scalars()}

        return self._tx.read(run)

    def touch_sync_points(self, traversal_id: TraversalId,
                          keys: Iterable[tuple[str, bool]]) -> None:
        """Mark the points as just cast, so the sweep waits a whole timeout again."""
        keys = list(keys)
        if not keys:
            return
        now = self._now()

        def run(conn: Connection) -> None:
            for entity_id, is_update in keys:
                conn.execute(update(_sp).where(
                    _sp.c.entity_id == entity_id, _sp.c.traversal_id == traversal_id,
                    _sp.c.is_update == is_update).values(updated_at=now))

        self._tx.write(run)

    def paused_at_hooks(self, stack_id: StackId) -> set[ResourceId]:
        """Resources of the stack waiting at a hook (a worker, or nobody, waits on them)."""
        rd = s.resource_data
        query = (select(rd.c.resource_id).join(_r, _r.c.id == rd.c.resource_id)
                 .where(_r.c.stack_id == stack_id, rd.c.key.in_(sorted(HOOK_TYPES)),
                        rd.c.value == PENDING_HOOK).distinct())
        rows = self._tx.read(lambda conn: conn.execute(query).scalars().all(),
                             single_statement=True)
        return {ResourceId(int(resource_id)) for resource_id in rows}

    def latest_event_at(self, stack_id: StackId) -> datetime | None:
        """When the stack's newest event was written (its last sign of progress)."""
        ev = s.event
        query = select(type_coerce(func.max(ev.c.created_at), UtcDateTime())).where(
            ev.c.stack_id == stack_id)
        found = self._tx.read(lambda conn: conn.execute(query).scalar(),
                              single_statement=True)
        return found if isinstance(found, datetime) else None

    # -- attempts ----------------------------------------------------------------
    def record_attempt(self, attempt: ResourceAttempt) -> None:
        row = {"stack_id": attempt.stack_id, "resource_uuid": attempt.resource_uuid,
               "resource_name": attempt.resource_name, "action": attempt.action,
               "token": attempt.token, "retry": attempt.retry,
               "engine_id": attempt.engine_id, "created_at": self._now()}
        self._tx.write(lambda conn: conn.execute(insert(_attempt).values(row)))

    def list_attempts(self, stack_id: StackId | None = None) -> list[ResourceAttempt]:
        """The recorded attempts (of one stack, or all), in the order they were made."""
        query = select(_attempt).order_by(_attempt.c.id)
        if stack_id is not None:
            query = query.where(_attempt.c.stack_id == stack_id)
        rows = self._tx.read(lambda conn: conn.execute(query).mappings().all(),
                             single_statement=True)
        return [ResourceAttempt(stack_id=StackId(row["stack_id"]),
                                resource_uuid=row["resource_uuid"],
                                resource_name=row["resource_name"], action=row["action"],
                                token=row["token"], retry=bool(row["retry"]),
                                engine_id=EngineId(row["engine_id"]))
                for row in rows]
