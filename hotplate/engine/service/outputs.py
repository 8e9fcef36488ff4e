"""Stack outputs, resolved on read from what the resources stored.

Attributes that dependants or outputs reference are stored when a resource
completes (attr_data), so showing a stack does not call plugins for them;
reference ids come from the plugin, which knows its own.
"""

from __future__ import annotations

import logging
from typing import Any

from hotplate.engine.cache import pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_instance
from hotplate.engine.views import visible_rows
from hotplate.model.nodes import path_key
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action

LOG = logging.getLogger(__name__)


class _RowsContext:
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
        if row.attr_data and attribute in row.attr_data:
            return row.attr_data[attribute]
        instance = self._instance(name)
        return instance.get_attribute(attribute) if instance is not None else None


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


class OutputResolver:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def parameters(self, stack: StackRecord) -> dict[str, Any]:
        pseudo = pseudo_parameters(stack)
        try:
            return self._deps.caches.parameters(stack.raw_template_id, stack.id, pseudo)
        except Exception:
            LOG.exception("stack %s: parameters unavailable", stack.id)
            return dict(pseudo)

    def resolve_all(self, stack: StackRecord) -> list[dict[str, Any]]:
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        if not template.outputs:
            return []
        rows = visible_rows(self._deps.store.list_resources(stack.id), list(template.resources),
                            stack.raw_template_id, stack.prev_raw_template_id)
        ctx = _RowsContext(self._deps, stack, self.parameters(stack), rows)
        views = []
        for name, out in template.outputs.items():
            view: dict[str, Any] = {"output_key": name, "description": out.description}
            try:
                view["output_value"] = out.resolve(ctx)
            except Exception as exc:
                view["output_value"] = None
                view["output_error"] = str(exc)
            views.append(view)
        return views
