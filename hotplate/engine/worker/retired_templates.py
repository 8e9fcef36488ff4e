"""Template rows a stack stops naming while some of its resource rows still use them.

An update keeps the template it replaces as the stack's previous one
(``prev_raw_template_id``: what a rollback returns to), and a traversal that
succeeds deletes it. An update started while another still runs replaces
that previous template before the running update could delete it; the rows
the first update had not reached yet still point at it, so it cannot go at
once, and nothing would name it afterwards: a leaked row.

Such a template is retired instead: deleted at once if nothing uses it any
more, else listed in the new traversal's graph (``current_deps``, under
``retired_templates``) and deleted when a traversal succeeds, every row then
being on the new template. A traversal that fails or is superseded hands its
list on to the next one. Deletion is the Store's guarded delete: a template a
stack or a resource row still names is never deleted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.model.ids import StackId, TemplateId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.states import Status

RETIRED_KEY = "retired_templates"


def retiring(stack: StackRecord, deps_json: Any, template_id: TemplateId,
             prev_template_id: TemplateId | None) -> list[TemplateId]:
    """The templates a new traversal of ``stack`` (to ``template_id``, keeping
    ``prev_template_id``) stops naming: the previous template it replaces, and
    those the current traversal still listed, unless that one succeeded (its
    end deleted them)."""
    found: list[TemplateId] = []
    if stack.status is not Status.COMPLETE:
        found.extend(listed(deps_json))
    if stack.prev_raw_template_id is not None:
        found.append(stack.prev_raw_template_id)
    keep = {template_id, prev_template_id, stack.raw_template_id}
    return [tid for tid in dict.fromkeys(found) if tid not in keep]


def drop_unused(deps: EngineDeps, templates: Iterable[TemplateId]) -> list[TemplateId]:
    """Delete each template nothing names any more; the ones still in use, to list."""
    in_use = []
    for tid in templates:
        deps.store.delete_raw_template(tid)
        if deps.store.get_raw_template(tid) is not None:
            in_use.append(tid)
    return in_use


def sweep(deps: EngineDeps, stack_id: StackId, traversal: TraversalId) -> None:
    """After ``traversal`` succeeded: delete the templates its graph listed."""
    found = deps.store.get_stack_deps(stack_id)
    if found is None or found[0] != traversal:
        return  # superseded: the list is the next traversal's now
    for tid in listed(found[1]):
        deps.store.delete_raw_template(tid)


def listed(deps_json: Any) -> list[TemplateId]:
    if not isinstance(deps_json, dict):
        return []
    return [TemplateId(int(tid)) for tid in deps_json.get(RETIRED_KEY) or []]
