"""The engine_worker and heat-engine-listener endpoints of one engine.

Only the methods in ``ALLOWED`` can be invoked over the transport; Heat
exposes every public method of its endpoints, we do not.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from hotplate.convergence import outcome
from hotplate.engine.deps import EngineDeps
from hotplate.engine.local_routes import LegacyControl
from hotplate.engine.worker import snapshot_deletion, stack_actions
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.check_resource import CheckResource
from hotplate.model.ids import ResourceId, StackId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)

Loaded = tuple[ResourceRecord, StackRecord]
"""A node's row and stack, read with the rest of its batch."""

LOCAL_BACKLOG = 2
"""Nodes queued per local worker before the worker topic stops taking messages."""


class WorkerService:
    ALLOWED = frozenset({"check_resource", "check_resources", "cancel_check_resource",
                         "check_resource_delete_snapshot", "stack_action", "wake_parked"})

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._check = CheckResource(deps)
        self._local: ThreadPoolExecutor | None = None
        self._local_lock = threading.Lock()
        self._room = threading.Condition(self._local_lock)
        self._queued: dict[Future[None], tuple[ResourceId, TraversalId, bool]] = {}

    def check_resources(self, ctxt: Mapping[str, Any], current_traversal: str,
                        nodes: list[list[Any]]) -> None:
        """A batch of nodes of one traversal (worker_client.py): each runs on this
        engine's local workers, side by side, with no broker round trip. If the
        engine dies first they are ready nodes nobody works on, which recovery
        sends again (engine/worker/recovery.py)."""
        traversal = TraversalId(current_traversal)
        keys = [(ResourceId(int(resource_id)), traversal, bool(is_update))
                for resource_id, is_update in nodes]
        loaded = self._load_batch([key[0] for key in keys])
        for key in keys:
            self._submit(key, None, loaded.get(key[0]))

    def _load_batch(self, resource_ids: list[ResourceId]) -> dict[ResourceId, Loaded]:
        """The batch's rows and stack in one read instead of one a node. A row may
        change before its node runs: the lock's compare-and-swap then fails and the
        node decides again from the row as it is (resolve_conflict), as it would had
        the row changed just after its own read. Unread (the database away), each
        node reads its own."""
        try:
            return self._deps.store.load_nodes(resource_ids)
        except Exception:
            LOG.warning("could not read a batch's %d rows at once", len(resource_ids),
                        exc_info=True)
            return {}

    def _submit(self, key: tuple[ResourceId, TraversalId, bool],
                data: Mapping[str, Any] | None, loaded: Loaded | None = None) -> None:
        """Queue a node for the local workers, waiting while they have a whole round
        queued already: the message handler then stays busy, the transport takes no
        more messages, and what this engine has not taken goes to the others."""
        self._local_pool()
        with self._room:
            while len(self._queued) >= LOCAL_BACKLOG * max(1, self._deps.local_workers):
                self._room.wait(1.0)
            pool = self._local
            if pool is not None:
                future = pool.submit(self._run_local, *key, data, loaded)
                self._queued[future] = key
        if pool is None:  # stopped meanwhile: to another engine's workers
            self._deps.cast_check_resource(*key)
            return
        future.add_done_callback(self._forget)

    def _forget(self, future: Future[None]) -> None:
        with self._room:
            self._queued.pop(future, None)
            self._room.notify()

    def _run_local(self, resource_id: ResourceId, traversal_id: TraversalId,
                   is_update: bool, data: Mapping[str, Any] | None,
                   loaded: Loaded | None = None) -> None:
        """Run the node, then each node it kept for this thread (NextHere), until one
        keeps none; once the local workers are stopping, a kept node goes back to
        the worker topic instead."""
        next_here = self._deps.worker_client.next_here
        with next_here.following():
            self._run_one(resource_id, traversal_id, is_update, data, loaded)
            while (kept := next_here.take()) is not None:
                kept_traversal, kept_id, kept_update = kept.key
                if self._local is None:
                    self._deps.cast_check_resource(ResourceId(kept_id), kept_traversal,
                                                   kept_update, inputs=kept.inputs)
                    return
                self._run_one(ResourceId(kept_id), kept_traversal, kept_update, kept.inputs,
                              kept.loaded)

    def _run_one(self, resource_id: ResourceId, traversal_id: TraversalId,
                 is_update: bool, data: Mapping[str, Any] | None,
                 loaded: Loaded | None = None) -> None:
        try:
            with self._deps.slots.held():
                self._check.check(resource_id, traversal_id, is_update, data, loaded)
        except Exception:  # as a transport logs a failed cast: the node is re-driven later
            LOG.exception("check_resource %s of traversal %s failed", resource_id,
                          traversal_id)

    def _local_pool(self) -> ThreadPoolExecutor:
        with self._local_lock:
            if self._local is None:
                self._local = ThreadPoolExecutor(max(1, self._deps.local_workers),
                                                 thread_name_prefix="hotplate-local")
            return self._local

    def stop_local(self) -> int:
        """End the local workers: nodes not started yet go back to the worker topic
        (another engine's, when this one no longer serves it); those running finish.
        Returns how many went back."""
        with self._local_lock:
            pool, self._local = self._local, None
            queued = dict(self._queued)
        if pool is None:
            return 0
        pool.shutdown(wait=False, cancel_futures=True)
        back = [key for future, key in queued.items() if future.cancelled()]
        for resource_id, traversal, is_update in back:
            self._deps.cast_check_resource(resource_id, traversal, is_update)
        return len(back)

    def check_resource(
        self,
        ctxt: Mapping[str, Any],
        resource_id: int,
        current_traversal: str,
        data: Mapping[str, Any] | None = None,
        is_update: bool = True,
        adopt_stack_data: Any = None,
        converge: bool = False,
    ) -> None:
        """One node, in Heat's signature; our messages carry keys only
        (worker_client.py), and ``data``, the inputs Heat's message carries, is
        used when a sender still includes it. With local workers, the node runs on
        one of them, as a batch's nodes do: the worker topic's own threads only hand
        nodes over, so only the local workers hold database connections for nodes."""
        key = (ResourceId(int(resource_id)), TraversalId(current_traversal), bool(is_update))
        if self._deps.local_workers:
            self._submit(key, data)
            return
        with self._deps.slots.held():
            self._check.check(*key, data)

    def stack_action(self, ctxt: Mapping[str, Any], stack_id: str, action: str,
                     traversal_id: str, again: bool = False) -> None:
        """Suspend, resume or check a whole stack (see ``stack_actions``); ``again``
        when recovery sends it once more."""
        if action not in stack_actions.STACK_ACTIONS:
            raise ValueError(f"not a stack action: {action!r}")
        with self._deps.slots.held():
            stack_actions.run(self._deps, StackId(stack_id), Action(action),
                              TraversalId(traversal_id), again=bool(again))

    def check_resource_delete_snapshot(self, ctxt: Mapping[str, Any], snapshot_id: str) -> None:
        """Delete a snapshot: its resources' parts, then its rows (snapshot_deletion.py)."""
        with self._deps.slots.held():
            snapshot_deletion.run(self._deps, str(snapshot_id))

    def cancel_check_resource(self, ctxt: Mapping[str, Any], stack_id: str) -> None:
        count = self._deps.cancels.cancel(StackId(stack_id))
        if self._deps.parked is not None:
            count += self._deps.parked.cancel(str(stack_id))
        LOG.debug("cancelled %d workers of stack %s", count, stack_id)

    def wake_parked(self, ctxt: Mapping[str, Any], stack_id: str) -> None:
        """The child stack ``stack_id`` ended: re-check the action parked on it here."""
        if self._deps.parked is not None:
            self._deps.parked.wake(str(stack_id))

    # -- called in-process by EngineService (not over the transport) --------------
    def stop_all_workers(self, stack: StackRecord, *, wait_secs: float = 15.0) -> bool:
        """Stop the traversal of the stack and of every nested stack under it, tell every
        engine holding one of their locks to cancel, and wait for the locks (Heat's rule:
        a delete stops the whole tree at once, not one level at a time)."""
        deps = self._deps
        tree = [stack, *self._descendants(stack)]
        for member in tree:
            if member.status is Status.IN_PROGRESS:
                trav.stop_traversal(deps, member)
        holders = {member.id: self._live_lock_holders(member.id) for member in tree}
        for stack_id, engines in holders.items():
            for engine_id in engines:
                if engine_id == deps.engine_id:  # no need to queue behind our own workers
                    self.cancel_check_resource({}, str(stack_id))
                    continue
                deps.worker_client.cancel_check_resource(stack_id, engine_id)
        deadline = deps.clock.now() + timedelta(seconds=wait_secs)
        busy = {k: v for k, v in holders.items() if v}
        while busy and deps.clock.now() < deadline:
            deps.clock.sleep(0.05)
            busy = {k: e for k in busy if (e := self._live_lock_holders(k))}
        if busy:
            LOG.warning("stack %s: workers still hold locks after cancel: %s", stack.id,
                        sorted({e for engines in busy.values() for e in engines}))
            return False
        return True

    def stop_traversals(self, stack: StackRecord,
                        reason_of: Callable[[Action], str] = outcome.cancelled_reason,
                        ) -> None:
        """Cancel without rollback: the stack's traversal and those of its nested stacks
        stop, as Heat's stop_traversal; actions already running finish on their own.
        Each stack FAILED ``reason_of(its action)`` (the legacy engine says its own)."""
        for member in [stack, *self._descendants(stack)]:
            if member.status is Status.IN_PROGRESS:
                trav.stop_traversal(self._deps, member, reason_of(member.action))

    def _descendants(self, stack: StackRecord) -> list[StackRecord]:
        """Every live nested stack under ``stack``, parents before children."""
        found: list[StackRecord] = []
        owners = [stack.id]
        store = self._deps.store
        while owners:
            # One owner (every delete of a nested stack asks about its own children,
            # mostly to find none): the prepared statement, not the listing's query.
            children = (store.list_child_stacks(owners[0]) if len(owners) == 1
                        else store.list_stacks(None, filters={"owner_id": owners},
                                               show_nested=True))
            found.extend(children)
            owners = [child.id for child in children]
        return found

    def _live_lock_holders(self, stack_id: StackId) -> set[Any]:
        """Engines holding locks of the stack that still answer; dead ones' locks get stolen."""
        holders = self._deps.store.engines_holding_locks(stack_id)
        return {e for e in holders if self._deps.is_engine_alive(e)}


class ListenerService:
    """The heat-engine-listener topic: liveness probes (a lock held by an engine that
    answers is not stale), and the legacy engine's thread control (engine/legacy/)."""

    ALLOWED = frozenset({"listening", "stop_stack", "send"})

    def __init__(self, legacy: LegacyControl | None = None) -> None:
        self._legacy = legacy

    def listening(self, ctxt: Mapping[str, Any]) -> bool:
        return True

    def stop_stack(self, ctxt: Mapping[str, Any], stack_identity: Mapping[str, Any]) -> bool:
        """Stop this engine's thread of a legacy stack and wait for it to end."""
        if self._legacy is None:
            return True
        return self._legacy.stop(StackId(str(stack_identity["stack_id"])))

    def send(self, ctxt: Mapping[str, Any], stack_identity: Mapping[str, Any],
             message: str) -> bool:
        """Deliver ``cancel`` or ``cancel_with_rollback`` to that thread."""
        if self._legacy is None:
            return False
        return self._legacy.send(StackId(str(stack_identity["stack_id"])), str(message))
