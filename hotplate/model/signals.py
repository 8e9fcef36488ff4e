"""A signal as the engine keeps it: stored before it is answered, applied once.

A signal's life::

    received ──store──> stored (applied_at NULL) ──handler ran──> applied
        │                    │
        │ same id again      └─ engine died: the recovery sweep re-drives it
        └──> nothing (a repeat is answered, never applied twice)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from hotplate.model.ids import ResourceId, StackId

__all__ = ["MetadataWrite", "StoredSignal"]


@dataclass(frozen=True, slots=True)
class StoredSignal:
    """One row of the resource_signal table."""

    id: int
    stack_id: StackId
    resource_id: ResourceId
    signal_id: str
    """The sender's id (a wait condition signal's ``id``), else one the engine made."""
    details: Any
    received_at: datetime
    attempted_at: datetime
    """When an engine last started to apply it (the sweep re-drives it after a timeout)."""
    applied_at: datetime | None = None


class MetadataWrite(StrEnum):
    """How a signal's metadata write with its applied mark ended."""

    APPLIED = "applied"
    """Both written, in one transaction."""
    CONFLICT = "conflict"
    """The row changed (or is locked) meanwhile: read it again and retry."""
    ALREADY_APPLIED = "already_applied"
    """Another engine applied this signal first: nothing written."""
    GONE = "gone"
    """The resource row is gone."""
