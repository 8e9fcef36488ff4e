"""Template functions resolved against a stack's current rows, as they stand now.

Outputs are resolved on read this way, and so is the metadata a signal makes
other resources refresh: attributes that dependants or outputs reference are
stored when a resource completes (attr_data), so this calls no plugin for
them; reference ids come from the plugin, which knows its own.
"""

from __future__ import annotations

from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.attribute_reads import row_attribute
from hotplate.engine.hosting.row_plugins import row_instance
from hotplate.model.nodes import path_key
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action

__all__ = ["RowsContext"]


class RowsContext:
    def __init__(self, deps: EngineDeps, stack: StackRecord, params: dict[str, Any],
                 rows: dict[str, ResourceRecord]) -> None:
        self._deps = deps
        self._stack = stack
        self._params = params
        self._rows = rows

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def _instance(self, name: str) -> Any:
        row = self._rows.get(name)
        if row is None or row.action is Action.INIT:
            return None
        return row_instance(self._deps, row, self._stack)

    def resource_reference(self, name: str) -> str | None:
        instance = self._instance(name)
        return instance.get_reference_id() if instance is not None else None

    def resource_attribute(self, name: str, attribute: str) -> Any:
        row = self._rows.get(name)
        if row is None:
            return None
        return row_attribute(row, attribute, lambda: self._instance(name))


    def resource_attribute_path(self, name: str, attribute: str, path: tuple[Any, ...]
                                ) -> tuple[bool, Any]:
        """Types that resolve paths themselves answer here; others say not found."""
        row = self._rows.get(name)
        if row is None:
            return False, None
        key = path_key(attribute, path)
        if row.attr_data and key in row.attr_data:
            return True, row.attr_data[key]
        instance = self._instance(name)
        if instance is None or not instance.path_attributes:
            return False, None
        return True, instance.get_attribute_path(attribute, path)
