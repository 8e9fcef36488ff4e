"""A stack's current resource rows and the stacks it owns, read one way everywhere.

Listings, outputs, nested-stack ports, previews and abandon documents all ask
"one row per resource name, plus rows still being cleaned up" and "the
nested stacks this stack owns"; this is the one place that answers.
"""

from __future__ import annotations

from hotplate.engine.deps import EngineDeps
from hotplate.engine.views import visible_rows
from hotplate.model.records import ResourceRecord, StackRecord


def current_rows(deps: EngineDeps, stack: StackRecord, *,
                 data: bool = True) -> dict[str, ResourceRecord]:
    """One row per resource name: the template's, plus rows still being cleaned up.
    ``data=False``: rows without their data (``Store.list_resources``)."""
    template = deps.caches.for_stack(stack.raw_template_id, stack)
    return visible_rows(deps.store.list_resources(stack.id, data=data),
                        list(template.resources), stack.raw_template_id,
                        stack.prev_raw_template_id)


def current_row(deps: EngineDeps, stack: StackRecord, name: str) -> ResourceRecord | None:
    """``current_rows(deps, stack).get(name)``, reading only that name's rows."""
    template = deps.caches.for_stack(stack.raw_template_id, stack)
    in_template = [name] if name in template.resources else []
    return visible_rows(deps.store.resources_named(stack.id, name), in_template,
                        stack.raw_template_id, stack.prev_raw_template_id).get(name)


def owned_children(deps: EngineDeps, stack: StackRecord) -> dict[str, StackRecord]:
    """The live stacks ``stack`` owns, by id: the nested stacks of its resources."""
    children = deps.store.list_child_stacks(stack.id)
    return {str(child.id): child for child in children}
