"""What a stack-backed resource may ask of the engine: its own child stacks, nothing more.

A template resource (a type mapped to a template file) or ``OS::Heat::Stack``
is a resource whose physical form is another stack. The plugin never sees
the engine; through its context it gets this narrow port, which the engine
implements over its RPC API, so the child stack converges like any other
(on any engine, with its own traversal, events and locks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

__all__ = ["ChildMember", "ChildState", "NestedStackFailed", "NestedStacks"]


@dataclass(frozen=True, slots=True)
class ChildState:
    action: str
    status: str
    reason: str


@dataclass(frozen=True, slots=True)
class ChildMember:
    """One resource of a child stack, as a group sees its members."""

    name: str
    type: str
    action: str
    status: str
    reference_id: str | None
    created_at: datetime | None = None
    """When its row was made: a scaling group orders its members by it, as Heat's."""


class NestedStacks(Protocol):
    def create(self, name: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any],
               *, owned: bool = True, adopt_data: Mapping[str, Any] | None = None,
               registry: Mapping[str, str] | None = None) -> str:
        """Start creating a child stack; its id. ``owned``: listed under its parent
        (nested_depth + 1, hidden from plain stack lists), else a stack of its own.
        ``registry``: type mappings added to the environment the child inherits.

        ``adopt_data``: the child is adopted rather than created, its resources
        taken over as this abandon document (the parent's entry for the
        resource) describes them; the child's template stays ``template``.
        """
        ...

    def update(self, stack_id: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any], *, outside_traversal: bool = False,
               registry: Mapping[str, str] | None = None) -> None:
        """Start updating the child to a new template and parameters (``registry``:
        as for ``create``).

        ``outside_traversal``: the parent is not converging (a scaling group
        resized by a signal), so the child gets the parent's whole timeout
        rather than what is left of the parent's traversal.
        """
        ...

    def delete(self, stack_id: str) -> None:
        """Start deleting the child; nothing if it is already gone."""
        ...

    def cancel(self, stack_id: str) -> None:
        """Stop the child's running update (and its own children's), no rollback;
        nothing if it is not updating."""
        ...

    def stack_action(self, stack_id: str, action: str) -> None:
        """Start suspending, resuming or checking the child (``action``: ``SUSPEND``,
        ``RESUME`` or ``CHECK``); nothing for a child already suspended (or resumed)."""
        ...

    def inherited(self, parameters: Mapping[str, Any]) -> dict[str, Any]:
        """What a child given ``parameters`` inherits from its parent, for a stack made
        elsewhere (another region's Heat): ``files`` (the parent's), ``environment``
        (the parameters, the parent's ``parameter_defaults``, ``resource_registry`` and
        ``event_sinks``) and ``disable_rollback`` (the parent's)."""
        ...

    def state(self, stack_id: str) -> ChildState | None:
        """The child's action, status and reason; None once it is gone for good."""
        ...

    def outputs(self, stack_id: str) -> dict[str, Any]:
        """The child's resolved outputs, by key."""
        ...

    def identity(self, stack_id: str) -> dict[str, str]:
        """The child's identity (stack_name, stack_id, tenant, path)."""
        ...

    def template(self, stack_id: str) -> Mapping[str, Any]:
        """The child's current template, as it was last given."""
        ...

    def members(self, stack_id: str) -> list[ChildMember]:
        """The child's current resources (one per name), in template order."""
        ...

    def member_attribute(self, stack_id: str, name: str, attribute: str) -> Any:
        """Attribute ``attribute`` of the child's resource ``name`` (None if unknown)."""
        ...

    def snapshot(self, stack_id: str) -> str:
        """Start a snapshot of the stack; the snapshot's id."""
        ...

    def snapshot_show(self, stack_id: str, snapshot_id: str) -> dict[str, Any]:
        """The stack's snapshot as the API shows it (``status``, ``data``...)."""
        ...


class NestedStackFailed(Exception):
    """The child stack ended FAILED; keeps the child's reason for the parent's.

    Heat words the parent resource's reason from the child's: a child reason
    ``Resource CREATE failed: ValueError: resources.b: boom`` becomes, on the
    parent resource ``a``, ``ValueError: resources.a.resources.b: boom``.
    """

    def __init__(self, reason: str, action: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.action = action

    def text_for(self, resource_name: str) -> str:
        prefix = f"Resource {self.action} failed: "
        if self.reason.startswith(prefix):
            detail = self.reason[len(prefix):]
            error, sep, rest = detail.partition(": resources.")
            if sep and " " not in error:
                return f"{error}: resources.{resource_name}.resources.{rest}"
        return f"Error: resources.{resource_name}: {self.reason}"
