"""What ``heat-manage migrate_convergence_1 STACK`` changes, checked as Heat's engine
checks it (``EngineService.migrate_convergence_1``): a root stack, complete with every
stack nested under it, whose legacy rows become a convergence stack's
(convergence/migration.py). The caller writes the result in one transaction
(db/convergence_migration.py).

Every stack hotplate creates is a convergence stack; a legacy one comes from a
database filled by other means.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.convergence.migration import StackConversion, convert_rows
from hotplate.engine.cache import EngineCaches
from hotplate.engine.legacy.locking import take_lock
from hotplate.engine.service.lookups import StackLookups, reaches
from hotplate.model.errors import (
    ActionInProgress,
    ActionNotComplete,
    EntityNotFound,
    NotSupported,
)
from hotplate.model.ids import NO_TRAVERSAL, StackId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.states import Status
from hotplate.ports import Ids, ResourceStorage

LOG = logging.getLogger(__name__)

__all__ = ["MigrationMethods", "plan_convergence_migration"]


def plan_convergence_migration(
    root: StackRecord | None,
    stack_id: str,
    nested: Sequence[StackRecord],
    *,
    caches: EngineCaches,
    rows: ResourceStorage,
    ids: Ids,
) -> list[StackConversion]:
    """The conversions of ``root`` (the live stack ``stack_id``, or None) and its nested
    stacks; none when ``root`` is a convergence stack already.

    Raises:
        EntityNotFound: no live stack ``stack_id``.
        NotSupported: it is a nested stack (its root is migrated with it).
        ActionNotComplete: it, or a stack nested under it, is not COMPLETE.
    """
    if root is None:
        raise EntityNotFound("Stack", stack_id)
    if root.owner_id is not None:
        raise NotSupported(f"Migration of nested stack {stack_id} is not supported.")
    if root.convergence:
        LOG.info("Convergence was already enabled for stack %s", stack_id)
        return []
    for stack in (root, *nested):
        if stack.status is not Status.COMPLETE:
            raise ActionNotComplete(stack.name, str(stack.action))
    return [_conversion(stack, caches, rows, ids) for stack in (*nested, root)
            if not stack.convergence]


def _conversion(stack: StackRecord, caches: EngineCaches, rows: ResourceStorage, ids: Ids,
                ) -> StackConversion:
    template = caches.for_stack(stack.raw_template_id, stack)
    requires, dropped = convert_rows(template.dependencies(), rows.list_resources(stack.id),
                                     stack.raw_template_id)
    for row_id in dropped:
        LOG.warning("Resource %s not found in template for stack %s, deleting from DB.",
                    row_id, stack.id)
    prev = stack.prev_raw_template_id
    return StackConversion(
        stack_id=StackId(stack.id),
        expected_traversal=stack.current_traversal or NO_TRAVERSAL,
        template_id=stack.raw_template_id,
        new_traversal=TraversalId(ids.new_uuid()),
        requires=requires,
        dropped=dropped,
        prev_template_id=prev if prev != stack.raw_template_id else None,
    )


class MigrationMethods(StackLookups):
    MIGRATION_METHODS = frozenset({"migrate_convergence_1"})

    def migrate_convergence_1(self, ctxt: Mapping[str, Any], stack_id: str) -> None:
        """heat-manage's ``migrate_convergence_1`` over the engine topic, as Heat's asks
        an engine: the stack's tree becomes convergence in one transaction, or nothing
        changes (ActionInProgress when an action started meanwhile).

        Raises:
            EntityNotFound, NotSupported, ActionNotComplete, ActionInProgress.
        """
        deps = self._deps
        root = deps.store.get_stack(StackId(str(stack_id)))
        if root is not None and not reaches(ctxt, root):
            root = None
        nested = deps.store.nested_stacks(root.id) if root is not None else []
        plans = plan_convergence_migration(root, str(stack_id), nested, caches=deps.caches,
                                           rows=deps.store, ids=deps.ids)
        if not plans:
            return
        locked = []
        try:
            for stack in (*nested, root):  # Heat holds every stack's lock as it migrates
                if stack is not None and not stack.convergence:
                    take_lock(deps, stack, running_here=lambda: True, stop_here=lambda: None)
                    locked.append(stack)
            if deps.store.convert_to_convergence(plans):
                return
        finally:
            for stack in locked:
                deps.store.release_stack_lock(stack.id, deps.engine_id)
        now = deps.store.get_stack(StackId(str(stack_id))) or root
        assert now is not None
        raise ActionInProgress(now.name, str(now.action))
