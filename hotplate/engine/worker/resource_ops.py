"""The resource operations of a node: create, update, replace, delete, purge.

Each takes the resource lock (a compare-and-swap on the row) for its whole
duration and records IN_PROGRESS and the outcome as events in the same
transactions. The row writes are ``RowBookkeeping``'s (row_bookkeeping.py);
plugins run through ``PluginRuns`` (plugin_runs.py), which honours cancel
requests and the stack's deadline and parks actions that wait on a child stack.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from hotplate.convergence import outcome
from hotplate.convergence.recovery import idempotency_token
from hotplate.convergence.restrictions import blocked_action
from hotplate.convergence.steps import Completed, Failed, Lost, Outcome, Replaced
from hotplate.convergence.update_diff import UpdateDecision, UpdateKind, decide_update
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.adopt import AdoptsItself, resource_entry
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.worker.breakpoints import Breakpoints
from hotplate.engine.worker.node_work import LockLost, NodeWork, Reporter, replace_reason
from hotplate.engine.worker.observed import observed_properties, observes
from hotplate.engine.worker.plugin_runs import PluginRuns
from hotplate.engine.worker.replacement_hooks import ReplacementHooks
from hotplate.engine.worker.resolve import required_ids
from hotplate.engine.worker.update_checks import refuse, restricted_actions
from hotplate.model.errors import UpdateReplace
from hotplate.model.ids import ResourceId
from hotplate.model.records import NewEvent, NewResource, ResourceRecord, StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Attempt, Resource

LOG = logging.getLogger(__name__)

ASKED_WHEN_FAILED = frozenset({Action.CREATE, Action.UPDATE, Action.ADOPT, Action.SUSPEND,
                               Action.RESUME, Action.SNAPSHOT, Action.ROLLBACK})
"""Failed actions after which an update asks the plugin whether to replace: a failed
CHECK is always replaced (Heat's always_replace_on_check_failed), a failed DELETE too."""

FAILED_KEPT = ("Update status to COMPLETE for FAILED resource neither update nor "
               "replace.")
"""Heat's reason for a FAILED row an update neither changed nor replaced."""


class ResourceOps(PluginRuns, ReplacementHooks):
    def __init__(self, deps: EngineDeps) -> None:
        super().__init__(deps)
        self.breakpoints = Breakpoints(deps)

    # -- operations ------------------------------------------------------------------
    def no_op(self, work: NodeWork) -> Outcome:
        """Already done (a re-delivery, or unchanged): report again, change nothing."""
        row = work.row
        if not work.is_update:
            return Completed(row)
        cls = self._row_class(row)
        instance = cls(row.name, row.properties_data or {}, self._context(row, work.stack),
                       resource_id=row.physical_resource_id)
        return Completed(row, node_data=self._node_data(instance, row, work, row.action,
                                                           row.status))

    def resume_interrupted(self, work: NodeWork, cancelled: threading.Event,
                           reporter: Reporter) -> Outcome:
        """Go on with the action a dead engine was running on the row (its lock was
        taken over: engine/worker/recovery.py): the same action, told it is a retry."""
        action = work.row.action
        if action is Action.DELETE:
            return self.delete(work, cancelled, reporter, resuming=True)
        if action is Action.UPDATE:
            return self.update(work, cancelled, reporter, resuming=True)
        return self.create(work, cancelled, reporter, resuming=True)

    def _attempt(self, work: NodeWork, instance: Resource, action: Action,
                 resuming: bool) -> None:
        instance.attempt = Attempt(idempotency_token(work.row.uuid, action, work.traversal_id),
                                   retry=resuming)

    def create(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter, *, resuming: bool = False) -> Outcome:
        row = work.row
        values = {"current_template_id": work.template_id,
                  "requires": required_ids(work.input_data)}
        try:
            defn, cls = self._definition(work)
            props = self._waiting_properties(work, defn, cls, cancelled)
            metadata = self._metadata(work, defn)
        except Exception as exc:
            return self._fail_before_running(work, row, Action.CREATE, values, exc)
        values |= {"properties_data": props, "metadata": metadata}
        if work.stack.action is Action.ADOPT:
            return self._adopt(work, cls, values, props, reporter, cancelled)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, props, ctx)
        self._attempt(work, instance, Action.CREATE, resuming)
        if self._ran_locally(work, instance, instance.handle_create,
                             instance.check_create_complete, cancelled):
            return self._complete(work, row, instance, ctx, Action.CREATE, props, reporter,
                                  cancelled, values, local=True)
        locked = self._acquire(row, values, Action.CREATE, resuming=resuming)
        ctx = self._context(locked, work.stack)
        made = row.physical_resource_id if resuming else None
        instance = cls(row.name, props, ctx, resource_id=made)
        self._attempt(work, instance, Action.CREATE, resuming)
        def finish(cancelled: threading.Event, reporter: Reporter) -> Outcome:
            return self._complete(work, locked, instance, ctx, Action.CREATE, props, reporter,
                                  cancelled)

        # Taken over after handle_create recorded a physical id: only wait for it.
        handle, check = self._retried_create(
            work, locked, instance, ctx,
            (lambda: instance.resume_data("CREATE")) if made is not None
            else instance.handle_create)
        failed = self._run(work, locked, Action.CREATE, handle, check, cancelled, instance,
                           ctx, finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def _adopt(self, work: NodeWork, cls: type[Resource], values: dict[str, Any],
               props: Mapping[str, Any], reporter: Reporter,
               cancelled: threading.Event) -> Outcome:
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
            return Failed(outcome.resource_failed_reason(Action.ADOPT, reason))
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
                         reporter: Reporter, cancelled: threading.Event) -> Outcome:
        """Run the type's own adopt (``handle_adopt`` / ``check_adopt_complete``) as a
        create runs; an entry the document lacks is empty, so what it should have
        held fails in the child ("Resource ID was not provided.")."""
        locked = self._acquire(work.row, values, Action.ADOPT)
        ctx = self._context(locked, work.stack)
        instance = cls(work.row.name, props, ctx)
        assert isinstance(instance, AdoptsItself)
        adopts = instance

        def finish(cancelled: threading.Event, reporter: Reporter) -> Outcome:
            return self._complete(work, locked, instance, ctx, Action.ADOPT, props, reporter,
                                  cancelled)

        failed = self._run(work, locked, Action.ADOPT, lambda: adopts.handle_adopt(entry),
                           adopts.check_adopt_complete, cancelled, instance, ctx, finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def _complete(self, work: NodeWork, locked: ResourceRecord, instance: Resource,
                  ctx: EngineResourceContext, action: Action, props: Mapping[str, Any],
                  reporter: Reporter, cancelled: threading.Event,
                  extra: Mapping[str, Any] | None = None, *, local: bool = False) -> Outcome:
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
                local: bool) -> Outcome:
        """Settle the row COMPLETE; report onward with it, or after a post-action hook.

        A post hook holds the dependants back, not the resource: the row is
        COMPLETE (and unlocked) while it waits, as in Heat; the node is parked
        (Paused) and reports once the hook is cleared (breakpoints.py).
        """
        post = self.breakpoints.hook_set(work.stack, work.template_id, row.name, action,
                                         "post")
        reports = [] if post else reporter(row, node_data)
        if local:
            done, synced = self._settle(row, action, values, ctx, reports)
        else:
            done, synced = self._release(row, action, Status.COMPLETE, outcome.STATE_CHANGED,
                                         values, ctx=ctx, reports=reports)
        if done is None:  # taken over meanwhile (fenced): the new holder decides
            return Lost()
        if post:
            def then(_: threading.Event) -> Outcome:
                return Completed(done, node_data=node_data)

            paused = self.breakpoints.pause(work, done, action, "post", cancelled, then)
            return paused if paused is not None else then(cancelled)
        return Completed(done, node_data=node_data, synced=synced, reports=reports)

    def _resolved_before(self, row: ResourceRecord, work: NodeWork, cls: type[Resource],
                         old_props: dict[str, Any]) -> dict[str, Any]:
        """The stored properties with their names resolved to ids, as the new ones are: a
        row stored as Heat keeps them (imported from a Heat database) still names its
        image or network as written. Asked only when the two differ, so a row stored
        resolved costs nothing more; a name the cloud no longer knows stays as it is."""
        try:
            return cls.resolve_properties(old_props, self._context(row, work.stack).cloud)
        except Exception:
            return old_props

    def update(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter, *, resuming: bool = False) -> Outcome:
        row = work.row
        new_requires = required_ids(work.input_data)
        try:
            defn, cls = self._definition(work)
            new_props = self._waiting_properties(work, defn, cls, cancelled)
            metadata = self._metadata(work, defn)
        except Exception as exc:
            values = {"current_template_id": work.template_id}
            return self._fail_before_running(work, row, Action.UPDATE, values, exc)
        old_props = row.properties_data or {}
        if not resuming and observes(self._deps, work, cls):  # observed.py
            seen = observed_properties(cls(row.name, old_props, self._context(row, work.stack),
                                           resource_id=row.physical_resource_id), old_props)
            if seen is None:  # gone from the cloud, or never made: a new one
                return self.replace(work)
            old_props = seen
        kept = {k: v for k, v in (row.metadata or {}).items() if k in cls.managed_metadata}
        metadata = {**metadata, **kept}  # the plugin's own keys survive the template's
        allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
        decision = decide_update(old_props, new_props, allowed,
                                 metadata_changed=metadata != (row.metadata or {}))
        if decision.kind is not UpdateKind.NO_CHANGE and cls.resolves_properties():
            resolved = self._resolved_before(row, work, cls, old_props)
            if resolved != old_props:
                old_props = resolved
                decision = decide_update(old_props, new_props, allowed,
                                         metadata_changed=metadata != (row.metadata or {}))
        if decision.kind is UpdateKind.IN_PLACE and cls.needs_replacement(old_props, new_props):
            decision = UpdateDecision(UpdateKind.REPLACE, decision.prop_diff)
        if decision.kind is UpdateKind.NO_CHANGE and (
                resuming or (cls.always_updates and row.physical_resource_id is not None)):
            # Resuming, the row says UPDATE_IN_PROGRESS: it must go through an update.
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
            return self._unchanged(work, cls, old_props, defn.type, new_requires, reporter)
        instance = cls(row.name, old_props, context, resource_id=row.physical_resource_id)
        self._attempt(work, instance, Action.UPDATE, resuming)
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
                                     "requires": both}, Action.UPDATE, resuming=resuming)
        context = self._context(row, work.stack)
        instance = cls(row.name, old_props, context, resource_id=row.physical_resource_id)
        self._attempt(work, instance, Action.UPDATE, resuming)
        def finish(cancelled: threading.Event, reporter: Reporter) -> Outcome:
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
                return Lost()
            return self.replace(NodeWork(released, work.stack, work.traversal_id,
                                         work.is_update, work.input_data))
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def _unchanged(self, work: NodeWork, cls: type[Resource], props: Mapping[str, Any],
                   type_name: str, requires: tuple[ResourceId, ...],
                   reporter: Reporter) -> Outcome:
        """Nothing to change but the row's template, dependencies and type: written
        with the reports onward in one transaction, if the row is still as read (no
        event, as Heat records none for an unchanged resource; a FAILED row its plugin
        kept is settled COMPLETE, with Heat's event)."""
        row = work.row
        instance = cls(row.name, props, self._context(row, work.stack),
                       resource_id=row.physical_resource_id)
        node_data = self._node_data(instance, row, work, row.action, Status.COMPLETE)
        reports = reporter(row, node_data)
        values: dict[str, Any] = {"current_template_id": work.template_id,
                                  "requires": requires, "resource_type": type_name}
        events: list[NewEvent] = []
        if row.status is Status.FAILED:  # its plugin found it fine (needs_replace_failed)
            values |= {"status": Status.COMPLETE, "status_reason": FAILED_KEPT}
            events.append(self.event(row, row.action, Status.COMPLETE, FAILED_KEPT))
        stored, synced = self._deps.store.settle_resource(
            row.id, row.atomic_key, values, events, reports)
        if stored is None:
            raise LockLost()
        return Completed(stored, node_data=node_data, synced=synced, reports=reports)

    def replaces_failed(self, row: ResourceRecord, stack: StackRecord) -> bool:
        """The row's plugin's ``needs_replace_failed``, after a failed action Heat asks it
        for (``ASKED_WHEN_FAILED``): only types that look at their
        cloud object override it, so others cost nothing. A failure to ask is a yes,
        as a replacement is what Heat's default would do."""
        if row.action not in ASKED_WHEN_FAILED:
            return True
        try:
            cls = self._row_class(row)
            if cls.needs_replace_failed is Resource.needs_replace_failed:
                return True
            instance = cls(row.name, row.properties_data or {}, self._context(row, stack),
                           resource_id=row.physical_resource_id)
            return bool(instance.needs_replace_failed())
        except Exception:
            LOG.warning("resource %s: could not tell whether its failed %s needs a "
                        "replacement; replacing it", row.id, row.resource_type, exc_info=True)
            return True

    def replace(self, work: NodeWork, reason: str | None = None) -> Outcome:
        """Create a new row for this resource; the old one is cleaned up later.

        ``reason``: the update found the change needs a new resource. As in
        Heat, the old row then records that update, UPDATE_IN_PROGRESS and
        UPDATE_COMPLETE with the reason, written with the new row. Without
        it (a failed or deleted row, a new type) the old row is left as it is.
        First the old row's plugin may hand over what the new one needs
        (``prepare_for_replace``: replacement_hooks.py).
        """
        prepared = self.prepare_replaced(work)
        if isinstance(prepared, Failed):
            return prepared
        row = prepared
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
        self._deps.cast_check_resource(new_id, work.traversal_id, True, inputs=work.input_data)
        return Replaced(new_id)

    def delete(self, work: NodeWork, cancelled: threading.Event,
               reporter: Reporter, *, resuming: bool = False) -> Outcome:
        row = work.row
        policy = self._deletion_policy(row)
        retain = policy == "Retain"
        cls = self._row_class(row)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, row.properties_data or {}, ctx,
                       resource_id=row.physical_resource_id)
        self._attempt(work, instance, Action.DELETE, resuming)
        if retain or self._ran_locally(work, instance, _delete_handler(instance, row, policy),
                                       instance.check_delete_complete, cancelled):
            return self._finish(work, row, Action.DELETE, {}, ctx, reporter, None, cancelled,
                                local=True)
        locked = self._acquire(row, {}, Action.DELETE, resuming=resuming)
        ctx = self._context(row, work.stack)
        instance = cls(row.name, row.properties_data or {}, ctx,
                       resource_id=row.physical_resource_id)
        self._attempt(work, instance, Action.DELETE, resuming)
        def finish(cancelled: threading.Event, reporter: Reporter) -> Outcome:
            return self._finish(work, locked, Action.DELETE, {}, ctx, reporter, None,
                                cancelled, local=False)

        handle, check = self._retried_delete(instance, _delete_handler(instance, row, policy))
        failed = self._run(work, locked, Action.DELETE, handle, check, cancelled, instance, ctx,
                           finish)
        if failed is not None:
            return failed
        return finish(cancelled, reporter)

    def purge(self, work: NodeWork) -> Outcome:
        """A row that was never created: drop it, nothing physical to delete."""
        self._deps.store.delete_resource(work.row.id)
        return Completed(work.row)


def _delete_handler(instance: Resource, row: ResourceRecord, policy: str) -> Any:
    """``handle_delete``, or with ``deletion_policy: Snapshot`` the plugin's
    ``handle_snapshot_delete((action, status))`` where it has one (Heat's hook: a server
    saves an image first); a type without it is deleted."""
    snapshot = getattr(instance, "handle_snapshot_delete", None)
    if policy != "Snapshot" or not callable(snapshot):
        return instance.handle_delete
    state = (str(row.action), str(row.status))
    return lambda: snapshot(state)
