"""Stack snapshots, a role of the Store (``hotplate.ports.Store``; db/snapshots.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from hotplate.model.snapshots import SnapshotRecord


class SnapshotStorage(Protocol):
    """A stack's snapshots, and what each of its resources gave to one."""

    def create_snapshot(self, snapshot_id: str, stack_id: str, project_id: str,
                        name: str | None, data: Mapping[str, Any], action: str,
                        status: str) -> SnapshotRecord: ...

    def get_snapshot(self, snapshot_id: str) -> SnapshotRecord | None: ...

    def list_snapshots(self, stack_id: str) -> list[SnapshotRecord]: ...

    def count_snapshots(self, stack_id: str) -> int: ...

    def update_snapshot(self, snapshot_id: str, *, action: str | None = None,
                        status: str | None = None, status_reason: str | None = None,
                        data: Mapping[str, Any] | None = None,
                        only_if_status: str | None = None) -> bool: ...

    def delete_snapshot(self, snapshot_id: str) -> None: ...

    def add_resource_snapshot(self, snapshot_id: str, resource_name: str,
                              data: Mapping[str, Any]) -> None: ...
