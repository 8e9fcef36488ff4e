"""check_resource: process one node of a traversal's graph.

The message names a node (resource row, traversal, update or cleanup); the
worker re-reads the row and the stack, asks convergence/ what to do, does it
while holding the resource lock, then reports to the dependants' sync points.
A duplicated or late message is harmless: the row already says it is done
(PROPAGATE repeats reports, which sync points ignore), or the traversal has
moved on (RETRIGGER hands over to the new one).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.convergence import outcome, propagation
from hotplate.convergence.node_plan import NodeContext, Plan, plan_node
from hotplate.convergence.propagation import graph_key_for, is_root, reports_for
from hotplate.convergence.restrictions import REPLACE
from hotplate.convergence.steps import (
    Aborted,
    Completed,
    Conflict,
    Failed,
    Lost,
    Next,
    Outcome,
    TimedOut,
    after,
    failure_reason,
    resolve_conflict,
)
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_instance
from hotplate.engine.runner import ActionTimeout
from hotplate.engine.worker import handover, held_rows, stack_actions
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.breakpoints import ParkedHook
from hotplate.engine.worker.node_work import LockLost, NodeWork, failure_text
from hotplate.engine.worker.parking import Parked, ParkedAction
from hotplate.engine.worker.recovery import database_lost_reason, take_over_row
from hotplate.engine.worker.resource_ops import ResourceOps
from hotplate.engine.worker.stack_actions import ParkedWalk
from hotplate.engine.worker.update_checks import implementation_changed, refuse, restricted_actions
from hotplate.model.errors import CancelOperation
from hotplate.model.ids import ResourceId, TemplateId, TraversalId
from hotplate.model.records import (
    ResourceRecord,
    StackRecord,
    SyncOutcome,
    SyncReport,
    SyncResult,
)
from hotplate.model.states import Action, Status
from hotplate.ports import StoreUnavailable

LOG = logging.getLogger(__name__)

_HOOKED_ACTIONS = {
    Plan.CREATE: Action.CREATE,
    Plan.UPDATE: Action.UPDATE,
    Plan.REPLACE: Action.UPDATE,
    Plan.DELETE: Action.DELETE,
}
"""The action whose pre hook a plan meets (a replacement starts as an update)."""


_NO_INPUTS = frozenset({Plan.RETRIGGER, Plan.TIME_OUT, Plan.SKIP, Plan.PROPAGATE,
                        Plan.PURGE})
"""Plans that neither resolve properties nor pass the node's inputs on."""

_READ_FIRST = frozenset({Plan.PURGE, Plan.RESTRICTED})
"""Plans whose writes no compare-and-swap on the row guards: decided from a row the
node did not read itself (row_memory.py, a batch's read), they are decided again
from a fresh read before anything is written."""


class CheckResource:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._ops = ResourceOps(deps)

    def check(
        self,
        resource_id: ResourceId,
        traversal_id: TraversalId,
        is_update: bool,
        input_data: Mapping[str, Any] | None = None,
        loaded: tuple[ResourceRecord, StackRecord] | None = None,
    ) -> None:
        """Process the node; ``input_data`` (its predecessors' reports) is taken from
        what this engine kept when it made the node ready, else read from the node's
        sync point (worker_client.py), when the message does not carry it.
        ``loaded``: the row and stack, when read with the node's batch."""
        with self._deps.busy.row(int(resource_id)):
            self._check(resource_id, traversal_id, is_update, input_data, loaded)

    def _check(self, resource_id: ResourceId, traversal_id: TraversalId, is_update: bool,
               input_data: Mapping[str, Any] | None,
               loaded: tuple[ResourceRecord, StackRecord] | None) -> None:
        deps = self._deps
        if input_data is None:
            input_data = deps.worker_client.ready.take((traversal_id, int(resource_id),
                                                        is_update))
        parked = deps.parked.take(resource_id, traversal_id, is_update) if deps.parked else None
        if parked is not None:
            deps.row_memory.forget(resource_id)  # the action goes on from its own row
        if isinstance(parked, ParkedWalk):  # a suspend, resume or check, not a node
            stack_actions.resume_walk(deps, parked)
            return
        if parked is not None:
            self._resume(parked)
            return
        loaded = held_rows.start_from(deps, resource_id, traversal_id, is_update, loaded)
        row, stack = loaded if loaded is not None else deps.store.load_node(resource_id)
        if row is None or stack is None:
            LOG.debug("resource %s gone; nothing to check", resource_id)
            return
        plan = self._plan(row, stack, traversal_id, is_update)
        if loaded is not None and plan in _READ_FIRST:
            loaded = None
            row, stack = deps.store.load_node(resource_id)
            if row is None or stack is None:
                return
            plan = self._plan(row, stack, traversal_id, is_update)
        if input_data is None and plan not in _NO_INPUTS:
            input_data = self._stored_inputs(row, stack, traversal_id, is_update)
        input_data = input_data or {}
        if plan is Plan.TAKE_BACK:  # a rollback first restores (replacement_hooks.py)
            taken = self._ops.take_back(row, stack)
            if taken is None or isinstance(taken, Failed):
                self._carry_out(NodeWork(row, stack, traversal_id, is_update,
                                         dict(input_data), held=loaded is not None),
                                taken or Lost())
                return
            row = taken
            plan = self._plan(row, stack, traversal_id, is_update)
        if plan is Plan.RETRIGGER:
            handover.retrigger_replaced(deps, row, stack, is_update)
            return
        if plan is Plan.TIME_OUT:
            self._carry_out(NodeWork(row, stack, traversal_id, is_update), TimedOut())
            return
        if plan is Plan.SKIP:
            return
        work = NodeWork(row=row, stack=stack, traversal_id=traversal_id,
                        is_update=is_update, input_data=dict(input_data),
                        held=loaded is not None)
        with deps.cancels.running(stack.id) as cancelled:
            try:
                self._carry_out(work, self._operate(plan, work, cancelled))
            except StoreUnavailable as exc:
                self._hand_on(work, exc)
            except Exception as exc:  # a bug must not strand the stack
                LOG.exception("unexpected error checking resource %s", row.id)
                self._unexpected(work, exc)

    def _stored_inputs(self, row: ResourceRecord, stack: StackRecord,
                       traversal_id: TraversalId, is_update: bool) -> dict[str, Any]:
        """What the node's predecessors reported, as its sync point stored it (a
        replacement row reads the point of the row it stands for)."""
        graph = self._deps.caches.graph(stack.id, traversal_id).graph
        key = graph_key_for(row, is_update, graph)
        if not propagation.expects_inputs(graph, key):
            return {}
        state = self._deps.store.sync_state(traversal_id, str(key.resource_id), key.is_update)
        return dict(state.inputs) if state.outcome is SyncOutcome.READY else {}

    def _plan(self, row: ResourceRecord, stack: StackRecord, traversal_id: TraversalId,
              is_update: bool) -> Plan:
        """Gather what the node's decision needs (reads only for update nodes) and decide."""
        deps = self._deps
        template_id = stack.raw_template_id
        changed, restricted = False, frozenset[str]()
        replacement_template = None
        replace_failed = True
        if is_update and stack.current_traversal == traversal_id:
            defn = deps.caches.for_stack(template_id, stack).resources.get(row.name)
            if defn is not None and row.action is not Action.INIT:
                changed = implementation_changed(deps, row, template_id, defn.type)
                restricted = restricted_actions(deps, template_id, row.name)
            if row.replaced_by is not None:
                replacement_template = self._replacement_template(row)
            elif row.status is Status.FAILED and not changed:
                replace_failed = self._ops.replaces_failed(row, stack)
        return plan_node(
            NodeContext(
                row=row,
                stack=stack,
                traversal_id=traversal_id,
                is_update=is_update,
                template_id=template_id,
                now=deps.clock.now(),
                implementation_changed=changed,
                restricted_actions=restricted,
                replacement_template_id=replacement_template,
                replace_failed=replace_failed,
            )
        )

    def _replacement_template(self, row: ResourceRecord) -> TemplateId | None:
        """The template of the row's replacement; None once that row is gone.

        Checked to be this row's replacement: SQLite hands the id of a purged
        row to the next one inserted, in any stack.
        """
        assert row.replaced_by is not None
        found = self._deps.store.get_resource(row.replaced_by)
        if found is None or found.stack_id != row.stack_id or found.replaces != row.id:
            return None
        return found.current_template_id

    def _resume(self, parked: Parked) -> None:
        """Check a parked action, or a node paused at a hook, again (see parking.py) and
        carry on as ``check`` would."""
        work = parked.work

        def reporter(row: ResourceRecord, node_data: Mapping[str, Any] | None
                     ) -> list[SyncReport]:
            return self._reports(row, work, node_data)

        with self._deps.cancels.running(work.stack.id) as cancelled:
            if parked.cancelled:
                cancelled.set()
            try:
                try:
                    if isinstance(parked, ParkedHook):
                        result: Outcome = self._ops.breakpoints.resume(parked, cancelled)
                    else:
                        assert isinstance(parked, ParkedAction)
                        result = self._ops.resume(parked, cancelled, reporter)
                except LockLost:
                    result = Lost()
                self._carry_out(work, result)
            except StoreUnavailable as exc:
                self._hand_on(work, exc)
            except Exception as exc:  # a bug must not strand the stack
                LOG.exception("unexpected error resuming resource %s", work.row.id)
                self._unexpected(work, exc)

    def _unexpected(self, work: NodeWork, exc: Exception) -> None:
        """Fail the resource and the traversal, as Heat does, so nothing waits forever."""
        action = work.row.action if work.row.action is not Action.INIT else Action.CREATE
        reason = failure_text(exc, work.row.name)
        self._deps.row_memory.forget(work.row.id)

        def record() -> None:
            fresh = self._deps.store.get_resource(work.row.id)
            if fresh is not None and fresh.engine_id not in (None, self._deps.engine_id):
                return  # another engine holds the row now (a takeover): it decides
            # Drop our lock if we still hold it, or no later traversal could take the row.
            event = self._ops.event(work.row, action, "FAILED", reason)
            self._deps.store.steal_resource_lock(
                work.row.id, self._deps.engine_id,
                {"status": "FAILED", "status_reason": reason}, event,
            )
            self._fail(work.stack, work.traversal_id,
                       outcome.resource_failed_reason(action, reason), work.row.id,
                       work.is_update)

        try:
            record()
        except Exception:  # the database away too: the periodic round tries it again
            LOG.exception("could not record the failure of resource %s", work.row.id)
            self._deps.retry_later.add(f"resource {work.row.id}", record)

    def _hand_on(self, work: NodeWork, exc: StoreUnavailable) -> None:
        """The database went away under the operation, and whether its last write
        happened is unknown: rather than fail the resource on that guess, hand the
        node on as a stopping engine does. A row this engine still holds is given up
        and its action resumed by a worker, told it is a retry, with the same token
        (recovery.py); an unlocked row's node is sent again, to be decided afresh
        (a row another engine took over meanwhile is that engine's)."""
        deps = self._deps
        LOG.warning("resource %s: %s; handing it on", work.row.id, exc)
        deps.row_memory.forget(work.row.id)

        def hand_on() -> None:
            fresh = deps.store.get_resource(work.row.id)
            if fresh is None:
                return
            if fresh.engine_id == deps.engine_id:
                take_over_row(deps, fresh, deps.engine_id,
                              reason=database_lost_reason(fresh, deps.engine_id))
            elif fresh.engine_id is None:
                self._recast(work)

        try:
            hand_on()
        except Exception as again:  # still away: the periodic round tries it again
            LOG.warning("resource %s: could not hand on after the database was lost (%s); "
                        "trying again each round", work.row.id, again)
            deps.retry_later.add(f"resource {work.row.id}", hand_on)

    def _operate(self, plan: Plan, work: NodeWork, cancelled: Any) -> Outcome:
        """Run the plan's operation, after its pre hook, to its one outcome (Paused
        while the node waits at the hook: it goes on when the hook is cleared)."""
        ops = self._ops

        def then(cancelled: Any) -> Outcome:
            return self._operate_plan(plan, work, cancelled)

        hooked = _HOOKED_ACTIONS.get(plan)
        try:
            if hooked is not None:
                paused = ops.breakpoints.pause(work, work.row, hooked, "pre", cancelled, then)
            elif plan is Plan.PROPAGATE and work.row.action is not Action.INIT:
                # Sent again while its post hook is pending (an engine that took
                # over): it waits there, as the node it stands for did.
                paused = ops.breakpoints.pause(work, work.row, work.row.action, "post",
                                               cancelled, then, pending_only=True)
            else:
                paused = None
        except CancelOperation as exc:  # while paused at a hook, in this thread
            return Aborted(str(exc))
        except ActionTimeout:  # while paused at a hook, in this thread
            return TimedOut()
        return paused if paused is not None else then(cancelled)

    def _operate_plan(self, plan: Plan, work: NodeWork, cancelled: Any) -> Outcome:
        """Run the plan's operation (its pre hook passed) to its one outcome."""
        ops = self._ops

        def reporter(row: ResourceRecord, node_data: Mapping[str, Any] | None
                     ) -> list[SyncReport]:
            return self._reports(row, work, node_data)

        try:
            if plan is Plan.PROPAGATE:
                return ops.no_op(work)
            if plan is Plan.CREATE:
                return ops.create(work, cancelled, reporter)
            if plan is Plan.RESUME:
                return ops.resume_interrupted(work, cancelled, reporter)
            if plan is Plan.UPDATE:
                return ops.update(work, cancelled, reporter)
            if plan is Plan.REPLACE:
                return ops.replace(work)
            if plan is Plan.RESTRICTED:
                return refuse(self._deps, work, REPLACE)
            if plan is Plan.DELETE:
                return ops.delete(work, cancelled, reporter)
            return ops.purge(work)
        except LockLost:
            return Lost()
        except CancelOperation as exc:  # while paused at a post hook, in this thread
            return Aborted(str(exc))
        except ActionTimeout:  # while paused at a post hook, in this thread
            return TimedOut()

    def _carry_out(self, work: NodeWork, result: Outcome) -> None:
        """The one place a node's next step happens (convergence/steps.py decides it)."""
        step = after(result)
        if step is Next.REPORT:
            assert isinstance(result, Completed)
            reports, synced = result.reports, result.synced
            if reports is None or synced is None:
                reports = self._reports(result.row, work, result.node_data)
                synced = self._deps.store.sync_many(reports)
            self._after_sync(work, result.row, list(reports), list(synced))
        elif step is Next.FAIL:
            assert isinstance(result, Failed | TimedOut)
            self._fail(work.stack, work.traversal_id, failure_reason(result), work.row.id,
                       work.is_update)
        elif step is Next.HAND_OVER:
            handover.retrigger_new_traversal(self._deps, work.stack, work.traversal_id,
                                             work.row.id, work.is_update)
        elif step is Next.RESOLVE:
            self._on_lock_conflict(work)

    # -- reporting onward ------------------------------------------------------------
    def _reports(self, row: ResourceRecord, work: NodeWork,
                 node_data: Mapping[str, Any] | None) -> list[SyncReport]:
        """Reports to the dependants' sync points, and to the stack's if we are a root."""
        graph = self._deps.caches.graph(work.stack.id, work.traversal_id).graph
        key = graph_key_for(row, work.is_update, graph)
        reports = [
            SyncReport(work.traversal_id, str(r.target.resource_id), r.target.is_update,
                       r.sender.encode(), r.data)
            for r in reports_for(graph, key, row, node_data)
        ]
        if is_root(graph, key):
            reports.append(SyncReport(work.traversal_id, str(work.stack.id), True,
                                      key.encode(), None))
        return reports

    def _after_sync(self, work: NodeWork, row: ResourceRecord,
                    reports: list[SyncReport], results: list[SyncResult]) -> None:
        """Settle the stack or send the dependants made ready; a node of this same row
        (an update's cleanup) may start from the row as this node left it."""
        deps = self._deps
        resource_id = row.id
        ready: list[tuple[ResourceId, bool, Mapping[str, Any] | None]] = []
        for report, result in zip(reports, results, strict=True):
            if result.outcome is SyncOutcome.MISSING:
                self._on_sync_missing(work, resource_id)
                return
            if result.outcome is not SyncOutcome.READY:
                continue
            if report.entity_id == str(work.stack.id):
                stack = deps.store.get_stack(work.stack.id)
                if stack is not None:
                    trav.mark_complete(deps, stack, work.traversal_id)
            else:
                ready.append((ResourceId(int(report.entity_id)), report.is_update,
                              result.inputs))
        held_rows.keep_for_next(deps, work, row, ready)
        if ready:
            deps.cast_check_resources(work.traversal_id, ready,
                                      loaded={row.id: (row, work.stack)})

    def _on_sync_missing(self, work: NodeWork, resource_id: ResourceId) -> None:
        """Our traversal's sync points are gone: hand over if a newer traversal runs."""
        latest = self._deps.store.get_stack(work.stack.id)
        if latest is None or latest.current_traversal == work.traversal_id:
            LOG.debug("traversal %s: sync point missing", work.traversal_id)
            return
        handover.retrigger(self._deps, latest, resource_id, work.is_update)

    # -- failures and lock conflicts -------------------------------------------------
    def _fail(self, stack: StackRecord, traversal_id: TraversalId, reason: str,
              resource_id: ResourceId, is_update: bool) -> None:
        if not trav.mark_failed(self._deps, stack, traversal_id, reason):
            # Another traversal took over; it may be waiting on this node.
            handover.retrigger_new_traversal(self._deps, stack, traversal_id, resource_id,
                                             is_update)

    def _on_lock_conflict(self, work: NodeWork) -> None:
        """Someone holds or changed the row: steal from the dead, retry, or step aside.

        A node that planned from a row it did not read (``work.held``) and finds the
        row moved on is sent again, to decide from the row as it is: what moved the
        row may have been another node of the same row, which reports for itself
        only."""
        deps = self._deps
        deps.row_memory.forget(work.row.id)
        fresh = deps.store.get_resource(work.row.id)
        holder = fresh.engine_id if fresh is not None else None
        alive = holder is not None and holder != deps.engine_id and deps.is_engine_alive(holder)
        decision = resolve_conflict(fresh, me=deps.engine_id, holder_alive=alive,
                                    template_id=work.template_id, planned=work.row)
        if decision is Conflict.STEP_ASIDE and fresh is not None and self._forgotten(fresh):
            # Our own lock, and no other work of ours on the row: the lock was ours all
            # along (its answer lost with the database, the write run again and refused).
            LOG.warning("resource %s: locked by this engine, which does not work on it; "
                        "handing it on", work.row.id)
            take_over_row(deps, fresh, deps.engine_id,
                          reason=database_lost_reason(fresh, deps.engine_id))
        elif decision is Conflict.STEP_ASIDE:
            LOG.debug("resource %s busy in another traversal", work.row.id)
        elif decision is Conflict.PREEMPT:
            assert fresh is not None
            self._preempt(fresh, work.stack)
        elif decision is Conflict.TAKE_OVER:
            assert fresh is not None and holder is not None
            take_over_row(deps, fresh, holder)  # which sends this node again
        elif decision is Conflict.RETRY or (decision is Conflict.NOTHING and work.held
                                            and fresh is not None):
            self._recast(work)

    def _forgotten(self, row: ResourceRecord) -> bool:
        """Whether ``row`` is locked by this engine with no work of its own behind it
        but the caller's (busy_rows.py)."""
        deps = self._deps
        if row.engine_id != deps.engine_id or deps.busy.count(int(row.id)) > 1:
            return False
        parked = deps.parked.resource_ids() if deps.parked is not None else frozenset()
        busy_stacks = deps.busy.snapshot()[1]
        return int(row.id) not in parked and str(row.stack_id) not in busy_stacks

    def _preempt(self, row: ResourceRecord, stack: StackRecord) -> None:
        """An older traversal works on the row: ask its plugin to finish early (Heat's
        handle_preempt: a nested stack cancels its child's update), so that the old
        worker hands the row over sooner."""
        try:
            instance = row_instance(self._deps, row, stack)
            with self._deps.slots.released():  # a plugin acts (a child stack's cancel)
                instance.handle_preempt()
        except Exception:  # preempting is a courtesy; the old worker still hands over
            LOG.info("resource %s: preempt failed", row.id, exc_info=True)

    def _recast(self, work: NodeWork) -> None:
        self._deps.cast_check_resource(work.row.id, work.traversal_id, work.is_update,
                                       inputs=work.input_data)
