"""Engine-topic methods about one stack's resources: list, show, mark unhealthy, signal.

Part of ``EngineService``; Heat's method names and arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.engine.errors import ResourceNotAvailable, ResourceNotFound
from hotplate.engine.hosting.nested import MAX_NESTED_DEPTH
from hotplate.engine.hosting.row_plugins import row_instance
from hotplate.engine.service import resource_actions
from hotplate.engine.service.lookups import StackLookups
from hotplate.engine.service.resource_attributes import shown_attributes
from hotplate.engine.service.stack_user_access import authorize_stack_user
from hotplate.engine.stack_rows import current_row
from hotplate.engine.views import format_resource, stored_attributes
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.single_flight import LruCache
from hotplate.template import Template

LOG = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ViewScope:
    """What every resource view of one stack needs, read once per request."""

    stack: StackRecord
    template: Template
    required_by: Mapping[str, frozenset[str]]
    """Per resource of the template, what requires it (its dependency graph's edges)."""
    children: Mapping[str, StackRecord]
    """The stacks this stack owns (deleted ones too), by id: a resource whose
    physical id is one of them links to it as ``nested``."""


class ResourceMethods(StackLookups):
    RESOURCE_METHODS = frozenset({
        "list_stack_resources", "describe_stack_resource", "resource_mark_unhealthy",
        "resource_signal",
    })

    def list_stack_resources(self, ctxt: Mapping[str, Any], stack_identity: Any,
                             nested_depth: int = 0, with_detail: bool = False,
                             filters: Any = None) -> list[dict[str, Any]]:
        """Every resource's view, ``nested_depth`` levels of nested stacks included.

        As Heat's, only ``with_detail`` views resolve attributes (each one's
        plugin is called); the plain listing reads rows and templates only.
        """
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        depth = max(0, min(int(nested_depth or 0), MAX_NESTED_DEPTH))
        return _filter(self._resource_views(stack, with_detail, depth), filters)

    def _resource_views(self, stack: StackRecord, with_detail: bool,
                        depth: int) -> list[dict[str, Any]]:
        """The stack's resources, each followed by its nested stack's, ``depth`` levels down."""
        scope = self._scope(stack)
        views = []
        for row in self._current_rows(stack, data=with_detail).values():
            views.append(self._view(scope, row, detail=with_detail))
            child = scope.children.get(row.physical_resource_id or "")
            if depth > 0 and child is not None and child.deleted_at is None:
                views.extend(self._resource_views(child, with_detail, depth - 1))
        return views

    def describe_stack_resource(self, ctxt: Mapping[str, Any], stack_identity: Any,
                                resource_name: str, with_attr: Any = None) -> dict[str, Any]:
        """The resource with its detail: description, metadata and attributes.

        ``attributes`` are every attribute of the type plus the ``with_attr``
        names (see resource_attributes); ``with_attr=False`` leaves them out,
        as Heat's does.

        A stack user's EC2 key (the CFN API's caller) may describe only what its
        resource allows (stack_user_access.py), as Heat's.

        Raises:
            Forbidden: a stack user's key the resource is not allowed to.
            ResourceNotFound: "The Resource (r) could not be found in Stack s."
        """
        stack = self._get_stack(ctxt, stack_identity, show_deleted=True)
        authorize_stack_user(self._deps, ctxt, stack, resource_name)
        # One resource's rows only: agents poll this for their metadata (DescribeStackResource).
        row = current_row(self._deps, stack, resource_name)
        if row is None:
            raise ResourceNotFound(resource_name, stack.name)
        return self._view(self._scope(stack), row, detail=True, with_attr=with_attr)

    def _scope(self, stack: StackRecord) -> ViewScope:
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        owned = self._nested_stacks(stack, 1, deleted=True)
        required_by = _REQUIRED_BY.get_or_load(template, lambda: _required_by(template))
        return ViewScope(stack, template, required_by,
                         {str(child.id): child for child, _ in owned})

    def _view(self, scope: ViewScope, row: ResourceRecord, *, detail: bool,
              with_attr: Any = None) -> dict[str, Any]:
        required_by = scope.required_by.get(row.name, ())
        nested = scope.children.get(row.physical_resource_id or "")
        if not detail:
            return format_resource(row, scope.stack, required_by=required_by, nested=nested)
        attributes = (self._attributes(scope.stack, row, with_attr)
                      if with_attr is not False else None)
        view = format_resource(row, scope.stack, required_by=required_by, with_detail=True,
                               description=self._description(scope, row),
                               attributes=attributes, nested=nested)
        if with_attr is False:
            del view["attributes"]
        return view

    def _description(self, scope: ViewScope, row: ResourceRecord) -> str:
        """The resource's ``description`` in the stack's template, else in the row's own
        (a row being cleaned up is in the template it was made with)."""
        defn = scope.template.resources.get(row.name)
        if defn is None and row.current_template_id is not None:
            try:
                defn = self._deps.caches.template(row.current_template_id
                                                  ).template.resources.get(row.name)
            except Exception:  # its template is gone: no description to show
                defn = None
        return defn.description if defn is not None else ""

    def _attributes(self, stack: StackRecord, row: ResourceRecord,
                    with_attr: Any) -> dict[str, Any]:
        names = [str(name) for name in _names(with_attr)]
        try:
            instance = row_instance(self._deps, row, stack)
        except Exception:  # its type is gone: what it stored is all there is to show
            LOG.warning("resource %s: no plugin to resolve attributes", row.name,
                        exc_info=True)
            return {**dict.fromkeys(names), **stored_attributes(row.attr_data)}
        return shown_attributes(instance, names, stored_attributes(row.attr_data))

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
        """Signal a resource (SPEC.md 5.2, resource_actions.signal): the signal is
        stored before this answers; its handler runs in a thread of this engine, or
        first with ``sync_call``, which answers the resource's metadata afterwards."""
        stack = self._get_stack(ctxt, stack_identity)
        template = self._deps.caches.for_stack(stack.raw_template_id, stack)
        row = self._current_rows(stack).get(resource_name)
        if row is None:
            if resource_name in template.resources:
                raise ResourceNotAvailable(resource_name)
            raise ResourceNotFound(resource_name, stack.name)
        resource_actions.signal(self._deps, stack, row, details, sync_call=bool(sync_call))
        if sync_call:
            stored = self._deps.store.get_resource(row.id)
            return dict(stored.metadata) if stored is not None else {}
        return None


_REQUIRED_BY: LruCache[Template, Mapping[str, frozenset[str]]] = LruCache(32)
"""By parsed template (one object per cached template): a listing reads its graph's
edges without copying the graph (``Template.dependencies`` hands out a copy)."""


def _required_by(template: Template) -> Mapping[str, frozenset[str]]:
    graph = template.dependencies()
    return {name: graph.required_by(name) for name in graph.nodes}


def _names(with_attr: Any) -> list[Any]:
    """``with_attr`` as a list: None for none, one name, or a list of names."""
    if not with_attr:
        return []
    return [with_attr] if isinstance(with_attr, str) else list(with_attr)


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
