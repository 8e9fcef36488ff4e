"""Engine-topic methods about one stack's resources: list, show, mark unhealthy, signal.

Part of ``EngineService``; Heat's method names and arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine import resource_actions
from hotplate.engine.errors import ResourceNotAvailable, ResourceNotFound
from hotplate.engine.lookups import StackLookups
from hotplate.engine.nested import MAX_NESTED_DEPTH
from hotplate.engine.views import format_resource
from hotplate.model.records import StackRecord


class ResourceMethods(StackLookups):
    RESOURCE_METHODS = frozenset({
        "list_stack_resources", "describe_stack_resource", "resource_mark_unhealthy",
        "resource_signal",
    })

    def list_stack_resources(self, ctxt: Mapping[str, Any], stack_identity: Any,
                             nested_depth: int = 0, with_detail: bool = False,
                             filters: Any = None) -> list[dict[str, Any]]:
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        depth = max(0, min(int(nested_depth or 0), MAX_NESTED_DEPTH))
        return _filter(self._resource_views(stack, with_detail, depth), filters)

    def _resource_views(self, stack: StackRecord, with_detail: bool,
                        depth: int) -> list[dict[str, Any]]:
        """The stack's resources, each followed by its nested stack's, ``depth`` levels down."""
        rows = self._current_rows(stack)
        graph = self._deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
        children = {str(child.id): child for child, _ in self._nested_stacks(stack, 1)
                    } if depth > 0 else {}
        views = []
        for name, row in rows.items():
            required_by = graph.required_by(name) if name in graph.nodes else ()
            view = format_resource(row, stack, required_by=required_by,
                                   with_detail=with_detail)
            if stack.owner_id is not None and stack.parent_resource_name:
                view["parent_resource"] = stack.parent_resource_name
            views.append(view)
            child = children.get(row.physical_resource_id or "")
            if child is not None:
                views.extend(self._resource_views(child, with_detail, depth - 1))
        return views

    def describe_stack_resource(self, ctxt: Mapping[str, Any], stack_identity: Any,
                                resource_name: str, with_attr: Any = None) -> dict[str, Any]:
        """The resource with its detail (description, attributes, metadata).

        Raises:
            ResourceNotFound: "The Resource (r) could not be found in Stack s."
        """
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        row = self._current_rows(stack).get(resource_name)
        if row is None:
            raise ResourceNotFound(resource_name, stack.name)
        graph = self._deps.caches.for_stack(stack.raw_template_id, stack).dependencies()
        required_by = graph.required_by(resource_name) if resource_name in graph.nodes else ()
        return format_resource(row, stack, required_by=required_by, with_detail=True)

    def resource_mark_unhealthy(self, ctxt: Mapping[str, Any], stack_identity: Any,
                                resource_name: str, mark_unhealthy: Any,
                                resource_status_reason: str | None = None) -> None:
        """CHECK_FAILED with the reason, or back to CHECK_COMPLETE (Heat's rules).

        ``resource_name`` may also be the physical id.
        """
        stack = self._get_stack(ctxt, stack_identity)
        row = resource_actions.find_resource(self._current_rows(stack), resource_name, stack)
        resource_actions.mark_unhealthy(self._deps, stack, row, mark_unhealthy,
                                        resource_status_reason)

    def resource_signal(self, ctxt: Mapping[str, Any], stack_identity: Any,
                        resource_name: str, details: Any, sync_call: bool = False) -> Any:
        """Signal a resource; with ``sync_call`` answer its metadata afterwards."""
        stack = self._get_stack(ctxt, stack_identity)
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        row = self._current_rows(stack).get(resource_name)
        if row is None:
            if resource_name in template.resources:
                raise ResourceNotAvailable(resource_name)
            raise ResourceNotFound(resource_name, stack.name)
        resource_actions.signal(self._deps, stack, row, details)
        if sync_call:
            stored = self._deps.store.get_resource(row.id)
            return dict(stored.metadata) if stored is not None else {}
        return None


def _filter(views: list[dict[str, Any]], filters: Any) -> list[dict[str, Any]]:
    if not filters:
        return views
    out = []
    for view in views:
        keep = True
        for key, wanted in dict(filters).items():
            values = wanted if isinstance(wanted, list) else [wanted]
            if key in view and view[key] not in values:
                keep = False
        if keep:
            out.append(view)
    return out
