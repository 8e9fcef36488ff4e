"""StackResource: a resource whose physical form is a child stack.

Create, update, delete and adopt (and suspend, resume and check, as Heat's
StackResource does) start the matching operation on the child through the
context's ``nested_stacks()`` port and then poll the child's state, so
the parent's worker holds no thread of the child's and a child that fails
fails its parent resource with the child's own reason. Attributes are the
child's outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.base import Resource
from hotplate.resources.nested import ChildState, NestedStackFailed, NestedStacks

__all__ = ["StackResource"]

OWNED = True


class StackResource(Resource):
    """A resource implemented by a nested stack."""

    owned: bool = OWNED
    """False for a stack that lives on its own (``OS::Heat::Stack``), as in Heat."""
    always_updates = True

    # -- what subclasses supply -------------------------------------------------------
    def child_template(self) -> Mapping[str, Any] | str:
        raise NotImplementedError

    def child_parameters(self) -> dict[str, Any]:
        raise NotImplementedError

    def child_registry(self) -> dict[str, str]:
        """Type mappings the child's environment adds to the registry it inherits
        (Heat's ``child_params`` with a ``resource_registry``): an instance group
        maps its members' ``OS::Heat::ScaledResource`` to ``AWS::EC2::Instance``,
        so whatever the parent maps that to makes the members. None by default."""
        return {}

    def _registry_argument(self) -> dict[str, Any]:
        """The port's ``registry`` argument, given only when there is one to give."""
        registry = self.child_registry()
        return {"registry": registry} if registry else {}

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The child template to validate with the parent, before anything is created;
        None: nothing to validate beyond the properties."""
        return None

    def preview_child(self) -> tuple[Mapping[str, Any] | str, dict[str, Any]] | None:
        """The child template and parameters an update to these properties would send,
        for a preview of the update: the context keeps no writes, and nothing may be
        created, updated or deleted here. None: no nested stack of this stack's own to
        show (``owned`` False), as Heat's preview shows a remote stack as one resource."""
        if not self.owned:
            return None
        return self.child_template(), self.child_parameters()

    # -- the port ---------------------------------------------------------------------
    def _stacks(self) -> NestedStacks:
        nested = getattr(self.ctx, "nested_stacks", None)
        if nested is None:
            raise RuntimeError("this engine context cannot create nested stacks")
        port: NestedStacks = nested()
        return port

    def _child_state(self) -> ChildState | None:
        if self.resource_id is None:
            return None
        return self._stacks().state(str(self.resource_id))

    def _done(self, action: str) -> bool:
        state = self._child_state()
        if state is None:
            raise NestedStackFailed(f"Stack {self.resource_id} not found", action)
        if state.status == "FAILED":
            raise NestedStackFailed(state.reason, action)
        return (state.action, state.status) == (action, "COMPLETE")

    def wake_key(self) -> str | None:
        """The child stack: its traversal's end re-checks this action."""
        return str(self.resource_id) if self.resource_id is not None else None

    def apply_child_template(self, template: Mapping[str, Any] | str) -> str:
        """Create the child with ``template``, or update it to it; the action to wait for."""
        if self.resource_id is None:
            stack_id = self._stacks().create(self.physical_resource_name(), template,
                                             self.child_parameters(), owned=self.owned,
                                             **self._registry_argument())
            self.resource_id_set(stack_id)
            return "CREATE"
        self._stacks().update(str(self.resource_id), template, self.child_parameters(),
                              **self._registry_argument())
        return "UPDATE"

    def child_done(self, action: str) -> bool:
        """Whether the child finished ``action``; raises NestedStackFailed if it failed."""
        return self._done(action)

    # -- handlers ---------------------------------------------------------------------
    def handle_create(self) -> Any:
        stack_id = self._stacks().create(self.physical_resource_name(), self.child_template(),
                                         self.child_parameters(), owned=self.owned,
                                         **self._registry_argument())
        self.resource_id_set(stack_id)
        return stack_id

    def check_create_complete(self, data: Any) -> bool:
        return self._done("CREATE")

    def adopt_child(self, entry: Mapping[str, Any]) -> Any:
        """Start adopting the child: built from ``child_template()`` as a create would
        be, its resources taken over as ``entry`` (this resource's entry in the adopt
        document: its ``resources``, and maybe ``environment`` and ``template``) says.

        The hook ``handle_adopt(entry)`` of a type that adopts through its child
        (Heat's TemplateResource and ResourceGroup) calls this; a type without
        the hook is adopted as any resource is, by its entry's ``resource_id``.
        """
        stack_id = self._stacks().create(self.physical_resource_name(), self.child_template(),
                                         self.child_parameters(), owned=self.owned,
                                         adopt_data=entry, **self._registry_argument())
        self.resource_id_set(stack_id)
        return stack_id

    def check_adopt_complete(self, data: Any) -> bool:
        return self._done("ADOPT")

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        super().handle_update(new_properties, prop_diff)
        if self.resource_id is None:
            return self.handle_create()
        self._stacks().update(str(self.resource_id), self.child_template(),
                              self.child_parameters(), **self._registry_argument())
        return None

    def check_update_complete(self, data: Any) -> bool:
        return self._done("UPDATE")

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            self._stacks().delete(str(self.resource_id))
        return None

    def handle_suspend(self) -> None:
        self._child_action("SUSPEND")

    def check_suspend_complete(self, data: Any) -> bool:
        return self._done("SUSPEND")

    def handle_resume(self) -> None:
        self._child_action("RESUME")

    def check_resume_complete(self, data: Any) -> bool:
        return self._done("RESUME")

    def handle_check(self) -> None:
        self._child_action("CHECK")

    def check_check_complete(self, data: Any) -> bool:
        return self._done("CHECK")

    def _child_action(self, action: str) -> None:
        """Start the whole-stack ``action`` on the child (Heat's texts when there is none);
        the walk then waits, parked, until the child's own walk ends and wakes it."""
        if self.resource_id is None:
            raise Exception(f"Cannot {action.lower()} {self.name}, stack not created")
        self._stacks().stack_action(str(self.resource_id), action)

    def handle_preempt(self) -> None:
        """Cancel the child's running update (without rollback), as Heat does, so the
        older traversal's action ends and the newer one can update the child."""
        if self.resource_id is not None:
            self._stacks().cancel(str(self.resource_id))

    def check_delete_complete(self, data: Any) -> bool:
        state = self._child_state()
        if state is None or (state.action, state.status) == ("DELETE", "COMPLETE"):
            return True
        if (state.action, state.status) == ("DELETE", "FAILED"):
            raise NestedStackFailed(state.reason, "DELETE")
        return False

    # -- attributes -------------------------------------------------------------------
    def child_outputs(self) -> dict[str, Any]:
        if self.resource_id is None:
            return {}
        return self._stacks().outputs(str(self.resource_id))
