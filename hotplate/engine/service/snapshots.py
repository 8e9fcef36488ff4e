"""Stack snapshots on the engine topic: Heat's ``stack_snapshot``, ``show_snapshot``,
``stack_list_snapshots``, ``delete_snapshot`` and ``stack_restore``.

A snapshot is the stack's ``SNAPSHOT`` action (a walk of its resources,
stack_actions.py, whose traversal id is the snapshot's id) plus a
``snapshot`` row: ``CREATE_IN_PROGRESS`` when asked for, ``COMPLETE`` or
``FAILED`` with the stack's reason when the walk ends. Each resource's part
(its data, with whatever its plugin's ``handle_snapshot`` kept: a volume's
backup, a server's image) is shown in ``data.resources``.

A restore is an update to the snapshot's template, environment and files, as
``RESTORE`` (rolled back on failure like an update), where each resource
whose plugin has ``handle_restore`` first rewrites its own definition from
its part of the snapshot (a volume made from its backup). Resources without
it are converged like any update: a RandomString keeps the value it has now
unless its properties differ, as in Heat.

Deleting a snapshot hands it to a worker, which calls each resource's
``handle_delete_snapshot`` and then drops the rows (snapshot_deletion.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.engine.hosting.row_plugins import row_instance
from hotplate.engine.legacy.stacks import run_on
from hotplate.engine.options import UNLIMITED
from hotplate.engine.service.lookups import StackLookups, project_of
from hotplate.engine.service.validation import (
    hidden_parameters,
    located_in,
    validate_stack_request,
)
from hotplate.engine.stack_document import stack_document
from hotplate.engine.views import format_snapshot
from hotplate.engine.worker import stack_actions
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.snapshot_deletion import start_deletion
from hotplate.model.errors import (
    ActionInProgress,
    NotSupported,
    RequestLimitExceeded,
    SnapshotNotFound,
)
from hotplate.model.ids import TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.snapshots import SNAPSHOT_CREATE, SnapshotRecord
from hotplate.model.states import Action, Status
from hotplate.template import Template
from hotplate.template.environment import parse_environment

LOG = logging.getLogger(__name__)

RESTORE_HANDLER = "handle_restore"
"""The plugin method that rewrites its resource's definition from its part of a
snapshot (optional): ``handle_restore(definition, part) -> definition``."""


class SnapshotMethods(StackLookups):
    SNAPSHOT_METHODS = frozenset({"stack_snapshot", "show_snapshot", "delete_snapshot",
                                  "stack_list_snapshots", "stack_restore"})

    def stack_snapshot(self, ctxt: Mapping[str, Any], stack_identity: Any,
                       name: str | None) -> dict[str, Any]:
        deps = self._deps
        stack = self._get_stack(ctxt, stack_identity)
        if stack.status is Status.IN_PROGRESS:
            raise ActionInProgress(stack.name, str(stack.action))
        limit = deps.options.max_snapshots_per_stack
        if not ctxt.get("is_admin") and limit != UNLIMITED and (
                deps.store.count_snapshots(stack.id) >= limit):
            raise RequestLimitExceeded(
                f"You have reached the maximum snapshots per stack, {limit}. "
                "Please delete some snapshots.")
        snapshot_id = deps.ids.new_uuid()
        snapshot = deps.store.create_snapshot(
            snapshot_id, stack.id, project_of(ctxt) or stack.project_id, name,
            stack_document(deps, stack), SNAPSHOT_CREATE, str(Status.IN_PROGRESS))
        try:
            run_on(deps, stack, lambda: stack_actions.start(
                deps, stack, Action.SNAPSHOT, traversal=TraversalId(snapshot_id)))
        except ActionInProgress:
            deps.store.delete_snapshot(snapshot_id)  # another request won the stack
            raise
        return format_snapshot(snapshot)

    def show_snapshot(self, ctxt: Mapping[str, Any], stack_identity: Any,
                      snapshot_id: str) -> dict[str, Any]:
        stack = self._get_stack(ctxt, stack_identity)
        return format_snapshot(self._snapshot(stack, snapshot_id))

    def stack_list_snapshots(self, ctxt: Mapping[str, Any],
                             stack_identity: Any) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity)
        return [format_snapshot(s) for s in self._deps.store.list_snapshots(stack.id)]

    def delete_snapshot(self, ctxt: Mapping[str, Any], stack_identity: Any,
                        snapshot_id: str) -> None:
        stack = self._get_stack(ctxt, stack_identity)
        snapshot = self._snapshot(stack, snapshot_id)
        if snapshot.action in (None, SNAPSHOT_CREATE) and snapshot.status == Status.IN_PROGRESS:
            raise NotSupported("Deleting in-progress snapshot is not supported.")
        start_deletion(self._deps, snapshot)

    def stack_restore(self, ctxt: Mapping[str, Any], stack_identity: Any,
                      snapshot_id: str) -> None:
        deps = self._deps
        stack = self._get_stack(ctxt, stack_identity)
        snapshot = self._snapshot(stack, snapshot_id)
        if snapshot.status != Status.COMPLETE:
            raise NotSupported("Restoring incomplete snapshot is not supported.")
        if stack.status is Status.IN_PROGRESS and (
                stack.action in stack_actions.STACK_ACTIONS or stack.action is Action.DELETE):
            raise ActionInProgress(stack.name, str(stack.action))
        data = snapshot.data or {}
        files = dict(data.get("files") or {})
        env = dict(data.get("environment") or {})
        with located_in(data.get("template")):
            parsed = validate_stack_request(deps, data.get("template"), env, files,
                                            stack_name=stack.name,
                                            nested=stack.owner_id is not None)
        raw = _restored(self, stack, parsed, snapshot, env, files)
        if raw is not None:
            with located_in(raw):
                parsed = validate_stack_request(deps, raw, env, files, stack_name=stack.name,
                                                nested=stack.owner_id is not None)
        tid = deps.store.create_raw_template(parsed.to_dict(), files, env,
                                             hidden=hidden_parameters(parsed))
        deps.caches.remember_template(tid, parsed, files, env)
        if run_on(deps, stack, lambda: trav.converge_stack(
                deps, stack, tid, Action.RESTORE,
                prev_template_id=stack.raw_template_id)) is None:
            deps.store.delete_raw_template(tid)

    def _snapshot(self, stack: StackRecord, snapshot_id: str) -> SnapshotRecord:
        found = self._deps.store.get_snapshot(str(snapshot_id))
        if found is None or found.stack_id != stack.id:
            raise SnapshotNotFound(str(snapshot_id), stack.name)
        return found


def _restored(methods: SnapshotMethods, stack: StackRecord, parsed: Template,
              snapshot: SnapshotRecord, env: Mapping[str, Any],
              files: Mapping[str, Any]) -> dict[str, Any] | None:
    """The snapshot's template with the definitions of the resources whose plugins
    restore themselves (``handle_restore``) rewritten; None when no plugin did."""
    deps = methods._deps
    raw = parsed.to_dict()
    resources = dict(raw.get("resources") or raw.get("Resources") or {})
    rows = methods._current_rows(stack)
    environment = parse_environment(env)
    changed = False
    for name, definition in parsed.resources.items():
        part = snapshot.resources.get(name)
        row = rows.get(name)
        if part is None or row is None:
            continue
        cls = deps.types.for_resource(environment, name, definition.type, files)
        if not callable(getattr(cls, RESTORE_HANDLER, None)):
            continue
        instance = row_instance(deps, row, stack, cls)
        resources[name] = getattr(instance, RESTORE_HANDLER)(dict(resources[name]), part)
        changed = True
    if not changed:
        return None
    section = "resources" if "resources" in raw else "Resources"
    return {**raw, section: resources}
