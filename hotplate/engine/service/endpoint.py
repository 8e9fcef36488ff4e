"""EngineService: the engine topic's endpoint, with Heat's method names and arguments.

This is the single entry point the REST API (through the RPC client) calls.
Requests are validated completely before anything is written, so a bad
template never leaves a half-created stack behind; previews validate the
same way and write nothing. Methods about resources and about what the
engine offers live in ``service_resources`` and ``service_catalog``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.event_sinks import check_environment as check_event_sinks
from hotplate.engine.hosting.adopt import (
    parse_adopt_data,
    visible_files,
    with_adopt_data,
    with_adopt_parameters,
)
from hotplate.engine.hosting.nested import MAX_NESTED_DEPTH
from hotplate.engine.legacy.stacks import cancelled_on, run_on
from hotplate.engine.service import abandon as abandoning
from hotplate.engine.service.convergence_migration import MigrationMethods
from hotplate.engine.service.drift import DriftMethods
from hotplate.engine.service.lookup_methods import LookupMethods
from hotplate.engine.service.lookups import identity_of, project_of, request_environment
from hotplate.engine.service.outputs import OutputResolver
from hotplate.engine.service.preview_methods import PreviewMethods, tags_of, timeout_of
from hotplate.engine.service.request_ledger import start_mark, started_before
from hotplate.engine.service.service_catalog import CatalogMethods
from hotplate.engine.service.service_resources import ResourceMethods
from hotplate.engine.service.snapshots import SnapshotMethods
from hotplate.engine.service.software_configs import SoftwareMethods
from hotplate.engine.service.validation import (
    check_tree_size,
    hidden_parameters,
    located_in,
    validate_stack_request,
)
from hotplate.engine.stack_credentials import StackUserProjectFailed
from hotplate.engine.views import format_event, format_stack, parameter_texts, summarise_event
from hotplate.engine.worker import stack_actions
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.endpoint import WorkerService
from hotplate.model.errors import ActionInProgress, EntityNotFound, NotSupported
from hotplate.model.ids import NO_TRAVERSAL, StackId, TemplateId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.rpc.requests import request_uuid
from hotplate.template import Template
from hotplate.template.env_merge import patched_environment
from hotplate.template.parameter_values import (
    ImmutableParameterModified,
    immutable_modified,
    resolve_parameters,
)

LOG = logging.getLogger(__name__)


class EngineService(LookupMethods, CatalogMethods, SoftwareMethods, DriftMethods,
                    SnapshotMethods, MigrationMethods, PreviewMethods):
    STACK_METHODS = frozenset({
        "create_stack", "update_stack", "delete_stack", "show_stack", "list_stacks",
        "identify_stack", "list_events", "list_event_ids", "list_event_summaries",
        "stack_cancel_update",
        "show_output", "list_outputs",
        "get_template", "get_environment", "get_files", "abandon_stack", "export_stack",
        "stack_suspend", "stack_resume", "stack_check",
    })
    ALLOWED = (STACK_METHODS | ResourceMethods.RESOURCE_METHODS
               | CatalogMethods.CATALOG_METHODS | SoftwareMethods.SOFTWARE_METHODS
               | DriftMethods.DRIFT_METHODS | SnapshotMethods.SNAPSHOT_METHODS
               | LookupMethods.LOOKUP_METHODS | MigrationMethods.MIGRATION_METHODS
               | PreviewMethods.PREVIEW_METHODS)

    def __init__(self, deps: EngineDeps, worker: WorkerService) -> None:
        super().__init__(deps)
        self._worker = worker
        self._outputs = OutputResolver(deps)

    # -- lookups -----------------------------------------------------------------
    def identify_stack(self, ctxt: Mapping[str, Any], stack_name: str) -> dict[str, str]:
        """By id (deleted stacks too, as Heat), else by name (live stacks only)."""
        return identity_of(self._get_stack(ctxt, stack_name, show_deleted=True))

    # -- create / update / delete ----------------------------------------------------
    def create_stack(
        self, ctxt: Mapping[str, Any], stack_name: str, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
        owner_id: str | None = None, nested_depth: int = 0, user_creds_id: int | None = None,
        stack_user_project_id: str | None = None, parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> dict[str, str]:
        deps = self._deps
        args = dict(args or {})
        action = Action.ADOPT if args.get("adopt_stack_data") else Action.CREATE
        known = None if owner_id else request_uuid(ctxt, "stack")
        if known is not None:  # this request asked again: what its first asking made
            earlier = deps.store.get_stack(StackId(known), include_deleted=True)
            if earlier is not None:
                return self._made_before(earlier, action)
        if args.get("adopt_stack_data"):
            if not deps.options.enable_stack_adopt:
                raise NotSupported("Stack Adopt is not supported.")
            adopt_data = parse_adopt_data(args["adopt_stack_data"])
            files = with_adopt_data(files or {}, adopt_data)
        env = request_environment(params, files or {}, environment_files)
        if action is Action.ADOPT:  # the abandoned stack's parameters, unless given anew
            env = with_adopt_parameters(env, adopt_data)
        with located_in(template):
            parsed = validate_stack_request(deps, template, env, files or {},
                                            stack_name=stack_name, nested=bool(owner_id),
                                            access=self._access(ctxt, nested=bool(owner_id)))
        check_event_sinks(deps.event_sinks, env)
        parent = deps.store.get_stack(StackId(owner_id)) if owner_id else None
        if parent is not None:
            check_tree_size(deps, parent, parsed)
        stack_id = StackId(known or deps.ids.new_uuid())
        made = _Made()
        if owner_id is None:  # a root stack's trust and stack domain project (Keystone)
            if user_creds_id is None:
                made.creds_id = user_creds_id = deps.credentials.create_for(ctxt)
            if stack_user_project_id is None:
                try:
                    made.project_id = stack_user_project_id = (
                        deps.credentials.create_project_for(ctxt, stack_id))
                except StackUserProjectFailed as exc:  # stored, then failed (Heat's)
                    made.project_failure = str(exc)
                except Exception:
                    deps.credentials.forget_new(made.creds_id, None)
                    raise
        tid = deps.store.create_raw_template(parsed.to_dict(), files or {}, env,
                                             hidden=hidden_parameters(parsed))
        deps.caches.remember_template(tid, parsed, files or {}, env)
        stack = StackRecord(
            id=stack_id, name=stack_name, project_id=project_of(ctxt),
            raw_template_id=tid, action=Action.INIT, status=Status.COMPLETE,
            status_reason="", current_traversal=NO_TRAVERSAL, created_at=deps.clock.now(),
            disable_rollback=bool(args.get("disable_rollback", True)),
            timeout_mins=timeout_of(args), owner_id=StackId(owner_id) if owner_id else None,
            nested_depth=nested_depth, user_id=str(ctxt.get("user_id") or ""),
            username=str(ctxt.get("username") or ctxt.get("user") or ""),
            tags=tuple(tags_of(args)), user_creds_id=user_creds_id,
            parent_resource_name=parent_resource_name,
            stack_user_project_id=stack_user_project_id,
            convergence=deps.options.convergence_engine,
        )
        try:
            deps.store.create_stack(stack)
        except Exception:
            deps.store.delete_raw_template(tid)
            deps.credentials.forget_new(made.creds_id, made.project_id)
            raise
        if made.project_failure is not None:
            trav.refuse(deps, stack, action, made.project_failure)
        else:
            run_on(deps, stack, lambda: trav.converge_stack(deps, stack, tid, action,
                                                            prev_template_id=None))
        return identity_of(stack)

    def _made_before(self, made: StackRecord, action: Action) -> dict[str, str]:
        """The stack an earlier asking of this create made; started if its engine died
        between writing it and starting its action (nothing else would start it).

        A legacy stack's start takes its lock as any operation does (a dead asker's
        stolen; a live one's: ActionInProgress), then looks again: another asking
        may have started it meanwhile.

        Raises:
            ActionInProgress: a live engine holds the legacy stack's lock.
        """
        if not _never_started(made):
            return identity_of(made)
        deps = self._deps

        def start() -> TraversalId | None:
            fresh = deps.store.get_stack(made.id)
            if fresh is None or not _never_started(fresh):
                return None
            LOG.warning("stack %s: made by an earlier asking, never started; starting %s",
                        made.id, action)
            return trav.converge_stack(deps, fresh, fresh.raw_template_id, action,
                                       prev_template_id=None)

        run_on(deps, made, start)
        return identity_of(made)

    def update_stack(
        self, ctxt: Mapping[str, Any], stack_identity: Any, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
        template_id: int | None = None,
    ) -> dict[str, str]:
        deps = self._deps
        stack = self._get_stack(ctxt, stack_identity)
        if started_before(deps, ctxt, stack.id):  # asked again: as the first time
            return identity_of(stack)
        if stack.action is Action.DELETE:
            raise NotSupported("Updating a stack when it is deleting is not supported.")
        if stack.action is Action.SUSPEND:
            raise NotSupported("Updating a stack when it is suspended is not supported.")
        if stack.status is Status.IN_PROGRESS and stack.action in stack_actions.STACK_ACTIONS:
            raise ActionInProgress(stack.name, str(stack.action))
        deps.credentials.refresh_for(ctxt, stack)  # another caller: the trust becomes theirs
        args = dict(args or {})
        if args.get("existing"):  # Heat's PATCH: what the request leaves out is kept
            stored = deps.caches.template(stack.raw_template_id)
            files = {**stored.files, **(files or {})}
            template = stored.raw if template is None else template
        env = request_environment(params, files or {}, environment_files)
        if args.get("existing"):
            env = patched_environment(stored.env.to_dict(), env,
                                      args.get("clear_parameters") or ())
        with located_in(template):
            parsed = validate_stack_request(deps, template, env, files or {},
                                            stack_name=stack.name,
                                            nested=stack.owner_id is not None,
                                            existing=bool(args.get("existing")),
                                            access=self._access(
                                                ctxt, nested=stack.owner_id is not None))
        check_event_sinks(deps.event_sinks, env)
        if stack.owner_id is not None:
            check_tree_size(deps, stack, parsed, len(deps.store.list_resources(stack.id)))
        if args.get("existing"):
            env = {**env, "parameters": {k: v for k, v in (env.get("parameters") or {}).items()
                                         if k in parsed.parameters}}
        self._check_immutable(stack, parsed, env)
        tid = deps.store.create_raw_template(parsed.to_dict(), files or {}, env,
                                             hidden=hidden_parameters(parsed))
        deps.caches.remember_template(tid, parsed, files or {}, env)
        settings: dict[str, Any] = {}
        if args.get("timeout_mins") is not None:
            settings["timeout_mins"] = timeout_of(args)
        if args.get("disable_rollback") is not None:
            settings["disable_rollback"] = bool(args["disable_rollback"])
        if settings and deps.store.update_stack_if_traversal(
            stack.id, stack.current_traversal, settings
        ):
            stack = self._get_stack(ctxt, stack.id)
        current, started = stack, None
        try:  # a legacy stack's operation takes its lock first (ActionInProgress: busy)
            started = run_on(deps, stack, lambda: trav.converge_stack(
                deps, current, tid, Action.UPDATE, prev_template_id=current.raw_template_id,
                started_as=start_mark(ctxt, current.id), converge=bool(args.get("converge"))))
        finally:
            if started is None:
                deps.store.delete_raw_template(tid)
        return identity_of(stack)

    def _check_immutable(self, stack: StackRecord, parsed: Template,
                         env: Mapping[str, Any]) -> None:
        """Refuse an update that changes an ``immutable`` parameter (Heat's 400)."""
        if not any(p.immutable for p in parsed.parameters.values()):
            return
        new = resolve_parameters(parsed, env.get("parameters") or {},
                                 param_defaults=env.get("parameter_defaults") or {})
        changed = immutable_modified(self._outputs.parameters(stack), parsed, new)
        if changed:
            raise ImmutableParameterModified(changed)

    # -- abandon / export ------------------------------------------------------------
    def abandon_stack(self, ctxt: Mapping[str, Any], stack_identity: Any,
                      abandon: bool = True) -> dict[str, Any]:
        """The abandon document; with ``abandon`` the stack is then forgotten (its
        physical resources stay). Refused unless ``enable_stack_abandon``."""
        abandoning.check_enabled(self._deps)
        stack = self._get_stack(ctxt, stack_identity)
        document = abandoning.abandon_document(self._deps, stack, self._current_rows(stack))
        if abandon:
            abandoning.forget(self._deps, stack)
        return document

    def export_stack(self, ctxt: Mapping[str, Any], stack_identity: Any) -> dict[str, Any]:
        return self.abandon_stack(ctxt, stack_identity, abandon=False)

    def delete_stack(self, ctxt: Mapping[str, Any], stack_identity: Any) -> None:
        deps = self._deps
        found = self._get_stack(ctxt, stack_identity, show_deleted=True)
        if started_before(deps, ctxt, found.id):  # asked again: as the first time
            return
        stack = self._get_stack(ctxt, stack_identity)
        deps.credentials.refresh_for(ctxt, stack)  # another caller: the trust becomes theirs

        def start() -> None:
            self._worker.stop_all_workers(stack)
            current = self._get_stack(ctxt, stack.id)
            loaded = deps.caches.template(current.raw_template_id)
            empty = trav.empty_template(deps, loaded.template.version, loaded.environment)
            trav.converge_stack(deps, current, empty, Action.DELETE,
                                prev_template_id=current.raw_template_id,
                                started_as=start_mark(ctxt, current.id))

        run_on(deps, stack, start, preempt=True)  # a legacy stack's thread stopped first

    def stack_cancel_update(self, ctxt: Mapping[str, Any], stack_identity: Any,
                            cancel_with_rollback: bool = True) -> None:
        stack = self._get_stack(ctxt, stack_identity)
        allowed = (Action.UPDATE,) if cancel_with_rollback else (Action.UPDATE, Action.CREATE)
        if stack.status is not Status.IN_PROGRESS or stack.action not in allowed:
            raise NotSupported(
                f"Cancelling update when stack is {stack.action}_{stack.status} "
                "is not supported."
            )
        if cancelled_on(self._deps, stack, with_rollback=cancel_with_rollback):
            return  # a legacy stack's: the message went to its thread
        if cancel_with_rollback:
            trav.rollback(self._deps, stack)
        else:
            self._worker.stop_traversals(stack)

    def stack_suspend(self, ctxt: Mapping[str, Any], stack_identity: Any) -> None:
        self._stack_action(self._get_stack(ctxt, stack_identity), Action.SUSPEND)

    def stack_resume(self, ctxt: Mapping[str, Any], stack_identity: Any) -> None:
        self._stack_action(self._get_stack(ctxt, stack_identity), Action.RESUME)

    def stack_check(self, ctxt: Mapping[str, Any], stack_identity: Any) -> None:
        self._stack_action(self._get_stack(ctxt, stack_identity), Action.CHECK)

    def _stack_action(self, stack: StackRecord, action: Action) -> None:
        run_on(self._deps, stack, lambda: stack_actions.start(self._deps, stack, action))

    # -- reads -----------------------------------------------------------------------
    def show_stack(self, ctxt: Mapping[str, Any], stack_identity: Any,
                   resolve_outputs: bool = True) -> list[dict[str, Any]]:
        if stack_identity is None:
            stacks = self._deps.store.list_stacks(None if ctxt.get("is_admin")
                                                  else project_of(ctxt))
        else:
            stacks = [self._get_stack(ctxt, stack_identity, show_deleted=True)]
        return [self._stack_view(s, resolve_outputs) for s in stacks]

    def _stack_view(self, stack: StackRecord, resolve_outputs: bool) -> dict[str, Any]:
        loaded = self._deps.caches.template(stack.raw_template_id)
        params = parameter_texts(loaded.template.parameters, self._outputs.parameters(stack))
        outputs = self._outputs.resolve_all(stack) if resolve_outputs else None
        return format_stack(stack, description=loaded.template.description,
                            parameters=params, outputs=outputs)

    def list_stacks(self, ctxt: Mapping[str, Any], limit: int | None = None,
                    marker: str | None = None, sort_keys: Any = None, sort_dir: str | None = None,
                    filters: Any = None, tenant_safe: bool = True, show_deleted: bool = False,
                    show_nested: bool = False, show_hidden: bool = False, tags: Any = None,
                    tags_any: Any = None, not_tags: Any = None, not_tags_any: Any = None,
                    ) -> list[dict[str, Any]]:
        project = None if (ctxt.get("is_admin") and not tenant_safe) else project_of(ctxt)
        stacks = self._deps.store.list_stacks(
            project, limit=limit, marker=StackId(marker) if marker else None,
            sort_keys=tuple(sort_keys or ("created_at",)), sort_dir=sort_dir or "desc",
            filters=filters, show_deleted=show_deleted, show_nested=show_nested,
        )
        return [format_stack(s) for s in stacks]

    def list_events(self, ctxt: Mapping[str, Any], stack_identity: Any, filters: Any = None,
                    limit: int | None = None, marker: str | None = None, sort_keys: Any = None,
                    sort_dir: str | None = None, nested_depth: int | None = None,
                    ) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        if sort_dir is None:
            sort_dir = "asc" if sort_keys else "desc"  # Heat: newest first unless asked
        stacks = self._event_stacks(stack, nested_depth)
        events = self._deps.store.list_events(
            _one_or_all(stack, stacks), limit=limit, marker=marker, sort_dir=sort_dir,
            filters=filters)
        return [format_event(e, stacks[str(e.stack_id)]) for e in events]

    def list_event_summaries(self, ctxt: Mapping[str, Any], stack_identity: Any,
                             marker: str | None = None, limit: int | None = None,
                             nested_depth: int | None = None) -> list[dict[str, Any]]:
        """``list_events`` oldest first, each event as ``summarise_event`` gives it.

        The web view's stream reads every event of every traversal it follows;
        the full format (two identities, type, properties) was most of its cost.
        """
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        stacks = self._event_stacks(stack, nested_depth)
        events = self._deps.store.list_events(
            _one_or_all(stack, stacks), limit=limit, marker=marker, sort_dir="asc")
        return [summarise_event(e, stacks[str(e.stack_id)]) for e in events]

    def _event_stacks(self, stack: StackRecord, nested_depth: int | None
                      ) -> dict[str, StackRecord]:
        """The stack and those nested in it down to ``nested_depth``, by id."""
        depth = max(0, min(int(nested_depth or 0), MAX_NESTED_DEPTH))
        stacks = {str(stack.id): stack}
        stacks.update((str(child.id), child) for child, _ in
                      self._nested_stacks(stack, depth, deleted=True))
        return stacks

    def list_event_ids(self, ctxt: Mapping[str, Any], stack_identity: Any,
                       marker: str | None = None, limit: int | None = None,
                       nested_depth: int | None = None) -> list[str]:
        """The ids of the events ``list_events`` gives, oldest first, alone.

        The web view's stream asks it to find an event that committed behind
        ones it has read (PostgreSQL and MariaDB can commit out of id order),
        without formatting again every event it has already seen.
        """
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        stacks = self._event_stacks(stack, nested_depth)
        return self._deps.store.list_event_ids(_one_or_all(stack, stacks), limit=limit,
                                               marker=marker)

    def list_outputs(self, ctxt: Mapping[str, Any], stack_identity: Any) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        return [{"output_key": name, "description": out.description}
                for name, out in template.outputs.items()]

    def show_output(self, ctxt: Mapping[str, Any], stack_identity: Any,
                    output_key: str) -> dict[str, Any]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        for out in self._outputs.resolve_all(stack):
            if out["output_key"] == output_key:
                return out
        raise EntityNotFound("Output", output_key)

    def get_template(self, ctxt: Mapping[str, Any], stack_identity: Any) -> Any:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        return self._deps.caches.template(TemplateId(stack.raw_template_id)).raw

    def get_environment(self, ctxt: Mapping[str, Any], stack_identity: Any) -> dict[str, Any]:
        """The stack's environment, every section present (Heat's stored form)."""
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        return self._deps.caches.template(stack.raw_template_id).env.to_dict()

    def get_files(self, ctxt: Mapping[str, Any], stack_identity: Any) -> dict[str, Any]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        return visible_files(self._deps.caches.template(stack.raw_template_id).files)


def _never_started(stack: StackRecord) -> bool:
    return stack.action is Action.INIT and stack.current_traversal == NO_TRAVERSAL


class _Made:
    """What a create made in Keystone before its stack row exists, to undo on failure."""

    creds_id: int | None = None
    project_id: str | None = None
    project_failure: str | None = None
    """Why Keystone made no stack user project: the stack fails at once with it."""


def _one_or_all(stack: StackRecord, stacks: dict[str, StackRecord]
                ) -> StackId | list[StackId]:
    """What the event store reads: the stack alone, or it and its nested stacks."""
    return [StackId(i) for i in stacks] if len(stacks) > 1 else stack.id
