"""A plugin's context while it handles a signal: its metadata writes mark the signal
applied in the same transaction (signal_delivery.py delivers the signal).

A write is a compare-and-swap on the unlocked row's atomic_key, so it is
serialised with convergence writes on the row, and a signal applied twice (its
engine died after the write and the sweep re-drove it) changes the metadata
once, and scales a group once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.model.ids import ResourceId, StackId
from hotplate.model.signals import MetadataWrite, StoredSignal
from hotplate.resources.base import Resource

BUSY_WAIT_SECS = 10.0
"""How long a signal waits for its resource's row to be unlocked before the
sweep is left to apply it."""


class SignalAlreadyApplied(Exception):
    """Another engine applied this signal first."""


class SignalDeferred(Exception):
    """The signal cannot be applied now (its row stays locked): the sweep will."""


class SignalDropped(Exception):
    """The resource went away: the signal has nothing left to apply to."""


class SignalledContext:
    """The row's context, except that metadata writes also mark the signal applied
    (in one transaction); everything else is the row's context itself.

    The handler may write its own row (``metadata_update``: a wait condition
    handle) or another resource of its stack (``metadata_update_applying_signal``:
    a scaling policy's group, ``resources.scaling.SignalApplication``).
    """

    def __init__(self, ctx: EngineResourceContext, deps: EngineDeps,
                 signal: StoredSignal, deadline: datetime) -> None:
        self._ctx = ctx
        self._deps = deps
        self._signal = signal
        self.signal_deadline = deadline
        """When the engine stops waiting for this signal's background work (_finish)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None:
        """``change(metadata, status)`` of the signalled row, written with the applied
        mark, compare-and-swap (see ``_write_applying``)."""
        return self._write_applying(self._signal.resource_id, change)

    def metadata_update_applying_signal(
            self, resource: Resource,
            change: Callable[[dict[str, Any], str], Mapping[str, Any]]) -> dict[str, Any] | None:
        """``change`` of ``resource``'s row (a resource of this stack, found by its
        context's stack, name and uuid), written with the applied mark."""
        ctx = resource.ctx
        rows = self._deps.store.resources_named(StackId(ctx.stack_id), resource.name)
        row = next((r for r in rows if r.uuid == ctx.uuid), None)
        if row is None:
            raise SignalDropped()
        return self._write_applying(row.id, change)

    def _write_applying(self, resource_id: ResourceId,
                        change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        ) -> dict[str, Any]:
        """Write ``change(metadata, status)`` of the row as read, with the applied mark.

        ``change`` sees the row even while a worker holds it, so it may refuse
        at once (a group that is not COMPLETE); otherwise the write waits for
        the row to be unlocked, for ``BUSY_WAIT_SECS`` at most.

        Raises:
            SignalAlreadyApplied: another engine applied this signal meanwhile.
            SignalDeferred: the row stayed locked by a worker.
            SignalDropped: the row is gone.
        """
        store = self._deps.store
        deadline = time.monotonic() + BUSY_WAIT_SECS
        delay = 0.005
        while True:
            row = store.get_resource(resource_id)
            if row is None:
                raise SignalDropped()
            new = dict(change(dict(row.metadata or {}), str(row.status)))
            if row.engine_id is None:
                result = store.write_signal_metadata(self._signal.id, row.id,
                                                     row.atomic_key, new)
                if result is MetadataWrite.APPLIED:
                    return new
                if result is MetadataWrite.ALREADY_APPLIED:
                    raise SignalAlreadyApplied()
                if result is MetadataWrite.GONE:
                    raise SignalDropped()
                continue  # the row changed since it was read: read it again at once
            if time.monotonic() > deadline:
                raise SignalDeferred()
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.5)
