"""What the engine needs from the world, as Protocols.

Adapters live in db/ (Store), rpc/ (Transport, Notifier: messaging.py) and
engine/clock.py (Clock, Ids); app.py wires them. What configuring servers stores (signals, software
configs and deployments) is in server_config.py, part of the Store here.
Every compare-and-swap is a Store method: the engine asks for a conditional
change and learns whether it won.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from hotplate.model.ids import EngineId, ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.records import (
    EventRecord,
    NewEvent,
    NewResource,
    NewSyncPoint,
    PointState,
    RawTemplate,
    ResourceAttempt,
    ResourceRecord,
    ServiceRecord,
    StackRecord,
    SyncReport,
    SyncResult,
    UserCreds,
)
from hotplate.ports.messaging import Endpoint, Notifier, Transport
from hotplate.ports.migration import ConvergenceMigrationStorage
from hotplate.ports.requests import RequestStorage
from hotplate.ports.server_config import SignalStorage, SoftwareStorage
from hotplate.ports.snapshots import SnapshotStorage
from hotplate.ports.stack_locks import StackLockStorage
from hotplate.ports.write_batching import WriteBatching


class Clock(Protocol):
    def now(self) -> datetime:
        """Timezone-aware UTC now."""
        ...

    def sleep(self, seconds: float) -> None: ...


class Ids(Protocol):
    def new_uuid(self) -> str: ...


class TemplateStorage(Protocol):
    """Raw templates: a template, its files and environment, by id."""

    def create_raw_template(
        self, template: Mapping[str, Any], files: Mapping[str, Any],
        environment: Mapping[str, Any], *, hidden: Collection[str] = (),
    ) -> TemplateId: ...

    def get_raw_template(self, template_id: TemplateId) -> RawTemplate | None: ...

    def delete_raw_template(self, template_id: TemplateId) -> None: ...


class StackStorage(Protocol):
    """Stack rows, their tags, and the traversal compare-and-swap."""

    def create_stack(self, stack: StackRecord, event: NewEvent | None = None) -> None:
        """Insert a stack row; raises StackExists if the project has a live stack of that name."""
        ...

    def get_stack(
        self, stack_id: StackId, *, include_deleted: bool = False
    ) -> StackRecord | None: ...

    def get_stack_deps(self, stack_id: StackId) -> tuple[TraversalId, Any] | None:
        """The current traversal id and its stored graph (None while not yet stored)."""
        ...

    def get_stack_by_name(
        self, project_id: str, name: str, *, include_deleted: bool = False
    ) -> StackRecord | None: ...

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
    ) -> list[StackRecord]: ...

    def list_child_stacks(self, owner_id: StackId, *,
                          include_deleted: bool = False) -> list[StackRecord]:
        """The stacks ``owner_id`` owns, oldest first (``list_stacks`` of its
        ``owner_id``, nested shown, by created_at)."""

    def update_stack_if_traversal(
        self,
        stack_id: StackId,
        expected_traversal: TraversalId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> bool:
        """UPDATE stack SET <values> WHERE id=? AND current_traversal=?; with its event.

        ``values`` keys are StackRecord field names. ``updated_at`` is set to
        now unless given. This is the compare-and-swap that starts, settles and
        cancels traversals.
        """
        ...

    def soft_delete_stack(self, stack_id: StackId) -> None:
        """Set deleted_at; the row stays for show_deleted listings."""
        ...


class ResourceStorage(Protocol):
    """Resource rows and their lock: every conditional write of a resource."""

    def create_resources(self, rows: Sequence[NewResource]) -> list[ResourceId]:
        """Insert INIT_COMPLETE rows; ids returned in the order given."""
        ...

    def create_resource_records(self, rows: Sequence[NewResource]) -> list[ResourceRecord]:
        """``create_resources``, each row answered as a read would return it."""
        ...

    def get_resource(self, resource_id: ResourceId) -> ResourceRecord | None: ...

    def load_node(
        self, resource_id: ResourceId
    ) -> tuple[ResourceRecord | None, StackRecord | None]:
        """The resource and its stack in one round trip (the hot path's only read)."""
        ...

    def load_nodes(
        self, resource_ids: Sequence[ResourceId]
    ) -> dict[ResourceId, tuple[ResourceRecord, StackRecord]]:
        """``load_node`` for a batch's resources in one round trip; gone ones left out."""
        ...

    def list_resources(self, stack_id: StackId, *, data: bool = True) -> list[ResourceRecord]:
        """The stack's rows; ``data=False``: without properties, attributes, metadata
        and requires (left empty), as a plain listing shows them."""
        ...

    def resources_named(self, stack_id: StackId, name: str) -> list[ResourceRecord]:
        """The stack's rows of one resource name (a replacement and its old row), so
        one resource is read without the whole stack's rows."""
        ...

    def resources_by_physical_id(self, physical_id: str) -> list[ResourceRecord]:
        """Every row, of any stack, whose physical id is ``physical_id``."""
        ...

    def acquire_resource(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> ResourceRecord | None:
        """Take the resource lock and write ``values`` (typically <ACTION>_IN_PROGRESS).

        Conditional on engine_id IS NULL AND atomic_key = expected; bumps
        atomic_key. Returns the row as written, or None if someone else won.
        """
        ...

    def update_resource_locked(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
        *,
        release: bool = False,
    ) -> ResourceRecord | None:
        """Write ``values`` while holding the lock (WHERE engine_id = ours); bump atomic_key.

        ``release`` also sets engine_id = NULL. ``values`` may carry
        ``attr_data`` (stored as a resource_properties_data row referenced by
        attr_data_id) and ``properties_data``. None if we no longer hold the lock.
        """
        ...

    def update_resource_if_unlocked(
        self,
        resource_id: ResourceId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> ResourceRecord | None:
        """Write ``values`` if engine_id IS NULL AND atomic_key matches; bump atomic_key."""
        ...

    def steal_resource_lock(
        self,
        resource_id: ResourceId,
        dead_engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None = None,
    ) -> bool:
        """Break a dead engine's lock: SET engine_id = NULL, <values> WHERE engine_id = dead."""
        ...

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
        """Insert the replacement row and set replaced_by on the old one, in one transaction.

        Conditional on the old row's engine_id (IS NULL when None is given) and,
        if given, its atomic_key. ``release`` clears the old row's lock;
        ``old_values`` are written to the old row and ``events`` recorded,
        in the same transaction. Returns the new id, or None (and nothing
        inserted or recorded) if the condition failed.
        """
        ...

    def delete_resource(self, resource_id: ResourceId) -> None:
        """Remove the row and its data outright (INIT rows, purges)."""
        ...

    def purge_deleted_resources(self, stack_id: StackId) -> int:
        """Remove DELETE_COMPLETE rows (and their data); returns how many."""
        ...

    def count_resources_in_tree(self, root_stack_id: StackId) -> int:
        """How many rows name ``root_stack_id`` as their root stack."""
        ...

    def engines_holding_locks(self, stack_id: StackId) -> set[EngineId]: ...


class ResourceDataStorage(Protocol):
    """A resource's key/value data (resource_data)."""

    def set_resource_data(
        self, resource_id: ResourceId, key: str, value: str, *, redact: bool = False,
        event: NewEvent | None = None,
    ) -> None:
        """Upsert one key; ``event``, when given, is recorded in the same commit."""
        ...

    def get_resource_data(self, resource_id: ResourceId) -> dict[str, str]: ...

    def delete_resource_data(
        self, resource_id: ResourceId, key: str, *, event: NewEvent | None = None
    ) -> bool:
        """Drop one key; True if it was there, and only then is ``event`` recorded."""
        ...


class EventStorage(Protocol):
    """Events, written with the changes they record."""

    def add_event(self, event: NewEvent) -> None: ...

    def list_events(
        self,
        stack_id: StackId | Sequence[StackId],
        *,
        resource_name: str | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_dir: str = "asc",
        filters: Mapping[str, Any] | None = None,
    ) -> list[EventRecord]: ...

    def list_event_ids(self, stack_id: StackId | Sequence[StackId], *,
                       limit: int | None = None, marker: str | None = None) -> list[str]: ...


class SyncPointStorage(Protocol):
    """Sync points: when every predecessor of a node has reported."""

    def create_sync_points(
        self, stack_id: StackId, traversal_id: TraversalId, points: Iterable[NewSyncPoint]
    ) -> None: ...

    def sync(
        self,
        traversal_id: TraversalId,
        entity_id: str,
        is_update: bool,
        sender: str,
        data: Any,
    ) -> SyncResult:
        """Record one predecessor's report; exactly one reporter ever gets READY.

        The sender's input is its own row (insert only); readiness is one atomic
        decrement of the point's ``remaining`` count. A repeated sender changes
        nothing (DUPLICATE); a missing point answers MISSING.
        """
        ...

    def sync_many(self, reports: Sequence[SyncReport]) -> list[SyncResult]:
        """Several ``sync`` reports in one transaction."""
        ...

    def release_and_sync(
        self,
        resource_id: ResourceId,
        engine_id: EngineId,
        values: Mapping[str, Any],
        event: NewEvent | None,
        reports: Sequence[SyncReport],
    ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Release our lock writing ``values`` and make ``reports``, in one transaction.

        ``values`` may carry ``resource_data``: {key: (value, redact)} written
        with the row. (None, []) if we no longer held the lock.
        """
        ...

    def settle_resource(
        self,
        resource_id: ResourceId,
        expected_atomic_key: int,
        values: Mapping[str, Any],
        events: Sequence[NewEvent],
        reports: Sequence[SyncReport],
    ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Take the lock, write ``values`` and ``events``, release, and report: one commit.

        Only for actions with no effect outside the database, done before the
        call. (None, []) if the row was locked or changed since it was read.
        """
        ...

    def sync_state(self, traversal_id: TraversalId, entity_id: str, is_update: bool) -> SyncResult:
        """READY (with inputs) if every predecessor reported, WAITING, or MISSING."""
        ...

    def delete_sync_points(
        self,
        stack_id: StackId,
        *,
        keep_traversal: TraversalId | None = None,
        traversal_id: TraversalId | None = None,
    ) -> None:
        """Drop the stack's sync points (and inputs): only ``traversal_id``'s if given,
        never ``keep_traversal``'s."""
        ...


class ServiceStorage(Protocol):
    """The engine registry: service rows and their heartbeat."""

    def register_service(
        self, engine_id: EngineId, host: str, hostname: str, binary: str, topic: str,
        report_interval: int,
    ) -> None: ...

    def heartbeat_service(self, engine_id: EngineId) -> bool:
        """Move the row's ``updated_at`` to now; False when the engine has no row (it was
        removed as dead)."""
        ...

    def delete_service(self, engine_id: EngineId) -> None: ...

    def delete_stale_services(self, host: str, hostname: str, binary: str,
                              reported_before: datetime) -> int: ...

    def list_services(self) -> list[ServiceRecord]: ...


class RecoveryStorage(Protocol):
    """What recovery reads and writes: claims, lock holders, stalled nodes."""

    def claim(self, name: str, engine_id: EngineId, ttl_secs: float) -> bool:
        """Hold ``name`` for ``ttl_secs`` if free, expired or already ours."""
        ...

    def release_claims(self, prefix: str, before_secs: float) -> int: ...

    def lock_holders(self) -> set[EngineId]: ...

    def end_sessions_of(self, engine_id: EngineId) -> int:
        """End the database sessions a dead engine left open (their locks go)."""
        ...

    def resources_locked_by(self, engine_id: EngineId) -> list[ResourceRecord]: ...

    def stacks_in_progress(self) -> list[StackRecord]: ...

    def traversal_points(self, stack_id: StackId, traversal_id: TraversalId,
                         ) -> tuple[list[PointState], set[str]]:
        """The traversal's sync points, and the senders that reported in it."""
        ...

    def touch_sync_points(self, traversal_id: TraversalId,
                          keys: Iterable[tuple[str, bool]]) -> None: ...

    def paused_at_hooks(self, stack_id: StackId) -> set[ResourceId]: ...

    def latest_event_at(self, stack_id: StackId) -> datetime | None: ...

    def record_attempt(self, attempt: ResourceAttempt) -> None: ...

    def list_attempts(self, stack_id: StackId | None = None) -> list[ResourceAttempt]: ...


class CredentialStorage(Protocol):
    """Stored user credentials of stacks."""

    def create_user_creds(self, values: Mapping[str, Any]) -> int: ...

    def get_user_creds(self, creds_id: int) -> UserCreds | None: ...

    def replace_user_creds(self, old_id: int, new_id: int) -> int: ...

    def orphan_user_creds(self, created_before: datetime, limit: int = 100) -> list[int]: ...

    def user_creds_held_elsewhere(self, creds_id: int, stack_id: str) -> bool: ...

    def delete_user_creds(self, creds_id: int) -> None: ...


class Store(
    TemplateStorage, StackStorage, ResourceStorage, ResourceDataStorage, EventStorage,
    SyncPointStorage, ServiceStorage, RecoveryStorage, CredentialStorage, SoftwareStorage,
    SignalStorage, RequestStorage, SnapshotStorage, ConvergenceMigrationStorage,
    StackLockStorage, WriteBatching, Protocol,
):
    """Persistence for stacks, resources, events and sync points: every role at once.

    Each method is one transaction. Methods that take an ``event`` write it in
    the same transaction as the state change, so an event exists exactly when
    its change does. Conditional methods return False / None when their
    condition did not hold, and change nothing then.

    Consumers that use one part name that part's protocol instead (the service
    report takes a ServiceStorage, the template cache a TemplateStorage and a
    StackStorage): what each needs is then written where it is used.
    """


class StoreUnavailable(Exception):
    """The database went away under a Store call, and the Store could not settle it.

    A call whose connection died before its COMMIT is run again by the Store
    itself; this is raised when it could not be (the COMMIT got no answer, so
    its write may or may not have happened, or the database stayed away). The
    caller must assume neither outcome: it re-reads, or leaves the work to
    recovery, and never records a failure of what it was doing on that guess.
    """


__all__ = [
    "Clock",
    "ConvergenceMigrationStorage",
    "CredentialStorage",
    "Endpoint",
    "EventStorage",
    "Ids",
    "Notifier",
    "RecoveryStorage",
    "RequestStorage",
    "ResourceDataStorage",
    "ResourceStorage",
    "ServiceStorage",
    "SignalStorage",
    "SnapshotStorage",
    "SoftwareStorage",
    "StackLockStorage",
    "StackStorage",
    "Store",
    "StoreUnavailable",
    "SyncPointStorage",
    "TemplateStorage",
    "Transport",
    "WriteBatching",
]
