"""What a node's operation works on and leaves behind, shared by check_resource and the ops.

Kept apart from ``resource_ops`` so that the operations module holds only
the operations, and so that other whole-resource actions (stack_actions)
word failures the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hotplate.model.errors import (
    PropertyError,
    StackValidationFailed,
    UpdateReplace,
    heat_path,
)
from hotplate.model.ids import TemplateId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord, SyncReport
from hotplate.model.states import Action
from hotplate.resources.base import Resource
from hotplate.resources.nested import NestedStackFailed


class LockLost(Exception):
    """The row was locked or changed by someone else before we could take it."""


@dataclass(frozen=True, slots=True)
class NodeWork:
    row: ResourceRecord
    stack: StackRecord
    traversal_id: TraversalId
    is_update: bool
    input_data: dict[str, Any] = field(default_factory=dict)
    held: bool = False
    """``row`` and ``stack`` were not read by this node but handed to it (row_memory.py,
    a batch's read): a lost compare-and-swap is decided again from a fresh read."""

    @property
    def template_id(self) -> TemplateId:
        return self.stack.raw_template_id


Reporter = Callable[[ResourceRecord, Mapping[str, Any] | None], list[SyncReport]]
"""Given the finished row and its node data, the reports to make onward."""


def failure_text(exc: BaseException, name: str) -> str:
    """Heat's ResourceFailure text: ``<Type>: resources.<name>: <message>``.

    A property the schema refuses as the resource is made is Heat's Property
    error, its path starting at the resource's ``Properties`` section.
    """
    section = _properties_path(exc, name)
    if section is not None:
        assert isinstance(exc, PropertyError)
        return (f"StackValidationFailed: resources.{name}: Property error: "
                f"{heat_path(section)}: {exc.detail}")
    if isinstance(exc, StackValidationFailed) and exc.path:
        return f"{type(exc).__name__}: {exc}"
    if isinstance(exc, NestedStackFailed):
        return exc.text_for(name)
    return f"{type(exc).__name__}: resources.{name}: {exc}"


def stack_failure_text(exc: BaseException, name: str, action: Action, text: str) -> str:
    """What the stack's reason says of resource ``name``'s failure ``text``.

    The same words, but for a Property error met by a create: Heat's create
    words it again for the stack from its parts, the resource's name then
    leading the property's path (``resources.x: Property error:
    x.Properties.length: ...``).
    """
    section = _properties_path(exc, name)
    if section is None or action is not Action.CREATE:
        return text
    assert isinstance(exc, PropertyError)
    return (f"StackValidationFailed: resources.{name}: Property error: "
            f"{heat_path((name, *section))}: {exc.detail}")


def _properties_path(exc: BaseException, name: str) -> tuple[str | int, ...] | None:
    if not isinstance(exc, PropertyError):
        return None
    head = ("resources", name, "properties")
    if exc.path[:len(head)] != head:
        return None
    return ("Properties", *exc.path[len(head):])


def replace_reason(cls: type[Resource], row: ResourceRecord, stack: StackRecord,
                   old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """Heat's UpdateReplace text for a change that needs a new resource.

    A change to a property that cannot be updated names the resource; one
    that the type's ``needs_replace_with_prop_diff`` asks to replace names it
    as Heat prints a resource (``TestResource "a" [<physical id>] Stack "s"
    [<id>]``), as Heat checks that first and raises it with the resource.
    """
    changed = frozenset(cls.property_diff(old, new))
    if not (changed and cls.needs_replace_with_prop_diff(changed, new, old)):
        return str(UpdateReplace(row.name))
    physical = f" [{row.physical_resource_id}]" if row.physical_resource_id else ""
    subject = f'{cls.__name__} "{row.name}"{physical} Stack "{stack.name}" [{stack.id}]'
    return str(UpdateReplace(subject))
