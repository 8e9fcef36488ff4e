"""The legacy engine's stack lock, a role of the Store (``hotplate.ports.Store``;
db/stack_locks.py)."""

from __future__ import annotations

from typing import Protocol

from hotplate.model.ids import EngineId, StackId


class StackLockStorage(Protocol):
    """Which engine runs a legacy stack's operation (Heat's ``stack_lock``)."""

    def acquire_stack_lock(self, stack_id: StackId, engine_id: EngineId) -> EngineId | None:
        """None when taken for ``engine_id``; else the engine that holds it."""
        ...

    def steal_stack_lock(self, stack_id: StackId, dead: EngineId, live: EngineId) -> bool:
        """Move the lock from ``dead`` to ``live``; False if ``dead`` no longer holds it."""
        ...

    def release_stack_lock(self, stack_id: StackId, engine_id: EngineId) -> bool:
        """Drop ``engine_id``'s lock; False if it does not hold it."""
        ...

    def stack_lock_holder(self, stack_id: StackId) -> EngineId | None: ...
