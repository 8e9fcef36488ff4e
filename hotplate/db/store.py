"""SqlStore: the ``ports.Store`` on SQLAlchemy Core, for SQLite, PostgreSQL, MariaDB.

Every public method is one transaction; the event a method is given is
written in that transaction, and only when its change is. The compare-and-
swaps, each a single conditional statement whose row lock settles races::

    method                       statement and condition                       loser gets
    ---------------------------  --------------------------------------------  ----------
    update_stack_if_traversal    UPDATE stack ... WHERE id = ?                 False
                                   AND current_traversal = <expected>
                                   AND deleted_at IS NULL
    acquire_resource             UPDATE resource SET engine_id = <ours>,       None
                                   atomic_key = atomic_key + 1
                                   WHERE id = ? AND engine_id IS NULL
                                   AND atomic_key = <expected>
    update_resource_locked       ... WHERE id = ? AND engine_id = <ours>       None
                                   (release: SET engine_id = NULL)
    update_resource_if_unlocked  ... WHERE id = ? AND engine_id IS NULL        None
                                   AND atomic_key = <expected>
    steal_resource_lock          ... SET engine_id = NULL                      False
                                   WHERE id = ? AND engine_id = <dead engine>
    make_replacement             INSERT new row; UPDATE old SET replaced_by    None, and the
                                   WHERE id = <old> AND engine_id <expected>   insert rolled
                                   [AND atomic_key = <expected>]               back
    sync, sync_many,             UPDATE sync_point SET remaining =             MISSING /
    release_and_sync
                                   remaining - 1 WHERE <point key>;            DUPLICATE /
                                   INSERT input row unless the sender has one  WAITING
                                   (only the report that reaches 0 is READY)
    create_stack                 no live stack of that (project, name)         StackExists
    acquire_stack_lock           INSERT stack_lock (stack_id, engine_id)       the holder
    steal_stack_lock             UPDATE stack_lock SET engine_id = <live>      False
                                   WHERE stack_id = ? AND engine_id = <dead>
    release_stack_lock           DELETE stack_lock WHERE stack_id = ?          False
                                   AND engine_id = <ours>

Every resource write bumps ``atomic_key``, so a writer holding a stale key
loses. Nothing here retries a compare-and-swap: the caller learns that it
lost and decides (SPEC.md 2.3, 2.6).

Hot-path statements (RETURNING backends: SQLite, PostgreSQL / MariaDB):
load_node 1 / 1; acquire_resource 2 / 3; update_resource_locked 2 / 3, with
attr_data +1 (+2 the first time a resource stores attributes); sync 2 / 3,
+1 for the READY report; create_resources and create_sync_points 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Engine

from hotplate.db.convergence_migration import ConvergenceMigrationStore
from hotplate.db.crypt import SecretBox
from hotplate.db.events import EventStore
from hotplate.db.locks import ResourceLockStore
from hotplate.db.recovery import RecoveryStore
from hotplate.db.requests import RequestStore
from hotplate.db.resources import ResourceStore
from hotplate.db.rows import to_resource
from hotplate.db.services import ServiceStore
from hotplate.db.signals import SignalStore
from hotplate.db.snapshots import SnapshotStore
from hotplate.db.software import SoftwareStore
from hotplate.db.stack_locks import StackLockStore
from hotplate.db.stack_users import StackUserStore
from hotplate.db.stacks import StackStore
from hotplate.db.sync import SyncStore
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.records import NewEvent, ResourceRecord, SyncReport, SyncResult
from hotplate.ports import Clock


class SqlStore(StackStore, ResourceStore, ResourceLockStore, SyncStore, EventStore, ServiceStore,
               RecoveryStore, SoftwareStore, SignalStore, StackUserStore, RequestStore,
               SnapshotStore, ConvergenceMigrationStore, StackLockStore):
    """The Store on an engine from ``hotplate.db.engine.make_engine``.

    ``clock`` supplies every created_at / updated_at / deleted_at, so a fake
    clock makes stored times deterministic. ``stats.statements`` counts the
    statements sent on the engine (for benchmarks). ``secrets`` encrypts what is
    stored encrypted (db/crypt.py; default: Heat's default key, for tests).
    """

    def __init__(self, engine: Engine, clock: Clock, secrets: SecretBox | None = None) -> None:
        super().__init__(engine, clock, secrets)

    def release_and_sync(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None,
        reports: Sequence[SyncReport],
    ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Settle a resource and report to its dependants in one transaction.

        Either both happen or neither: a crash can never leave a finished
        resource whose dependants were not told. Reports are made only when we
        still held the lock.
        """
        now = self._now()
        row = self._write_resource(
            resource_id, {"b_engine_id": engine_id}, values, event, None,
            after=lambda conn: [self.report_in(conn, r, now) for r in reports],
        )
        if row is None:
            return None, []
        results = [self.settle(pending) for pending in row.pop("after")]
        return to_resource(row, secrets=self._secrets), results

    def settle_resource(
        self,
        resource_id: ResourceId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        events: Sequence[NewEvent],
        reports: Sequence[SyncReport],
    ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """A whole action in one transaction, for plugins that touch nothing outside.

        The row must still be unlocked and unchanged since it was read (the
        same condition as taking the lock), so this write races exactly as
        ``acquire_resource`` would; the loser writes nothing.
        """
        now = self._now()
        row = self._write_resource(
            resource_id, {"b_atomic_key": expected_atomic_key}, values, events, None,
            after=lambda conn: [self.report_in(conn, r, now) for r in reports],
        )
        if row is None:
            return None, []
        results = [self.settle(pending) for pending in row.pop("after")]
        return to_resource(row, secrets=self._secrets), results
