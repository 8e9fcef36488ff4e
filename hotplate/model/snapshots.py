"""A stack snapshot as the engine sees it (db/snapshots.py stores it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["SNAPSHOT_CREATE", "SNAPSHOT_DELETE", "SnapshotRecord"]

SNAPSHOT_CREATE = "CREATE"
SNAPSHOT_DELETE = "DELETE"
"""A snapshot's own actions (its ``action`` column), as Heat names them; its statuses
are the stack's (IN_PROGRESS, COMPLETE, FAILED)."""


@dataclass(frozen=True, slots=True)
class SnapshotRecord:
    id: str
    stack_id: str
    name: str | None
    project_id: str
    action: str | None
    status: str | None
    status_reason: str | None
    created_at: datetime
    data: dict[str, Any] | None = None
    """The stack's template, environment and files (and its state, once done)."""
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each snapshotted resource's data, by name (``resource_snapshot`` rows)."""
