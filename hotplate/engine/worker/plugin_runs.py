"""Running a plugin's action for an operation: handle, a first check, then parked.

``_run`` runs handle and a first check (cancel and deadline honoured); an
action not done by then is parked (parking.py) and ``resume`` checks it
again each time it is re-driven. Any failure settles the row FAILED with
Heat's text, at whichever check it comes; but a cloud API that is away is
waited for (cloud_waits.py), a create whose object went ERROR is deleted
and retried first, and a delete refused with a conflict asked again
(action_retries.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from hotplate.convergence import outcome
from hotplate.convergence.node_plan import stack_deadline
from hotplate.convergence.recovery import idempotency_token
from hotplate.convergence.steps import Aborted, Failed, Outcome, Paused, TimedOut
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.runner import ActionTimeout
from hotplate.engine.worker.action_retries import CreateRetries, DeleteRetries
from hotplate.engine.worker.cloud_waits import CloudWaits, resolving
from hotplate.engine.worker.node_work import LockLost, NodeWork, Reporter, failure_text
from hotplate.engine.worker.parking import ParkedAction
from hotplate.engine.worker.row_bookkeeping import RowBookkeeping
from hotplate.model.errors import CancelOperation, UpdateReplace
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status
from hotplate.ports import StoreUnavailable
from hotplate.resources.base import CheckAgain, CheckResult, Resource, heat_class_name

LOG = logging.getLogger(__name__)


class PluginRuns(RowBookkeeping):
    def _run(self, work: NodeWork, row: ResourceRecord, action: Action, handle: Any,
             check: Callable[[Any], CheckResult], cancelled: threading.Event,
             instance: Resource, ctx: EngineResourceContext,
             finish: Callable[[threading.Event, Reporter], Outcome]) -> Outcome | None:
        """Run a plugin action; on failure settle the row FAILED and say why.

        ``handle`` and a first check run now; an action that check does not
        find done is parked (``parking.py``): the answer is then Paused
        (nothing to report yet), and ``finish`` runs when a later check says
        done. None: done now, the caller finishes. Without parking (an
        engine built without it) the checks are made here, in this thread.
        The plugin runs without the engine's work slot: plugins wait and
        call out side by side, whatever the bookkeeping's limit.
        """
        waits = CloudWaits(instance, handle, check)  # an API away is waited for
        handle, check = waits.handle, waits.check
        parked = self._deps.parked
        if parked is None:
            latest = [row]

            def persist() -> None:
                latest[0] = self._persist_progress(latest[0], instance, ctx)

            def run() -> None:
                with self._deps.slots.released():
                    self._deps.runner.run(handle, check, deadline=stack_deadline(work.stack),
                                          cancelled=cancelled, before_wait=persist)
            return self._guarded(row, action, instance, ctx, run)[0]

        def first() -> bool:
            since = self._deps.clock.now()
            with self._deps.slots.released():
                data = self._deps.runner.start(handle, deadline=stack_deadline(work.stack),
                                               cancelled=cancelled)
                answer = check(data)
            if answer:  # any truthy answer is done, as Heat reads it
                return False
            written = self._persist_progress(row, instance, ctx)
            self._park(ParkedAction(work, written, action, instance, ctx, check, data, finish,
                                    wake_key=instance.wake_key(), since=since),
                       answer, cancelled, again=False)
            return True
        failed, was_parked = self._guarded(row, action, instance, ctx, first)
        return failed or (Paused() if was_parked else None)

    def resume(self, parked: ParkedAction, cancelled: threading.Event,
               reporter: Reporter) -> Outcome:
        """Check a parked action again: finish it, fail it, or park it once more."""
        work = parked.work

        def again() -> bool:
            self._deps.runner.checkpoint(stack_deadline(work.stack), cancelled)
            with self._deps.slots.released():
                answer = parked.check(parked.data)
            if answer:
                return False
            parked.row = self._persist_progress(parked.row, parked.instance, parked.ctx)
            parked.wake_key = parked.instance.wake_key()  # the check may wait on another
            self._park(parked, answer, cancelled, again=True)
            return True
        try:
            failed, still_waiting = self._guarded(parked.row, parked.action, parked.instance,
                                                  parked.ctx, again)
        except UpdateReplace as exc:  # only a first check may ask for a replacement
            failed, still_waiting = self._failed(parked.row, parked.action, parked.instance,
                                                 parked.ctx, exc), None
        if failed is not None:
            return failed
        if still_waiting:
            return Paused()
        return parked.finish(cancelled, reporter)

    def _park(self, parked: ParkedAction, answer: CheckResult, cancelled: threading.Event,
              *, again: bool) -> None:
        """Park until the next check is due: as the plugin asked (CheckAgain), else on
        the back-off, never later than its ``next_check_after``; a cancel that came
        during the check (``cancelled``) is kept, to fail it as it resumes."""
        assert self._deps.parked is not None
        self._deps.parked.park(
            parked, again=again,
            asked=answer.after if isinstance(answer, CheckAgain) else None,
            latest=parked.instance.next_check_after(parked.data), cancelled=cancelled)

    def _waiting_properties(self, work: NodeWork, defn: Any, cls: type[Resource],
                            cancelled: threading.Event) -> dict[str, Any]:
        """The resource's properties, their RESOLVE lookups waiting out an API away."""
        def sleep(secs: float) -> None:
            with self._deps.slots.released():
                self._deps.clock.sleep(secs)

        return resolving(lambda: self._properties(work, defn, cls), clock=self._deps.clock,
                         deadline=stack_deadline(work.stack), cancelled=cancelled, sleep=sleep)

    def _retried_create(self, work: NodeWork, row: ResourceRecord, instance: Resource,
                        ctx: EngineResourceContext, first: Callable[[], Any],
                        ) -> tuple[Callable[[], Any], Callable[[Any], CheckResult]]:
        """The create's handle and check with Heat's ``action_retry_limit`` deletes and
        retries between (action_retries.py); each step's event written under our lock."""
        def record(action: Action, status: Status, reason: str) -> None:
            values: dict[str, Any] = {"physical_resource_id": instance.resource_id}
            pending = ctx.take_pending()
            if pending:
                values["resource_data"] = pending
            event = self.event(row, action, status, reason, instance.resource_id)
            if self._deps.store.update_resource_locked(
                    row.id, self._deps.engine_id, values, event) is None:
                raise LockLost()

        def token(retry: int) -> str:
            return idempotency_token(row.uuid, f"{Action.CREATE}#{retry}", work.traversal_id)

        def superseded() -> bool:
            latest = self._deps.store.get_stack(work.stack.id)
            return latest is not None and latest.current_traversal != work.traversal_id

        retries = CreateRetries(instance, first, limit=self._deps.options.action_retry_limit,
                                clock=self._deps.clock, record=record, token=token,
                                superseded=superseded)
        return retries.handle, retries.check

    def _retried_delete(self, instance: Resource, handler: Callable[[], Any],
                        ) -> tuple[Callable[[], Any], Callable[[Any], CheckResult]]:
        """The delete's handle and check, asked again while refused with a conflict
        (Heat's ``Resource.delete``; action_retries.py)."""
        retries = DeleteRetries(instance, handler, limit=self._deps.options.action_retry_limit,
                                clock=self._deps.clock)
        return retries.handle, retries.check

    def _persist_progress(self, row: ResourceRecord, instance: Resource,
                          ctx: EngineResourceContext) -> ResourceRecord:
        """What the plugin did so far, made durable before time passes; the row as
        written (``row`` when there was nothing to write), which the next check
        compares with, so a check that found nothing new writes nothing.

        Written under our lock, so an engine whose lock was taken over (it
        was paused past the life check) learns it here and stops: LockLost.
        """
        values: dict[str, Any] = {}
        pending = ctx.take_pending()
        if pending:
            values["resource_data"] = pending
        if instance.resource_id != row.physical_resource_id:
            values["physical_resource_id"] = instance.resource_id
        if not values:
            return row
        written = self._deps.store.update_resource_locked(row.id, self._deps.engine_id, values)
        if written is None:
            raise LockLost()
        return written

    def _guarded(self, row: ResourceRecord, action: Action, instance: Resource,
                 ctx: EngineResourceContext, step: Callable[[], Any],
                 ) -> tuple[Outcome | None, Any]:
        """Run ``step``; a cancel, a timeout or a plugin error settles the row FAILED.

        A database lost under the step (StoreUnavailable, from the plugin's
        context) is not the plugin's failure: it goes up, to be handed on.
        """
        try:
            return None, step()
        except (UpdateReplace, LockLost, StoreUnavailable):
            raise
        except Exception as exc:
            return self._failed(row, action, instance, ctx, exc), None

    def _failed(self, row: ResourceRecord, action: Action, instance: Resource,
                ctx: EngineResourceContext, exc: Exception) -> Outcome:
        def settle(reason: str) -> None:
            released, _ = self._release(row, action, Status.FAILED, reason,
                                        {"physical_resource_id": instance.resource_id},
                                        ctx=ctx)
            if released is None:  # taken over meanwhile: the new holder decides
                raise LockLost()

        if isinstance(exc, CancelOperation | ActionTimeout):
            _cancel(instance, action)
        if isinstance(exc, CancelOperation):
            settle(outcome.aborted(action, str(exc)))
            return Aborted(outcome.aborted(action))
        if isinstance(exc, ActionTimeout):
            settle(outcome.aborted(action, outcome.task_timed_out(
                action, heat_class_name(type(instance)), row.name, instance.resource_id,
                ctx.stack_name, ctx.stack_id)))
            return TimedOut()
        LOG.info("resource %s %s failed", row.name, action, exc_info=exc)
        reason = failure_text(exc, row.name)
        settle(reason)
        return Failed(outcome.resource_failed_reason(action, reason))

    def _ran_locally(self, work: NodeWork, instance: Resource, handle: Callable[[], Any],
                     check: Callable[[Any], CheckResult], cancelled: threading.Event) -> bool:
        """Run a ``local_only`` plugin's action before taking the lock; True if it worked.

        Anything else (a failure, a cancel, a replacement) answers False and
        the caller takes the locked path, which runs the action again and
        records its outcome as for any plugin: harmless, as a local action
        left nothing outside the database.
        """
        if not instance.local_only or cancelled.is_set():
            return False
        try:
            self._deps.runner.run(handle, check, deadline=stack_deadline(work.stack),
                                  cancelled=cancelled)
        except Exception:
            return False
        return True


def _cancel(instance: Resource, action: Action) -> None:
    """Heat's ``handle_<action>_cancel``: a plugin whose action was cancelled or timed
    out tidies up what it started (a deployment marks itself FAILED). Best effort."""
    canceller = getattr(instance, f"handle_{action.lower()}_cancel", None)
    if not callable(canceller):
        return
    try:
        canceller(None)
    except Exception:
        LOG.exception("Error cancelling resource %s", action)
