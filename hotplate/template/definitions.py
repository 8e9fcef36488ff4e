"""Parsed resources and outputs: what the engine asks of one resource or output.

Each definition holds its own parsed trees; resolving one resource's
properties walks that resource's tree and nothing else, and what it depends
on was worked out once, at parse time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.context import ResolveContext
from hotplate.template.functions import Node, Static, truth
from hotplate.template.functions.base import present
from hotplate.template.spelling import HOT_SPELLING, Spelling

DEFAULT_OUTPUT_DESCRIPTION = "No description given"

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True, eq=False)
class ResourceDefinition:
    """One entry of the ``resources`` section.

    ``condition`` is kept as written (a condition name, a boolean, or a
    condition function's data) for when conditions are evaluated per stack.
    """

    name: str
    type: str
    depends_on: tuple[str, ...] = ()
    deletion_policy: str = "Delete"
    update_policy: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    description: str = ""
    external_id: str | None = None
    condition: Any = None
    properties_node: Node = field(default=Static({}), repr=False)
    metadata_node: Node = field(default=Static({}), repr=False)
    required: frozenset[str] = frozenset()
    reads: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)
    """``(resource, attribute)`` pairs read with get_attr."""
    spelling: Spelling = field(default=HOT_SPELLING, repr=False)
    """The template format's names, for error paths (``Resources.web.Properties``)."""

    def references(self) -> frozenset[str]:
        """Every resource this one needs first: depends_on, get_resource and get_attr targets.

        Resources left out by a false condition are not needed and not listed.
        """
        return self.required

    def resolve_properties(self, ctx: ResolveContext) -> dict[str, Any]:
        """The properties with every function resolved (a fresh dict)."""
        return self._mapping(self.properties_node.resolve(ctx), self.spelling.properties)

    def resolve_metadata(self, ctx: ResolveContext) -> dict[str, Any]:
        """The metadata with every function resolved (a fresh dict)."""
        return self._mapping(self.metadata_node.resolve(ctx), self.spelling.metadata)

    def _mapping(self, value: Any, key: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise StackValidationFailed(
                f"Resource {self.name} {key} type must be object",
                (self.spelling.resources, self.name, key),
            )
        return value


@dataclass(frozen=True, slots=True, eq=False)
class OutputDefinition:
    """One entry of the ``outputs`` section."""

    name: str
    description: str = DEFAULT_OUTPUT_DESCRIPTION
    condition: Any = None
    enabled: bool = True
    """False when ``condition`` is plainly false: the output's value is None."""
    value_node: Node = field(default=Static(None), repr=False)
    required: frozenset[str] = frozenset()
    reads: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False)
    condition_node: Node | None = field(default=None, repr=False)
    """The condition, when only parameter values decide it (evaluated on resolve)."""
    conditions: Any = field(default=None, repr=False)
    spelling: Spelling = field(default=HOT_SPELLING, repr=False)

    def resolve(self, ctx: ResolveContext) -> Any:
        """The output's value now (None when its condition is false)."""
        if not self.enabled:
            return None
        if self.condition_node is not None:
            value = self.condition_node.resolve(ctx)
            path = (self.spelling.outputs, self.name, self.spelling.condition)
            if not truth(value, self.conditions, ctx, path):
                return None
        # A nullable ``if`` that leaves out the whole value leaves None (Heat's
        # resolve at the top of a snippet is not nullable).
        return present(self.value_node.resolve(ctx))

    def references(self) -> frozenset[str]:
        """The resources whose results the value reads."""
        return self.required
