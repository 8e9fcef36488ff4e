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
from hotplate.engine.hosting.rows_context import RowsContext
from hotplate.engine.views import visible_rows
from hotplate.model.records import StackRecord

LOG = logging.getLogger(__name__)


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
        ctx = RowsContext(self._deps, stack, self.parameters(stack), rows)
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
