"""EngineService: the engine topic's endpoint, with Heat's method names and arguments.

This is the single entry point the REST API (through the RPC client) calls.
Requests are validated completely before anything is written, so a bad
template never leaves a half-created stack behind.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.engine import traversal as trav
from hotplate.engine.deps import EngineDeps
from hotplate.engine.outputs import OutputResolver
from hotplate.engine.validation import validate_stack_request
from hotplate.engine.views import format_event, format_resource, format_stack, visible_rows
from hotplate.engine.worker import WorkerService
from hotplate.model.errors import EntityNotFound, NotSupported, StackValidationFailed
from hotplate.model.ids import NO_TRAVERSAL, StackId, TemplateId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.template import merge_environments

LOG = logging.getLogger(__name__)


def _project(ctxt: Mapping[str, Any]) -> str:
    return str(ctxt.get("project_id") or ctxt.get("tenant_id") or ctxt.get("tenant") or "admin")


def _environment(params: Mapping[str, Any] | None, files: Mapping[str, Any],
                 environment_files: Any) -> dict[str, Any]:
    """The request's environment, with its environment_files merged on top in order.

    Heat's ``params`` argument is the environment; a flat mapping means parameters.
    """
    env = dict(params or {})
    known = {"parameters", "parameter_defaults", "resource_registry", "event_sinks",
             "encrypted_param_names", "parameter_merge_strategies"}
    if env and not set(env) <= known:
        env = {"parameters": env}
    names = list(environment_files or [])
    if not names:
        return env
    missing = [name for name in names if name not in files]
    if missing:
        raise StackValidationFailed(
            f"Environment file(s) not found in files: {', '.join(missing)}")
    merged = merge_environments([env, *(files[name] for name in names)],
                                names=["environment", *names])
    return merged.to_dict()


class EngineService:
    ALLOWED = frozenset({
        "create_stack", "update_stack", "delete_stack", "show_stack", "list_stacks",
        "identify_stack", "list_stack_resources", "describe_stack_resource", "list_events",
        "stack_cancel_update", "show_output", "list_outputs", "get_template",
    })

    def __init__(self, deps: EngineDeps, worker: WorkerService) -> None:
        self._deps = deps
        self._worker = worker
        self._outputs = OutputResolver(deps)

    # -- lookups -----------------------------------------------------------------
    def _get_stack(self, ctxt: Mapping[str, Any], identity: Any, *,
                   show_deleted: bool = False) -> StackRecord:
        """The stack by id or name, in the caller's project; deleted ones only when asked."""
        store = self._deps.store
        if isinstance(identity, Mapping):
            stack_id = identity.get("stack_id")
            name = identity.get("stack_name") or stack_id
        else:
            stack_id, name = identity, identity
        stack = (store.get_stack(StackId(str(stack_id)), include_deleted=show_deleted)
                 if stack_id else None)
        if stack is None and name:
            stack = store.get_stack_by_name(_project(ctxt), str(name))
        if stack is None or (not ctxt.get("is_admin") and stack.project_id != _project(ctxt)):
            raise EntityNotFound("Stack", str(name))
        return stack

    def identify_stack(self, ctxt: Mapping[str, Any], stack_name: str) -> dict[str, str]:
        """By id (deleted stacks too, as Heat), else by name (live stacks only)."""
        return _identity(self._get_stack(ctxt, stack_name, show_deleted=True))

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
        env = _environment(params, files or {}, environment_files)
        parsed = validate_stack_request(deps, template, env, files or {}, stack_name=stack_name)
        tid = deps.store.create_raw_template(parsed.to_dict(), files or {}, env)
        deps.caches.remember_template(tid, parsed, files or {}, env)
        stack = StackRecord(
            id=StackId(deps.ids.new_uuid()), name=stack_name, project_id=_project(ctxt),
            raw_template_id=tid, action=Action.INIT, status=Status.COMPLETE,
            status_reason="", current_traversal=NO_TRAVERSAL, created_at=deps.clock.now(),
            disable_rollback=bool(args.get("disable_rollback", True)),
            timeout_mins=_timeout(args), owner_id=StackId(owner_id) if owner_id else None,
            nested_depth=nested_depth, user_id=str(ctxt.get("user_id") or ""),
            username=str(ctxt.get("username") or ctxt.get("user") or ""),
            tags=tuple(_tags(args)), user_creds_id=user_creds_id,
            parent_resource_name=parent_resource_name,
        )
        try:
            deps.store.create_stack(stack)
        except Exception:
            deps.store.delete_raw_template(tid)
            raise
        trav.converge_stack(deps, stack, tid, Action.CREATE, prev_template_id=None)
        return _identity(stack)

    def update_stack(
        self, ctxt: Mapping[str, Any], stack_identity: Any, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
        template_id: int | None = None,
    ) -> dict[str, str]:
        deps = self._deps
        stack = self._get_stack(ctxt, stack_identity)
        if stack.action is Action.DELETE:
            raise NotSupported("Updating a stack when it is deleting is not supported.")
        if stack.action is Action.SUSPEND:
            raise NotSupported("Updating a stack when it is suspended is not supported.")
        args = dict(args or {})
        env = _environment(params, files or {}, environment_files)
        parsed = validate_stack_request(deps, template, env, files or {}, stack_name=stack.name)
        tid = deps.store.create_raw_template(parsed.to_dict(), files or {}, env)
        deps.caches.remember_template(tid, parsed, files or {}, env)
        settings: dict[str, Any] = {}
        if args.get("timeout_mins") is not None:
            settings["timeout_mins"] = _timeout(args)
        if args.get("disable_rollback") is not None:
            settings["disable_rollback"] = bool(args["disable_rollback"])
        if settings and deps.store.update_stack_if_traversal(
            stack.id, stack.current_traversal, settings
        ):
            stack = self._get_stack(ctxt, stack.id)
        started = trav.converge_stack(deps, stack, tid, Action.UPDATE,
                                      prev_template_id=stack.raw_template_id)
        if started is None:
            deps.store.delete_raw_template(tid)
        return _identity(stack)

    def delete_stack(self, ctxt: Mapping[str, Any], stack_identity: Any) -> None:
        deps = self._deps
        stack = self._get_stack(ctxt, stack_identity)
        self._worker.stop_all_workers(stack)
        stack = self._get_stack(ctxt, stack.id)
        loaded = deps.caches.template(stack.raw_template_id)
        empty = trav.empty_template(deps, loaded.template.version, loaded.environment)
        trav.converge_stack(deps, stack, empty, Action.DELETE,
                            prev_template_id=stack.raw_template_id)

    def stack_cancel_update(self, ctxt: Mapping[str, Any], stack_identity: Any,
                            cancel_with_rollback: bool = True) -> None:
        stack = self._get_stack(ctxt, stack_identity)
        allowed = (Action.UPDATE,) if cancel_with_rollback else (Action.UPDATE, Action.CREATE)
        if stack.status is not Status.IN_PROGRESS or stack.action not in allowed:
            raise NotSupported(
                f"Cancelling update when stack is {stack.action}_{stack.status} "
                "is not supported."
            )
        if cancel_with_rollback:
            trav.rollback(self._deps, stack)
        else:
            trav.stop_traversal(self._deps, stack)

    # -- reads -----------------------------------------------------------------------
    def show_stack(self, ctxt: Mapping[str, Any], stack_identity: Any,
                   resolve_outputs: bool = True) -> list[dict[str, Any]]:
        if stack_identity is None:
            stacks = self._deps.store.list_stacks(None if ctxt.get("is_admin")
                                                  else _project(ctxt))
        else:
            stacks = [self._get_stack(ctxt, stack_identity, show_deleted=True)]
        return [self._stack_view(s, resolve_outputs) for s in stacks]

    def _stack_view(self, stack: StackRecord, resolve_outputs: bool) -> dict[str, Any]:
        loaded = self._deps.caches.template(stack.raw_template_id)
        params = {k: v for k, v in self._outputs.parameters(stack).items()}
        outputs = self._outputs.resolve_all(stack) if resolve_outputs else None
        return format_stack(stack, description=loaded.template.description,
                            parameters=params, outputs=outputs)

    def list_stacks(self, ctxt: Mapping[str, Any], limit: int | None = None,
                    marker: str | None = None, sort_keys: Any = None, sort_dir: str | None = None,
                    filters: Any = None, tenant_safe: bool = True, show_deleted: bool = False,
                    show_nested: bool = False, show_hidden: bool = False, tags: Any = None,
                    tags_any: Any = None, not_tags: Any = None, not_tags_any: Any = None,
                    ) -> list[dict[str, Any]]:
        project = None if (ctxt.get("is_admin") and not tenant_safe) else _project(ctxt)
        stacks = self._deps.store.list_stacks(
            project, limit=limit, marker=StackId(marker) if marker else None,
            sort_keys=tuple(sort_keys or ("created_at",)), sort_dir=sort_dir or "desc",
            filters=filters, show_deleted=show_deleted, show_nested=show_nested,
        )
        return [format_stack(s) for s in stacks]

    def list_stack_resources(self, ctxt: Mapping[str, Any], stack_identity: Any,
                             nested_depth: int = 0, with_detail: bool = False,
                             filters: Any = None) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        rows = self._current_rows(stack)
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        graph = template.dependencies()
        views = []
        for name, row in rows.items():
            required_by = graph.required_by(name) if name in graph.nodes else ()
            views.append(format_resource(row, stack, required_by=required_by,
                                         with_detail=with_detail))
        return _filter(views, filters)

    def describe_stack_resource(self, ctxt: Mapping[str, Any], stack_identity: Any,
                                resource_name: str, with_attr: Any = None) -> dict[str, Any]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        row = self._current_rows(stack).get(resource_name)
        if row is None:
            raise EntityNotFound("Resource", resource_name)
        graph = self._deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
        required_by = graph.required_by(resource_name) if resource_name in graph.nodes else ()
        return format_resource(row, stack, required_by=required_by, with_detail=True)

    def _current_rows(self, stack: StackRecord) -> dict[str, Any]:
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        return visible_rows(self._deps.store.list_resources(stack.id), list(template.resources),
                            stack.raw_template_id, stack.prev_raw_template_id)

    def list_events(self, ctxt: Mapping[str, Any], stack_identity: Any, filters: Any = None,
                    limit: int | None = None, marker: str | None = None, sort_keys: Any = None,
                    sort_dir: str | None = None, nested_depth: int | None = None,
                    ) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        if sort_dir is None:
            sort_dir = "asc" if sort_keys else "desc"  # Heat: newest first unless asked
        events = self._deps.store.list_events(stack.id, limit=limit, marker=marker,
                                              sort_dir=sort_dir, filters=filters)
        return [format_event(e, stack) for e in events]

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


def _identity(stack: StackRecord) -> dict[str, str]:
    return {"stack_name": stack.name, "stack_id": stack.id, "tenant": stack.project_id,
            "path": ""}


def _timeout(args: Mapping[str, Any]) -> int | None:
    value = args.get("timeout_mins")
    return int(value) if value not in (None, "") else None


def _tags(args: Mapping[str, Any]) -> list[str]:
    tags = args.get("tags")
    if not tags:
        return []
    if isinstance(tags, str):
        return [t for t in tags.split(",") if t]
    return [str(t) for t in tags]


def _filter(views: list[dict[str, Any]], filters: Any) -> list[dict[str, Any]]:
    if not filters:
        return views
    out = []
    for view in views:
        keep = True
        for key, wanted in dict(filters).items():
            values = wanted if isinstance(wanted, list) else [wanted]
            if key in view and view[key] not in values:
                keep = False
        if keep:
            out.append(view)
    return out
