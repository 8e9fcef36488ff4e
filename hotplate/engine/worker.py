"""The engine_worker and heat-engine-listener endpoints of one engine.

Only the methods in ``ALLOWED`` can be invoked over the transport; Heat
exposes every public method of its endpoints, we do not.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from hotplate.engine import stack_actions
from hotplate.engine import traversal as trav
from hotplate.engine.check_resource import CheckResource
from hotplate.engine.deps import EngineDeps
from hotplate.model.ids import ResourceId, StackId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.rpc.topics import WORKER_TOPIC

LOG = logging.getLogger(__name__)


class WorkerService:
    ALLOWED = frozenset({"check_resource", "cancel_check_resource", "stack_action"})

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._check = CheckResource(deps)

    def check_resource(
        self,
        ctxt: Mapping[str, Any],
        resource_id: int,
        current_traversal: str,
        data: Mapping[str, Any],
        is_update: bool,
        adopt_stack_data: Any = None,
        converge: bool = False,
    ) -> None:
        with self._deps.slots.held():
            self._check.check(ResourceId(int(resource_id)), TraversalId(current_traversal),
                              data or {}, bool(is_update))

    def stack_action(self, ctxt: Mapping[str, Any], stack_id: str, action: str,
                     traversal_id: str) -> None:
        """Suspend, resume or check a whole stack (see ``stack_actions``)."""
        if action not in stack_actions.STACK_ACTIONS:
            raise ValueError(f"not a stack action: {action!r}")
        with self._deps.slots.held():
            stack_actions.run(self._deps, StackId(stack_id), Action(action),
                              TraversalId(traversal_id))

    def cancel_check_resource(self, ctxt: Mapping[str, Any], stack_id: str) -> None:
        count = self._deps.cancels.cancel(StackId(stack_id))
        LOG.debug("cancelled %d workers of stack %s", count, stack_id)

    # -- called in-process by EngineService (not over the transport) --------------
    def stop_all_workers(self, stack: StackRecord, *, wait_secs: float = 15.0) -> bool:
        """Stop the traversal, tell every engine holding a lock to cancel, wait for the locks."""
        if stack.status is Status.IN_PROGRESS:
            trav.stop_traversal(self._deps, stack)
        deps = self._deps
        engines = self._live_lock_holders(stack.id)
        for engine_id in engines:
            deps.transport.cast({}, WORKER_TOPIC, "cancel_check_resource",
                                {"stack_id": str(stack.id)}, server=engine_id)
        deadline = deps.clock.now() + timedelta(seconds=wait_secs)
        while engines and deps.clock.now() < deadline:
            deps.clock.sleep(0.05)
            engines = self._live_lock_holders(stack.id)
        if engines:
            LOG.warning("stack %s: workers still hold locks after cancel: %s", stack.id, engines)
            return False
        return True

    def _live_lock_holders(self, stack_id: StackId) -> set[Any]:
        """Engines holding locks of the stack that still answer; dead ones' locks get stolen."""
        holders = self._deps.store.engines_holding_locks(stack_id)
        return {e for e in holders if self._deps.is_engine_alive(e)}


class ListenerService:
    """Answers liveness probes: a lock held by an engine that answers is not stale."""

    ALLOWED = frozenset({"listening"})

    def listening(self, ctxt: Mapping[str, Any]) -> bool:
        return True
