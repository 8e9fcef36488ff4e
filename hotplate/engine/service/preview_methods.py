"""The engine topic's dry runs: ``preview_stack``, ``preview_update_stack`` (Heat's) and
``plan_update_stack`` (hotplate's own: the update's plan with each property's change).

Each validates its request as the real create or update would, and stores nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine.service.lookups import StackLookups, project_of, request_environment
from hotplate.engine.service.preview_create import preview_create
from hotplate.engine.service.preview_update import NO_ID, plan_update, preview_update
from hotplate.engine.service.type_access import TypeAccess
from hotplate.engine.service.validation import located_in, validate_stack_request
from hotplate.model.errors import StackExists
from hotplate.model.records import StackRecord
from hotplate.template import Template


class PreviewMethods(StackLookups):
    PREVIEW_METHODS = frozenset({"preview_stack", "preview_update_stack", "plan_update_stack"})

    def _access(self, ctxt: Mapping[str, Any], *, nested: bool = False) -> TypeAccess | None:
        """The caller's gates (policy, catalog) for a request; none for the engine's own
        nested stacks, whose whole tree the root's request validated."""
        return None if nested else TypeAccess.for_context(ctxt, self._deps.clouds)

    def preview_stack(
        self, ctxt: Mapping[str, Any], stack_name: str, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
    ) -> dict[str, Any]:
        """The stack a create would build, validated as a create is; nothing is stored."""
        deps = self._deps
        args = dict(args or {})
        project = project_of(ctxt)
        if deps.store.get_stack_by_name(project, stack_name) is not None:
            raise StackExists(stack_name)
        env = request_environment(params, files or {}, environment_files)
        with located_in(template):
            parsed = validate_stack_request(deps, template, env, files or {},
                                            stack_name=stack_name,
                                            access=self._access(ctxt))
        identity = {"stack_name": stack_name, "stack_id": NO_ID, "tenant": project, "path": ""}
        stack_keys = {
            "disable_rollback": bool(args.get("disable_rollback", True)),
            "timeout_mins": timeout_of(args),
            "stack_owner": str(ctxt.get("username") or ctxt.get("user") or ""),
            "parent": None,
            "stack_user_project_id": project,
            "tags": tags_of(args) or None,
        }
        return preview_create(deps, parsed, env, files or {}, identity=identity,
                              stack=stack_keys)

    def preview_update_stack(
        self, ctxt: Mapping[str, Any], stack_identity: Any, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """What an update would add, delete, replace, update or leave; nothing is stored.

        ``args['show_nested']`` adds the resources of the nested stacks the update
        would touch, each with its ``parent_resource``, as Heat's does.
        """
        stack, parsed, env = self._update_request(ctxt, stack_identity, template, params,
                                                  files, environment_files)
        with located_in(template):
            return preview_update(self._deps, stack, parsed, env, files or {},
                                  self._current_rows(stack),
                                  show_nested=bool((args or {}).get("show_nested")))

    def plan_update_stack(
        self, ctxt: Mapping[str, Any], stack_identity: Any, template: Any, params: Any,
        files: Any, args: Any, environment_files: Any = None, files_container: Any = None,
    ) -> dict[str, Any]:
        """hotplate's own: ``preview_update_stack``'s answer as ``resource_changes``, and
        beside it ``resource_changes_detail``, each resource with its changed properties
        (hidden values shown as ``<hidden>``) and its nested stack's resources under it.
        Heat's API never asks for it, so Heat's answer keeps its shape."""
        stack, parsed, env = self._update_request(ctxt, stack_identity, template, params,
                                                  files, environment_files)
        with located_in(template):
            plan = plan_update(self._deps, stack, parsed, env, files or {},
                               self._current_rows(stack),
                               show_nested=bool((args or {}).get("show_nested")))
        return {"resource_changes": plan.changes, "resource_changes_detail": plan.detail}

    def _update_request(self, ctxt: Mapping[str, Any], stack_identity: Any, template: Any,
                        params: Any, files: Any, environment_files: Any,
                        ) -> tuple[StackRecord, Template, dict[str, Any]]:
        """The stack an update preview reads, and its new template, validated as an
        update's is."""
        stack = self._get_stack(ctxt, stack_identity)
        env = request_environment(params, files or {}, environment_files)
        with located_in(template):
            parsed = validate_stack_request(self._deps, template, env, files or {},
                                            stack_name=stack.name,
                                            access=self._access(
                                                ctxt, nested=stack.owner_id is not None))
        return stack, parsed, env


def timeout_of(args: Mapping[str, Any]) -> int | None:
    value = args.get("timeout_mins")
    return int(value) if value not in (None, "") else None


def tags_of(args: Mapping[str, Any]) -> list[str]:
    tags = args.get("tags")
    if not tags:
        return []
    if isinstance(tags, str):
        return [t for t in tags.split(",") if t]
    return [str(t) for t in tags]
