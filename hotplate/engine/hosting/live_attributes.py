"""Attributes a dependant reads from the resource itself: names known only when resolving.

A finished resource passes on the attributes its dependants name
(``Template.attributes_referenced``), computed before it runs. A name
computed from another resource's attribute (``get_attr: [a, {get_attr:
[b, name]}]``) cannot be in that list: ``b`` may finish after ``a``, and
its value may change in an update that leaves ``a`` alone. The dependant
runs after both, so it reads that attribute of ``a`` here, from the row
that ``a``'s node data names (a replacement's, after a replace), as
outputs read attributes: the stored ones first, else the plugin.
"""

from __future__ import annotations

from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.rows_context import RowsContext
from hotplate.model.ids import ResourceId
from hotplate.model.records import ResourceRecord, StackRecord

__all__ = ["LiveAttributes"]


class LiveAttributes:
    """Reads of the resources named in ``names``, each row loaded once, on first use."""

    def __init__(self, deps: EngineDeps, stack: StackRecord, params: dict[str, Any],
                 names: frozenset[str]) -> None:
        self.names = names
        self._deps = deps
        self._rows: dict[str, ResourceRecord] = {}
        # The context reads the dict it is given, so rows loaded later are seen.
        self._rows_context = RowsContext(deps, stack, params, self._rows)

    def _loaded(self, name: str, resource_id: ResourceId) -> bool:
        if name not in self._rows:
            row = self._deps.store.get_resource(resource_id)
            if row is None:
                return False
            self._rows[name] = row
        return True

    def attribute(self, name: str, resource_id: ResourceId, attribute: str) -> Any:
        """Attribute ``attribute`` of the row; an unknown name raises as a literal one
        does (InvalidTemplateAttribute, "The Referenced Attribute (a x) is incorrect.")."""
        if not self._loaded(name, resource_id):
            return None
        return self._rows_context.resource_attribute(name, attribute)

    def attribute_path(self, name: str, resource_id: ResourceId, attribute: str,
                       path: tuple[Any, ...]) -> tuple[bool, Any]:
        """The value at ``path``, for the types that resolve paths themselves."""
        if not self._loaded(name, resource_id):
            return False, None
        return self._rows_context.resource_attribute_path(name, attribute, path)
