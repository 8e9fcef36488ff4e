"""What every operation of a node does with its row: events, lock, release, settle.

The shared ground of ``ResourceOps`` (the operations) and ``PluginRuns``
(running a plugin's action): building the row's plugin context and
definition, resolving its properties against its predecessors' node data,
the node data it passes on, and the compare-and-swap writes that take,
release or settle the row with its events.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from typing import Any

from hotplate.convergence import outcome
from hotplate.convergence.steps import Failed
from hotplate.engine.cache import pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.hosting.attribute_reads import read_attribute
from hotplate.engine.hosting.live_attributes import LiveAttributes
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.hosting.row_plugins import row_class, row_context
from hotplate.engine.worker.node_work import LockLost, NodeWork, failure_text, stack_failure_text
from hotplate.engine.worker.resolve import InputsContext
from hotplate.model.errors import EntityNotFound
from hotplate.model.nodes import NodeData, path_key
from hotplate.model.records import NewEvent, ResourceRecord, StackRecord, SyncReport, SyncResult
from hotplate.model.states import Action, Status, check_resource_transition
from hotplate.resources.attributes import InvalidTemplateAttribute
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


LOCK_RETRY_WAIT_SECS = 2.0
"""Longest random wait before trying a lost lock again (Heat's wait_random(max=2))."""
_LOCK_RETRY = random.Random()


def _only_key_moved(planned: ResourceRecord, fresh: ResourceRecord) -> bool:
    """Nobody holds the row and it is in the state the node planned from: only a
    write that bumps the key (metadata, data) came in between."""
    return (fresh.engine_id is None and fresh.replaced_by == planned.replaced_by
            and (fresh.action, fresh.status, fresh.current_template_id)
            == (planned.action, planned.status, planned.current_template_id))


class RowBookkeeping:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def event(self, row: ResourceRecord, action: Action | str, status: Status | str,
              reason: str, physical_id: str | None = None) -> NewEvent:
        return resource_event(self._deps, row, action, status, reason, physical_id)

    def _context(self, row: ResourceRecord, stack: StackRecord) -> EngineResourceContext:
        return row_context(self._deps, row, stack)

    def _inputs(self, work: NodeWork) -> InputsContext:
        deps = self._deps
        params = deps.caches.parameters(work.template_id, work.stack.id,
                                        pseudo_parameters(work.stack))
        live_names = deps.caches.for_stack(work.template_id,
                                           work.stack).computed_attribute_reads
        live = LiveAttributes(deps, work.stack, params, live_names) if live_names else None
        return InputsContext(params, work.input_data, live)

    def _node_data(self, instance: Resource, row: ResourceRecord, work: NodeWork,
                   action: Action, status: Status) -> dict[str, Any]:
        template = self._deps.caches.for_stack(work.template_id, work.stack)
        attrs: dict[str, Any] = {}
        for name in sorted(template.attributes_referenced().get(row.name, frozenset())):
            try:
                attrs[name] = read_attribute(instance, name, action, status)
            except InvalidTemplateAttribute as exc:
                # Left out, as Heat leaves it: its reader fails with these words.
                LOG.info("resource %s: %s", row.name, exc)
            except Exception as exc:  # a bad attribute fails its reader, not its owner
                LOG.info("resource %s: attribute %s unavailable: %s", row.name, name, exc)
                attrs[name] = None
        if instance.path_attributes:
            attrs.update(_path_attributes(instance, template))
        return NodeData(
            resource_id=row.id, name=row.name, reference_id=instance.get_reference_id(),
            attrs=attrs, action=str(action), status=str(status), uuid=row.uuid,
        ).to_json()

    def _acquire(self, row: ResourceRecord, values: Mapping[str, Any], action: Action,
                 *, resuming: bool = False) -> ResourceRecord:
        """Take the lock, recording IN_PROGRESS; ``resuming`` an interrupted action,
        the row already says IN_PROGRESS (its takeover event tells the story).

        As Heat, an update or delete that loses the compare-and-swap to a write
        that only moved the row's key (a signal's metadata, say) tries again,
        ``client_retry_limit`` times after a random wait of up to two seconds;
        a row someone locked, or moved on, is lost at once (LockLost).
        """
        deps = self._deps
        tries = 1 if action is Action.CREATE else 1 + max(deps.options.client_retry_limit, 0)
        check_resource_transition((row.action, row.status), (action, Status.IN_PROGRESS))
        for attempt in range(tries):
            event = None if resuming else self.event(row, action, Status.IN_PROGRESS,
                                                     outcome.STATE_CHANGED)
            acquired = deps.store.acquire_resource(
                row.id, deps.engine_id, row.atomic_key,
                {"action": action, "status": Status.IN_PROGRESS,
                 "status_reason": outcome.STATE_CHANGED, **values},
                event,
            )
            if acquired is not None:
                return acquired
            fresh = deps.store.get_resource(row.id) if attempt + 1 < tries else None
            if fresh is None or not _only_key_moved(row, fresh):
                break
            with deps.slots.released():
                deps.clock.sleep(_LOCK_RETRY.uniform(0, LOCK_RETRY_WAIT_SECS))
            row = fresh
        raise LockLost()

    def _release(self, row: ResourceRecord, action: Action, status: Status, reason: str,
                 values: Mapping[str, Any] | None = None, *,
                 ctx: EngineResourceContext | None = None,
                 reports: list[SyncReport] | None = None,
                 ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Settle the row and drop the lock; buffered plugin data and reports go with it."""
        check_resource_transition((row.action, row.status), (action, status))
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

    def _settle(self, row: ResourceRecord, action: Action, values: Mapping[str, Any],
                ctx: EngineResourceContext, reports: list[SyncReport],
                ) -> tuple[ResourceRecord | None, list[SyncResult]]:
        """Lock, both events, the outcome, release and reports: one commit."""
        check_resource_transition((row.action, row.status), (action, Status.IN_PROGRESS))
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

    def _definition(self, work: NodeWork) -> tuple[Any, type[Resource]]:
        template = self._deps.caches.for_stack(work.template_id, work.stack)
        defn = template.resources[work.row.name]
        loaded = self._deps.caches.template(work.template_id)
        return defn, self._deps.types.for_resource(loaded.env, work.row.name, defn.type,
                                                   loaded.files)

    def _properties(self, work: NodeWork, defn: Any, cls: type[Resource]) -> dict[str, Any]:
        raw = defn.resolve_properties(self._inputs(work))
        props = cls.validate(raw, ("resources", work.row.name, "properties"))
        if cls.resolves_properties():  # Heat's RESOLVE rules: names become ids
            props = cls.resolve_properties(props, self._context(work.row, work.stack).cloud)
        return props

    def _metadata(self, work: NodeWork, defn: Any) -> dict[str, Any]:
        metadata: dict[str, Any] = defn.resolve_metadata(self._inputs(work))
        return metadata

    def _row_class(self, row: ResourceRecord) -> type[Resource]:
        return row_class(self._deps, row)

    def _deletion_policy(self, row: ResourceRecord) -> str:
        """The row's template's deletion policy. A template that is gone says nothing
        more (Delete); any other failure to read it propagates: guessing "Delete"
        when the database is briefly away would delete a ``Retain`` resource."""
        if row.current_template_id is None:
            return "Delete"
        try:
            template = self._deps.caches.template(row.current_template_id).template
        except EntityNotFound:
            return "Delete"
        defn = template.resources.get(row.name)
        return defn.deletion_policy if defn is not None else "Delete"
    def _fail_before_running(self, work: NodeWork, row: ResourceRecord, action: Action,
                             values: Mapping[str, Any], exc: Exception) -> Failed:
        locked = self._acquire(row, values, action)
        reason = failure_text(exc, row.name)
        self._release(locked, action, Status.FAILED, reason)
        return Failed(outcome.resource_failed_reason(
            action, stack_failure_text(exc, row.name, action, reason)))

