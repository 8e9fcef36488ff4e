"""Finding a request's stack and its current resources, as every engine-topic method does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.stack_rows import current_rows
from hotplate.model.errors import EntityNotFound, StackValidationFailed
from hotplate.model.ids import StackId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.template import merge_environments


def project_of(ctxt: Mapping[str, Any]) -> str:
    return str(ctxt.get("project_id") or ctxt.get("tenant_id") or ctxt.get("tenant") or "admin")


def identity_of(stack: StackRecord) -> dict[str, str]:
    return {"stack_name": stack.name, "stack_id": stack.id, "tenant": stack.project_id,
            "path": ""}


def request_environment(params: Mapping[str, Any] | None, files: Mapping[str, Any],
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


def reaches(ctxt: Mapping[str, Any], stack: StackRecord) -> bool:
    """Whether the caller may see the stack: an admin, its project's users, and (Heat's
    rule) its stack users, whose tokens are scoped to the stack's stack user project."""
    project = project_of(ctxt)
    return (bool(ctxt.get("is_admin")) or stack.project_id == project
            or (stack.stack_user_project_id is not None
                and stack.stack_user_project_id == project))


class StackLookups:
    """The stack named by a request, in the caller's project, and its visible resources."""

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

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
            stack = store.get_stack_by_name(project_of(ctxt), str(name))
        if stack is None or not reaches(ctxt, stack):
            raise EntityNotFound("Stack", str(name))
        return stack

    def _current_rows(self, stack: StackRecord, *,
                      data: bool = True) -> dict[str, ResourceRecord]:
        """One row per resource name: the template's, plus rows still being cleaned up
        (``data=False``: without their data, as a plain listing shows them)."""
        return current_rows(self._deps, stack, data=data)

    def _nested_stacks(self, stack: StackRecord, depth: int, *,
                       deleted: bool = False) -> list[tuple[StackRecord, int]]:
        """The stacks nested under ``stack``, down to ``depth`` levels, each with its level.

        Parents come before their children, in creation order, as Heat walks them.
        """
        found: list[tuple[StackRecord, int]] = []
        if depth <= 0:
            return found
        children = self._deps.store.list_child_stacks(stack.id, include_deleted=deleted)
        for child in children:
            found.append((child, 1))
            found.extend((grandchild, level + 1) for grandchild, level
                         in self._nested_stacks(child, depth - 1, deleted=deleted))
        return found
