"""Calling a plugin's replacement hooks: ``prepare_for_replace`` and ``restore_prev_rsrc``.

When they are called is decided in convergence/replacement_hooks.py; this
module carries it out on the old row, as Heat does: under the row's lock
(taken without changing its state, as Heat's ``Resource.lock``), the
plugin's resource data written when the lock is dropped, and a failure
settling the row UPDATE_FAILED with Heat's text. A type that keeps the
defaults is not called and costs nothing: no lock, no statement.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hotplate.convergence import outcome
from hotplate.convergence.replacement_hooks import prepares_for_replace, restores_previous
from hotplate.convergence.steps import Failed
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.hosting.row_plugins import row_class, row_instance
from hotplate.engine.worker.node_work import LockLost, NodeWork, failure_text
from hotplate.engine.worker.row_bookkeeping import RowBookkeeping
from hotplate.engine.worker.update_checks import implementation_changed
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource

LOG = logging.getLogger(__name__)
REPLACEMENT_ID_WAIT_SECS = 30.0
"""How long a rollback's ``restore_prev_rsrc`` waits for the physical id of a
replacement whose create is still underway (an API call in flight takes seconds)."""
REPLACEMENT_ID_POLL_SECS = 0.5


def overrides(cls: type[Resource], hook: str) -> bool:
    """Whether ``cls`` has its own ``hook`` (Heat calls only overridden ones)."""
    return getattr(cls, hook) is not getattr(Resource, hook)


class ReplacementHooks(RowBookkeeping):
    def prepare_replaced(self, work: NodeWork) -> ResourceRecord | Failed:
        """Ask the row's plugin to ``prepare_for_replace`` if it has such a hook.

        Returns the row as it now stands (its key moved if the hook ran), or
        the failure that ends the node. Raises LockLost if the row moved.
        """
        row = work.row
        cls = self._row_class(row)
        if not overrides(cls, "prepare_for_replace"):
            return row
        wanted = self._deps.caches.for_stack(work.template_id, work.stack).resources[row.name]
        changed = implementation_changed(self._deps, row, work.template_id, wanted.type)
        if not prepares_for_replace(row.action, row.status, implementation_changed=changed):
            return row
        return self._hooked(row, work.stack, cls, lambda plugin: plugin.prepare_for_replace())

    def take_back(self, row: ResourceRecord, stack: StackRecord
                  ) -> ResourceRecord | Failed | None:
        """Clear ``replaced_by`` of a row a traversal chose again; while the stack rolls
        back, first ask its plugin to ``restore_prev_rsrc(convergence=True)`` if it has
        such a hook. Returns the row as written, the failure that ends the node, or
        None when someone else holds or changed the row."""
        store = self._deps.store
        cls = row_class(self._deps, row)
        if not (restores_previous(stack) and overrides(cls, "restore_prev_rsrc")):
            return store.update_resource_if_unlocked(row.id, row.atomic_key,
                                                     {"replaced_by": None})

        def restore(plugin: Resource) -> None:
            plugin.replacement = self._replacement(row, stack)
            plugin.restore_prev_rsrc(convergence=True)

        try:
            return self._hooked(row, stack, cls, restore, {"replaced_by": None})
        except LockLost:
            return None

    def _replacement(self, row: ResourceRecord, stack: StackRecord) -> Resource | None:
        """The plugin of the row that replaced ``row``, if it still stands.

        A rollback that cancelled the replacement's create may get here while that
        create still waits on the cloud's answer, its physical id not yet written:
        the old resource would take its things back not knowing who holds them, and
        race the replacement for them (a port bound to two servers). So while that
        create holds the row without an id, its id is waited for a while.
        """
        assert row.replaced_by is not None
        deps = self._deps
        deadline = deps.clock.now().timestamp() + REPLACEMENT_ID_WAIT_SECS
        while True:
            found = deps.store.get_resource(row.replaced_by)
            if found is None or found.stack_id != row.stack_id or found.replaces != row.id:
                return None
            if (found.physical_resource_id is not None or found.engine_id is None
                    or deps.clock.now().timestamp() >= deadline):
                return row_instance(deps, found, stack)
            deps.clock.sleep(REPLACEMENT_ID_POLL_SECS)

    def _hooked(self, row: ResourceRecord, stack: StackRecord, cls: type[Resource],
                hook: Callable[[Resource], None], values: dict[str, object] | None = None
                ) -> ResourceRecord | Failed:
        """Run ``hook(plugin)`` under the row's lock; write ``values`` and the plugin's
        data as the lock is dropped, or settle the row UPDATE_FAILED."""
        deps = self._deps
        locked = deps.store.acquire_resource(row.id, deps.engine_id, row.atomic_key, {})
        if locked is None:
            raise LockLost()
        ctx: EngineResourceContext = self._context(locked, stack)
        plugin = cls(row.name, row.properties_data or {}, ctx,
                     resource_id=row.physical_resource_id)
        try:
            with deps.slots.released():
                hook(plugin)
        except Exception as exc:
            reason = failure_text(exc, row.name)
            LOG.info("resource %s: replacement hook failed: %s", row.name, reason)
            self._release(locked, Action.UPDATE, Status.FAILED, reason, ctx=ctx)
            return Failed(outcome.resource_failed_reason(Action.UPDATE, reason))
        written = dict(values or {})
        pending = ctx.take_pending()
        if pending:
            written["resource_data"] = pending
        done = deps.store.update_resource_locked(row.id, deps.engine_id, written, release=True)
        if done is None:
            raise LockLost()
        return done
