"""The engine's side of ``NestedStacks``: child stacks through the engine's own RPC API.

A child is created, updated, deleted, suspended, resumed and checked by calls
on the engine topic, as heat-api would make them, so it converges like any stack, on whichever
engine takes the call. Its environment inherits the parent's
``parameter_defaults`` and ``resource_registry`` (minus the mappings onto the
child's own template, so a template that wraps the type it stands in for
does not recurse; its ``resources`` are what the parent's registry holds for
the resources under this one, ``resources.<this>.<child>``) and its files
are the parent's.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from typing import Any

from hotplate.convergence.node_plan import DEFAULT_TIMEOUT_MINS, time_remaining
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.adopt import child_adopt_request, visible_files, with_adopt_parameters
from hotplate.engine.hosting.attribute_reads import row_attribute
from hotplate.engine.stack_rows import current_rows
from hotplate.model.errors import (
    EntityNotFound,
    NotSupported,
    StackExists,
    StackValidationFailed,
)
from hotplate.model.ids import StackId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action
from hotplate.resources.nested import ChildMember, ChildState
from hotplate.rpc.topics import ENGINE_TOPIC

MAX_NESTED_DEPTH = 5
"""Heat's ``max_nested_stack_depth``: deeper nesting is refused (and ends recursion)."""


class EngineNestedStacks:
    def __init__(self, deps: EngineDeps, parent: StackRecord, resource_name: str,
                 template_name: str | None = None) -> None:
        self._deps = deps
        self._parent = parent
        self._resource_name = resource_name
        self._template_name = template_name

    # -- NestedStacks ------------------------------------------------------------------
    def create(self, name: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any], *, owned: bool = True,
               adopt_data: Mapping[str, Any] | None = None,
               registry: Mapping[str, str] | None = None) -> str:
        parent = self._parent
        depth = parent.nested_depth + 1
        if owned and depth > MAX_NESTED_DEPTH:
            raise StackValidationFailed(f"Recursion depth exceeds {MAX_NESTED_DEPTH}.")
        env, args = self._environment(parameters, registry), self._args()
        if adopt_data is not None:
            args["adopt_stack_data"] = child_adopt_request(adopt_data, template, env)
            env = with_adopt_parameters(env, adopt_data)
        kwargs: dict[str, Any] = {
            "stack_name": name, "template": template, "params": env,
            "files": self._files(), "args": args,
        }
        if owned:
            kwargs |= {"owner_id": str(parent.id), "nested_depth": depth,
                       "parent_resource_name": self._resource_name,
                       "user_creds_id": parent.user_creds_id,
                       "stack_user_project_id": parent.stack_user_project_id}
        else:  # a stack of its own in this region acts as its parent does
            kwargs["user_creds_id"] = self._deps.credentials.creds_id_of(parent)
        try:
            identity = self._call("create_stack", with_trust=not owned, **kwargs)
        except StackExists:
            # A retry of this very resource (the name carries the row's own id).
            identity = self._call("identify_stack", stack_name=name)
        return str(identity["stack_id"])

    def update(self, stack_id: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any], *, outside_traversal: bool = False,
               registry: Mapping[str, str] | None = None) -> None:
        args = self._args(outside_traversal=outside_traversal)
        if self._converges(stack_id, outside_traversal):
            args["converge"] = True
        child = self._child(stack_id)
        self._call("update_stack", stack_identity=stack_id, template=template,
                   params=self._environment(parameters, registry), files=self._files(),
                   args=args, with_trust=child is not None and child.owner_id is None)

    def delete(self, stack_id: str) -> None:
        with contextlib.suppress(EntityNotFound):
            self._call("delete_stack", stack_identity=stack_id)

    def cancel(self, stack_id: str) -> None:
        with contextlib.suppress(EntityNotFound, NotSupported):
            self._call("stack_cancel_update", stack_identity=stack_id,
                       cancel_with_rollback=False)

    def stack_action(self, stack_id: str, action: str) -> None:
        if action not in ("SUSPEND", "RESUME", "CHECK"):
            raise ValueError(f"not a stack action: {action!r}")
        self._call(f"stack_{action.lower()}", stack_identity=stack_id)

    def snapshot(self, stack_id: str) -> str:
        return str(self._call("stack_snapshot", stack_identity=stack_id, name=None)["id"])

    def snapshot_show(self, stack_id: str, snapshot_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._call("show_snapshot", stack_identity=stack_id,
                                           snapshot_id=snapshot_id)
        return found

    def inherited(self, parameters: Mapping[str, Any]) -> dict[str, Any]:
        return {"files": self._files(), "environment": self._environment(parameters),
                "disable_rollback": bool(self._parent.disable_rollback)}

    def state(self, stack_id: str) -> ChildState | None:
        stack = self._deps.store.get_stack(StackId(stack_id), include_deleted=True)
        if stack is None:
            return None
        return ChildState(str(stack.action), str(stack.status), stack.status_reason or "")

    def outputs(self, stack_id: str) -> dict[str, Any]:
        shown = self._call("show_stack", stack_identity=stack_id, resolve_outputs=True)
        view = shown[0] if isinstance(shown, list) else shown
        return {o["output_key"]: o.get("output_value") for o in view.get("outputs") or []}

    def identity(self, stack_id: str) -> dict[str, str]:
        found: dict[str, str] = self._call("identify_stack", stack_name=stack_id)
        return found

    def template(self, stack_id: str) -> Mapping[str, Any]:
        stack = self._child(stack_id)
        if stack is None:
            return {}
        return self._deps.caches.template(stack.raw_template_id).raw

    def members(self, stack_id: str) -> list[ChildMember]:
        # row_plugins builds this port, so it is imported late
        from hotplate.engine.hosting.row_plugins import row_instance

        stack = self._child(stack_id)
        if stack is None:
            return []
        members = []
        for name, row in self._rows(stack).items():
            reference = None
            if row.action is not Action.INIT:
                try:
                    reference = row_instance(self._deps, row, stack).get_reference_id()
                except Exception:  # a member whose type is gone still counts
                    reference = row.physical_resource_id
            members.append(ChildMember(name, row.resource_type, str(row.action),
                                       str(row.status), reference, row.created_at))
        return members

    def member_attribute(self, stack_id: str, name: str, attribute: str) -> Any:
        from hotplate.engine.hosting.row_plugins import row_instance

        stack = self._child(stack_id)
        row = self._rows(stack).get(name) if stack is not None else None
        if stack is None or row is None or row.action is Action.INIT:
            return None
        return row_attribute(row, attribute, lambda: row_instance(self._deps, row, stack))

    # -- helpers -----------------------------------------------------------------------
    def _converges(self, stack_id: str, outside_traversal: bool) -> bool:
        """Whether the child's update converges: the parent's does, and the child is
        nested in it (Heat's StackResource passes ``converge`` on; a stack of its own,
        OS::Heat::Stack's, is updated as Heat's RemoteStack updates it, without)."""
        if outside_traversal or not self._deps.caches.graph(
                self._parent.id, self._parent.current_traversal).converge:
            return False
        child = self._child(stack_id)
        return child is not None and child.owner_id is not None

    def _child(self, stack_id: str) -> StackRecord | None:
        return self._deps.store.get_stack(StackId(stack_id))

    def _rows(self, stack: StackRecord) -> dict[str, ResourceRecord]:
        return current_rows(self._deps, stack)

    def _call(self, method: str, *, with_trust: bool = False, **kwargs: Any) -> Any:
        """Call the engine as the parent's owner. ``with_trust``: for a stack of its own
        (OS::Heat::Stack in this region), whose template the engine checks against the
        catalog the stack will act in: the parent's trust goes with the call."""
        parent = self._parent
        ctxt: dict[str, Any] = {
            "project_id": parent.project_id, "tenant_id": parent.project_id,
            "user_id": parent.user_id, "username": parent.username, "is_admin": False}
        if with_trust:
            trust = self._deps.credentials.credentials_of(parent)
            if trust is not None:  # its types checked against the catalog it acts in
                ctxt["trust_id"] = trust.trust_id
        return self._deps.transport.call(ctxt, ENGINE_TOPIC, method, kwargs)

    def _loaded(self) -> Any:
        return self._deps.caches.template(self._parent.raw_template_id)

    def _files(self) -> dict[str, Any]:
        """The parent's files; during an update, the previous template's too, as Heat
        gives a rolling update's child (members keeping their old definition may
        still name a file the new request no longer sends)."""
        files = visible_files(self._loaded().files)
        previous = self._parent.prev_raw_template_id
        if previous is None or self._parent.action is not Action.UPDATE:
            return files
        try:
            old = visible_files(self._deps.caches.template(previous).files)
        except EntityNotFound:
            return files
        return {**old, **files}

    def _environment(self, parameters: Mapping[str, Any],
                     added: Mapping[str, str] | None = None) -> dict[str, Any]:
        env = self._loaded().env.to_dict()
        registry = dict(env.get("resource_registry") or {})
        if self._template_name is not None:
            registry = {key: target for key, target in registry.items()
                        if target != self._template_name}
        registry.pop("resources", None)
        inherited = self._loaded().env.resource_registry.child_resources(self._resource_name)
        if inherited:  # resources.<this>.<child> entries, as Heat's child environment
            registry["resources"] = inherited
        registry.update(added or {})
        child = {"parameters": dict(parameters),
                 "parameter_defaults": env.get("parameter_defaults") or {},
                 "resource_registry": registry}
        if env.get("event_sinks"):  # as Heat's child environment: the parent's sinks too
            child["event_sinks"] = env["event_sinks"]
        return child

    def _args(self, *, outside_traversal: bool = False) -> dict[str, Any]:
        left = time_remaining(self._parent, self._deps.clock.now())
        if outside_traversal:
            left = (self._parent.timeout_mins or DEFAULT_TIMEOUT_MINS) * 60
        args: dict[str, Any] = {"disable_rollback": True}
        if left is not None:
            args["timeout_mins"] = max(1, math.ceil(left / 60))
        return args
