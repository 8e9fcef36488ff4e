"""The resource operations of a node: create, update, replace, delete, purge.

Each takes the resource lock (a compare-and-swap on the row) for its whole
duration and records IN_PROGRESS and the outcome as events in the same
transactions. Plugins run through the ActionRunner, which honours cancel
requests and the stack's deadline.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from hotplate.convergence import outcome
from hotplate.convergence.node_plan import stack_deadline
from hotplate.convergence.restrictions import blocked_action
from hotplate.convergence.update_diff import UpdateDecision, UpdateKind, decide_update
from hotplate.engine.adopt import AdoptsItself, resource_entry
from hotplate.engine.breakpoints import Breakpoints
from hotplate.engine.cache import pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.node_work import (
    LockLost,
    NodeWork,
    OpResult,
    Reporter,
    failure_text,
    replace_reason,
)
from hotplate.engine.parking import ParkedAction
from hotplate.engine.resolve import InputsContext, required_ids
from hotplate.engine.resource_context import EngineResourceContext
from hotplate.engine.row_plugins import row_class, row_context
from hotplate.engine.runner import ActionTimeout
from hotplate.engine.update_checks import refuse, restricted_actions
from hotplate.model.errors import CancelOperation, UpdateReplace
from hotplate.model.nodes import NodeData, path_key
from hotplate.model.records import (
    NewEvent,
    NewResource,
    ResourceRecord,
    StackRecord,
    SyncReport,
    SyncResult,
)
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource

LOG = logging.getLogger(__name__)


def _path_attributes(instance: Resource, template: Any) -> dict[str, Any]:
    """The attributes read with a literal path, for types that resolve paths themselves."""
    found: dict[str, Any] = {}
    for attribute, path in template.attribute_paths_referenced(instance.name):
        try:
            found[path_key(attribute, path)] = instance.get_attribute_path(attribute, path)
        except Exception as exc:  # a bad attribute fails its reader, not its owner
            LOG.info("resource %s: attribute %s%s unavailable: %s", instance.name, attribute,
                     list(path), exc)
            found[path_key(attribute, path)] = None
    return found


class ResourceOps:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self.breakpoints = Breakpoints(deps)

    # -- helpers ---------------------------------------------------------------------
    def event(self, row: ResourceRecord, action: Action | str, status: Status | str,
              reason: str, physical_id: str | None = None) -> NewEvent:
        return resource_event(self._deps, row, action, status, reason, physical_id)

    def _context(self, row: ResourceRecord, stack: StackRecord) -> EngineResourceContext:
        return row_context(self._deps, row, stack)

    def _inputs(self, work: NodeWork) -> InputsContext:
        deps = self._deps
        params = deps.caches.parameters(work.template_id, work.stack.id,
                                        pseudo_parameters(work.stack))
        return InputsContext(params, work.input_data)

    def _node_data(self, instance: Resource, row: ResourceRecord, work: NodeWork,
                   action: Action, status: Status) -> dict[str, Any]:
        template = self._deps.caches.for_stack(work.template_id, work.stack)
        attrs: dict[str, Any] = {}
        for name in sorted(template.attributes_referenced().get(row.name, frozenset())):
            try:
                attrs[name] = instance.get_attribute(name)
            except Exception as exc:  # a bad attribute fails its reader, not its owner
                LOG.info("resource %s: attribute %s unavailable: %s", row.name, name, exc)
                attrs[name] = None
        if instance.path_attributes:
            attrs.update(_path_attributes(instance, template))
        return NodeData(
            resource_id=row.id, name=row.name, reference_id=instance.get_reference_id(),
            attrs=attrs, action=str(action), status=str(status), uuid=row.uuid,
        ).to_json()

    def _acquire(self, row: ResourceRecord, values: Mapping[str, Any], action: Action
                 ) -> ResourceRecord:
        event = self.event(row, action, Status.IN_PROGRESS, outcome.STATE_CHANGED)
        acquired = self._deps.store.acquire_resource(
            row.id, self._deps.engine_id, row.atomic_key,
            {"action": action, "status": Status.IN_PROGRESS,
             "status_reason": outcome.STATE_CHANGED, **values},
            event,
        )
        if acquired is None:
            raise LockLost()
        return acquired

    def _release(self, row: ResourceRecord, action: Action, status: Status, reason: str,
                 values: Mapping[str, Any] | None = None, *,
                 ctx: EngineResourceContext | None = None,
                 reports: list[SyncReport] | None = None,
                 ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Settle the row and drop the lock; buffered plugin data and reports go with it."""
        values = dict(values or {})
        if ctx is not None:
            pending = ctx.take_pending()
            if pending:
                values["resource_data"] = pending
        physical = values.get("physical_resource_id", row.physical_resource_id)
        event = self.event(row, action, status, reason, physical)
        return self._deps.store.release_and_sync(
            row.id, self._deps.engine_id,
            {"action": action, "status": status, "status_reason": reason, **values},
            event, reports or [],
        )

    def _run(self, work: NodeWork, row: ResourceRecord, action: Action, handle: Any,
             check: Any, cancelled: threading.Event, instance: Resource,
             ctx: EngineResourceContext,
             finish: Callable[[threading.Event, Reporter], OpResult] | None = None,
             ) -> OpResult | None:
        """Run a plugin action; on failure settle the row FAILED and say why.

        With ``finish`` and a plugin that parks (``parking.py``), an action
        that is not done after its first check is parked: the answer is then
        an OpResult with no row (nothing to report yet), and ``finish`` runs
        when a later check says done.
        """
        parked = self._deps.parked
        if finish is not None and parked is not None and instance.parks_while_waiting:
            def first() -> bool | None:
                data = self._deps.runner.start(handle, deadline=stack_deadline(work.stack),
                                               cancelled=cancelled)
                if check(data):
                    return None
                self._persist_progress(row, instance, ctx)
                parked.park(ParkedAction(work, row, action, instance, ctx, check, data,
                                         finish, wake_key=instance.wake_key()),
                            hint=instance.next_check_after(data))
                return True
            failed, was_parked = self._guarded(row, action, instance, ctx, first)
            return failed or (OpResult() if was_parked else None)

        def run() -> None:
            with self._deps.slots.released():
                self._deps.runner.run(handle, check, deadline=stack_deadline(work.stack),
                                      cancelled=cancelled,
                                      before_wait=lambda: self._persist_progress(row, instance,
                                                                                 ctx))
        return self._guarded(row, action, instance, ctx, run)[0]

    def resume(self, parked: ParkedAction, cancelled: threading.Event,
               reporter: Reporter) -> OpResult:
        """Check a parked action again: finish it, fail it, or park it once more."""
        work = parked.work

        def again() -> bool:
            self._deps.runner.checkpoint(stack_deadline(work.stack), cancelled)
            if not parked.check(parked.data):
                self._persist_progress(parked.row, parked.instance, parked.ctx)
                assert self._deps.parked is not None
                self._deps.parked.park(parked, again=True,
                                       hint=parked.instance.next_check_after(parked.data))
                return True
            return False
        try:
            failed, still_waiting = self._guarded(parked.row, parked.action, parked.instance,
                                                  parked.ctx, again)
        except UpdateReplace as exc:  # only a first check may ask for a replacement
            failed, still_waiting = self._failed(parked.row, parked.action, parked.instance,
                                                 parked.ctx, exc), None
        if failed is not None:
            return failed
        if still_waiting:
            return OpResult()
        return parked.finish(cancelled, reporter)

    def _persist_progress(self, row: ResourceRecord, instance: Resource,
                          ctx: EngineResourceContext) -> None:
        """What the plugin did so far, made durable before time passes."""
        ctx.flush()
        if instance.resource_id != row.physical_resource_id:
            self._deps.store.update_resource_locked(
                row.id, self._deps.engine_id, {"physical_resource_id": instance.resource_id})

    def _guarded(self, row: ResourceRecord, action: Action, instance: Resource,
                 ctx: EngineResourceContext, step: Callable[[], Any],
                 ) -> tuple[OpResult | None, Any]:
        """Run ``step``; a cancel, a timeout or a plugin error settles the row FAILED."""
        try:
            return None, step()
        except UpdateReplace:
            raise
        except Exception as exc:
            return self._failed(row, action, instance, ctx, exc), None

    def _failed(self, row: ResourceRecord, action: Action, instance: Resource,
                ctx: EngineResourceContext, exc: Exception) -> OpResult:
        def settle(reason: str) -> None:
            self._release(row, action, Status.FAILED, reason,
                          {"physical_resource_id": instance.resource_id}, ctx=ctx)

        if isinstance(exc, CancelOperation):
            settle(outcome.aborted(action, str(exc)))
            return OpResult(failure=outcome.aborted(action), cancelled=True)
        if isinstance(exc, ActionTimeout):
            settle(outcome.aborted(action, "Timed out"))
            return OpResult(failure=outcome.TIMED_OUT)
        LOG.info("resource %s %s failed", row.name, action, exc_info=exc)
        reason = failure_text(exc, row.name)
        settle(reason)
        return OpResult(failure=outcome.resource_failed_reason(action, reason))

    def _fail_before_running(self, work: NodeWork, row: ResourceRecord, action: Action,
                             values: Mapping[str, Any], exc: Exception) -> OpResult:
        locked = self._acquire(row, values, action)
        reason = failure_text(exc, row.name)
        self._release(locked, action, Status.FAILED, reason)
        return OpResult(failure=outcome.resource_failed_reason(action, reason))

    def _definition(self, work: NodeWork) -> tuple[Any, type[Resource]]:
        template = self._deps.caches.for_stack(work.template_id, work.stack)
        defn = template.resources[work.row.name]
        loaded = self._deps.caches.template(work.template_id)
        return defn, self._deps.types.for_resource(loaded.env, work.row.name, defn.type,
                                                   loaded.files)

    def _properties(self, work: NodeWork, defn: Any, cls: type[Resource]) -> dict[str, Any]:
        raw = defn.resolve_properties(self._inputs(work))
        return cls.validate(raw, ("resources", work.row.name, "properties"))

    def _metadata(self, work: NodeWork, defn: Any) -> dict[str, Any]:
        metadata: dict[str, Any] = defn.resolve_metadata(self._inputs(work))
        return metadata

    # -- operations ------------------------------------------------------------------
    def no_op(self, work: NodeWork) -> OpResult:
        """Already done (a re-delivery, or unchanged): report again, change nothing."""
        row = work.row
        if not work.is_update:
            return OpResult(row=row)
        cls = self._row_class(row)
        instance = cls(row.name, row.properties_data or {}, self._context(row, work.stack),
                       resource_id=row.physical_resource_id)
        return OpResult(row=row, node_data=self._node_data(instance, row, work, row.action,
                                                           row.status))

    def create(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter) -> OpResult:
        row = work.row
        values = {"current_template_id": work.template_id,
                  "requires": required_ids(work.input_data)}
        try:
            defn, cls = self._definition(work)
            props = self._properties(work, defn, cls)
            metadata = self._metadata(work, defn)
        except Exception as exc:
            return self._fail_before_running(work, row, Action.CREATE, values, exc)
        values |= {"properties_data": props, "metadata": metadata}
        if work.stack.action is Action.ADOPT:
            return self._adopt(work, cls, values, props, reporter, cancelled)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, props, ctx)
        if self._ran_locally(work, instance, instance.handle_create,
                             instance.check_create_complete, cancelled):
            return self._complete(work, row, instance, ctx, Action.CREATE, props, reporter,
                                  cancelled, values, local=True)
        locked = self._acquire(row, values, Action.CREATE)
        ctx = self._context(locked, work.stack)
        instance = cls(row.name, props, ctx)
        def finish(cancelled: threading.Event, reporter: Reporter) -> OpResult:
            return self._complete(work, locked, instance, ctx, Action.CREATE, props, reporter,
                                  cancelled)

        failed = self._run(work, locked, Action.CREATE, instance.handle_create,
                           instance.check_create_complete, cancelled, instance, ctx, finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def _adopt(self, work: NodeWork, cls: type[Resource], values: dict[str, Any],
               props: Mapping[str, Any], reporter: Reporter,
               cancelled: threading.Event) -> OpResult:
        """Take over an existing resource as the adopt document describes it (adopt.py).

        A type with a ``handle_adopt(entry)`` hook (a stack-backed one) adopts
        through it; any other takes its id, data and metadata from the entry.
        """
        row = work.row
        entry = resource_entry(self._deps.caches.template(work.template_id).files, row.name)
        if issubclass(cls, AdoptsItself):
            return self._adopt_by_plugin(work, cls, values, props, entry or {}, reporter,
                                         cancelled)
        locked = self._acquire(row, values, Action.ADOPT)
        physical = entry.get("resource_id") if entry is not None else None
        if not physical:
            reason = f"Exception: resources.{row.name}: Resource ID was not provided."
            self._release(locked, Action.ADOPT, Status.FAILED, reason)
            return OpResult(failure=outcome.resource_failed_reason(Action.ADOPT, reason))
        ctx = self._context(locked, work.stack)
        data = entry.get("resource_data") if entry is not None else None
        for key, value in (data.items() if isinstance(data, Mapping) else ()):
            ctx.data_set(str(key), value if isinstance(value, str) else json.dumps(value))
        metadata = entry.get("metadata") if entry is not None else None
        extra = dict(values)
        if isinstance(metadata, Mapping):
            extra["metadata"] = dict(metadata)
        instance = cls(row.name, props, ctx, resource_id=str(physical))
        return self._complete(work, locked, instance, ctx, Action.ADOPT, props, reporter,
                              cancelled, extra)

    def _adopt_by_plugin(self, work: NodeWork, cls: type[Resource], values: dict[str, Any],
                         props: Mapping[str, Any], entry: Mapping[str, Any],
                         reporter: Reporter, cancelled: threading.Event) -> OpResult:
        """Run the type's own adopt (``handle_adopt`` / ``check_adopt_complete``) as a
        create runs; an entry the document lacks is empty, so what it should have
        held fails in the child ("Resource ID was not provided.")."""
        locked = self._acquire(work.row, values, Action.ADOPT)
        ctx = self._context(locked, work.stack)
        instance = cls(work.row.name, props, ctx)
        assert isinstance(instance, AdoptsItself)
        adopts = instance

        def finish(cancelled: threading.Event, reporter: Reporter) -> OpResult:
            return self._complete(work, locked, instance, ctx, Action.ADOPT, props, reporter,
                                  cancelled)

        failed = self._run(work, locked, Action.ADOPT, lambda: adopts.handle_adopt(entry),
                           adopts.check_adopt_complete, cancelled, instance, ctx, finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def _ran_locally(self, work: NodeWork, instance: Resource, handle: Callable[[], Any],
                     check: Callable[[Any], bool], cancelled: threading.Event) -> bool:
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

    def _complete(self, work: NodeWork, locked: ResourceRecord, instance: Resource,
                  ctx: EngineResourceContext, action: Action, props: Mapping[str, Any],
                  reporter: Reporter, cancelled: threading.Event,
                  extra: Mapping[str, Any] | None = None, *, local: bool = False) -> OpResult:
        """Record the action COMPLETE and report onward, in one transaction.

        ``local``: ``locked`` is the row as read, not yet locked (see
        ``_ran_locally``); the lock is taken and dropped in that transaction.
        """
        node_data = self._node_data(instance, locked, work, action, Status.COMPLETE)
        values: dict[str, Any] = {"physical_resource_id": instance.resource_id,
                                  "properties_data": dict(props), **(extra or {})}
        if node_data["attrs"]:
            values["attr_data"] = node_data["attrs"]
        return self._finish(work, locked, action, values, ctx, reporter, node_data, cancelled,
                            local=local)

    def _finish(self, work: NodeWork, row: ResourceRecord, action: Action,
                values: Mapping[str, Any], ctx: EngineResourceContext, reporter: Reporter,
                node_data: Mapping[str, Any] | None, cancelled: threading.Event, *,
                local: bool) -> OpResult:
        """Settle the row COMPLETE; report onward with it, or after a post-action hook.

        A post hook holds the dependants back, not the resource: the row is
        COMPLETE (and unlocked) while it waits, as in Heat.
        """
        post = self.breakpoints.hook_set(work.stack, work.template_id, row.name, action,
                                         "post")
        reports = [] if post else reporter(row, node_data)
        if local:
            done, synced = self._settle(row, action, values, ctx, reports)
        else:
            done, synced = self._release(row, action, Status.COMPLETE, outcome.STATE_CHANGED,
                                         values, ctx=ctx, reports=reports)
        if post and done is not None:
            self.breakpoints.hold(work.stack, work.template_id, done, action, "post",
                                  cancelled)
            return OpResult(row=done, node_data=node_data)
        return OpResult(row=done, node_data=node_data, synced=synced, reports=reports)

    def _settle(self, row: ResourceRecord, action: Action, values: Mapping[str, Any],
                ctx: EngineResourceContext, reports: list[SyncReport],
                ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Lock, both events, the outcome, release and reports: one commit."""
        values = {"action": action, "status": Status.COMPLETE,
                  "status_reason": outcome.STATE_CHANGED, **values}
        pending = ctx.take_pending()
        if pending:
            values["resource_data"] = pending
        physical = values.get("physical_resource_id", row.physical_resource_id)
        events = [self.event(row, action, Status.IN_PROGRESS, outcome.STATE_CHANGED),
                  self.event(row, action, Status.COMPLETE, outcome.STATE_CHANGED, physical)]
        done, synced = self._deps.store.settle_resource(row.id, row.atomic_key, values,
                                                        events, reports)
        if done is None:
            raise LockLost()
        return done, synced

    def update(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter) -> OpResult:
        row = work.row
        new_requires = required_ids(work.input_data)
        try:
            defn, cls = self._definition(work)
            new_props = self._properties(work, defn, cls)
            metadata = self._metadata(work, defn)
        except Exception as exc:
            values = {"current_template_id": work.template_id}
            return self._fail_before_running(work, row, Action.UPDATE, values, exc)
        old_props = row.properties_data or {}
        kept = {k: v for k, v in (row.metadata or {}).items() if k in cls.managed_metadata}
        metadata = {**metadata, **kept}  # the plugin's own keys survive the template's
        allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
        decision = decide_update(old_props, new_props, allowed,
                                 metadata_changed=metadata != (row.metadata or {}))
        if decision.kind is UpdateKind.IN_PLACE and cls.needs_replacement(old_props, new_props):
            decision = UpdateDecision(UpdateKind.REPLACE, decision.prop_diff)
        if (decision.kind is UpdateKind.NO_CHANGE and cls.always_updates
                and row.physical_resource_id is not None):
            decision = UpdateDecision(UpdateKind.IN_PLACE, {})
        if decision.kind is not UpdateKind.NO_CHANGE:
            try:
                cls.check_immutable(old_props, new_props, name=row.name, type_name=defn.type)
            except Exception as exc:
                values = {"current_template_id": work.template_id}
                return self._fail_before_running(work, row, Action.UPDATE, values, exc)
            blocked = blocked_action(decision.kind, restricted_actions(
                self._deps, work.template_id, row.name))
            if blocked is not None:
                return refuse(self._deps, work, blocked)
        if decision.kind is UpdateKind.REPLACE:
            return self.replace(work, replace_reason(cls, row, work.stack, old_props, new_props))
        context = self._context(row, work.stack)
        if decision.kind is UpdateKind.NO_CHANGE:
            stored = self._deps.store.update_resource_if_unlocked(
                row.id, row.atomic_key,
                {"current_template_id": work.template_id, "requires": new_requires,
                 "resource_type": defn.type},
            )
            if stored is None:
                raise LockLost()
            instance = cls(row.name, old_props, context, resource_id=row.physical_resource_id)
            return OpResult(row=stored, node_data=self._node_data(
                instance, stored, work, stored.action, stored.status))
        instance = cls(row.name, old_props, context, resource_id=row.physical_resource_id)
        done = {"current_template_id": work.template_id, "requires": new_requires,
                "metadata": metadata, "resource_type": defn.type}
        if self._ran_locally(work, instance,
                             lambda: instance.handle_update(new_props, decision.prop_diff),
                             instance.check_update_complete, cancelled):
            instance.properties = dict(new_props)
            return self._complete(work, row, instance, context, Action.UPDATE, new_props,
                                  reporter, cancelled, done, local=True)
        both = tuple(sorted(set(row.requires) | set(new_requires), reverse=True))
        locked = self._acquire(row, {"current_template_id": work.template_id,
                                     "requires": both}, Action.UPDATE)
        context = self._context(row, work.stack)
        instance = cls(row.name, old_props, context, resource_id=row.physical_resource_id)
        def finish(cancelled: threading.Event, reporter: Reporter) -> OpResult:
            instance.properties = dict(new_props)
            return self._complete(work, locked, instance, context, Action.UPDATE, new_props,
                                  reporter, cancelled, done)

        try:
            failed = self._run(
                work, locked, Action.UPDATE,
                lambda: instance.handle_update(new_props, decision.prop_diff),
                instance.check_update_complete, cancelled, instance, context, finish,
            )
        except UpdateReplace as exc:
            released, _ = self._release(
                locked, Action.UPDATE, Status.COMPLETE, str(exc),
                {"current_template_id": row.current_template_id, "requires": row.requires},
                ctx=context,
            )
            if released is None:
                return OpResult()
            return self.replace(NodeWork(released, work.stack, work.traversal_id,
                                         work.is_update, work.input_data))
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def replace(self, work: NodeWork, reason: str | None = None) -> OpResult:
        """Create a new row for this resource; the old one is cleaned up later.

        ``reason``: the update found the change needs a new resource. As in
        Heat, the old row then records that update, UPDATE_IN_PROGRESS and
        UPDATE_COMPLETE with the reason, written with the new row. Without
        it (a failed or deleted row, a new type) the old row is left as it is.
        """
        row = work.row
        settled: dict[str, Any] = {}
        events: list[NewEvent] = []
        if reason is not None:
            settled = {"action": Action.UPDATE, "status": Status.COMPLETE,
                       "status_reason": reason}
            events = [self.event(row, Action.UPDATE, Status.IN_PROGRESS, outcome.STATE_CHANGED),
                      self.event(row, Action.UPDATE, Status.COMPLETE, reason)]
        template = self._deps.caches.for_stack(work.template_id, work.stack)
        new = NewResource(
            stack_id=row.stack_id, name=row.name,
            resource_type=template.resources[row.name].type,
            uuid=self._deps.ids.new_uuid(), current_template_id=work.template_id,
            requires=required_ids(work.input_data), replaces=row.id,
            root_stack_id=row.root_stack_id,
        )
        new_id = self._deps.store.make_replacement(
            row.id, new, expected_engine_id=None, expected_atomic_key=row.atomic_key,
            old_values=settled, events=events,
        )
        if new_id is None:
            raise LockLost()
        LOG.info("replacing resource %s (%s) with %s", row.name, row.id, new_id)
        self._deps.cast_check_resource(new_id, work.traversal_id, work.input_data, True)
        return OpResult(replaced_by=new_id)

    def delete(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter) -> OpResult:
        row = work.row
        retain = self._deletion_policy(row) == "Retain"
        cls = self._row_class(row)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, row.properties_data or {}, ctx,
                       resource_id=row.physical_resource_id)
        if retain or self._ran_locally(work, instance, instance.handle_delete,
                                       instance.check_delete_complete, cancelled):
            return self._finish(work, row, Action.DELETE, {}, ctx, reporter, None, cancelled,
                                local=True)
        locked = self._acquire(row, {}, Action.DELETE)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, row.properties_data or {}, ctx,
                       resource_id=row.physical_resource_id)
        def finish(cancelled: threading.Event, reporter: Reporter) -> OpResult:
            return self._finish(work, locked, Action.DELETE, {}, ctx, reporter, None,
                                cancelled, local=False)

        failed = self._run(work, locked, Action.DELETE, instance.handle_delete,
                           instance.check_delete_complete, cancelled, instance, ctx, finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def purge(self, work: NodeWork) -> OpResult:
        """A row that was never created: drop it, nothing physical to delete."""
        self._deps.store.delete_resource(work.row.id)
        return OpResult(row=work.row)

    def _row_class(self, row: ResourceRecord) -> type[Resource]:
        return row_class(self._deps, row)

    def _deletion_policy(self, row: ResourceRecord) -> str:
        if row.current_template_id is None:
            return "Delete"
        try:
            template = self._deps.caches.template(row.current_template_id).template
        except Exception:
            return "Delete"
        defn = template.resources.get(row.name)
        return defn.deletion_policy if defn is not None else "Delete"
