"""A stack as a document: what Heat's ``prepare_abandon`` gives, for abandon, export
and snapshots.

``{name, id, action, status, template, environment, files, resources,
project_id, stack_user_project_id, tags}``: the template, environment and files
are enough to build the stack again (a restore converges to them); what is in
``resources`` is up to the caller (every resource's data for abandon, nothing
for a snapshot, whose resources are kept apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.adopt import visible_files
from hotplate.model.records import StackRecord


def stack_document(deps: EngineDeps, stack: StackRecord,
                   resources: Mapping[str, Any] | None = None) -> dict[str, Any]:
    loaded = deps.caches.template(stack.raw_template_id)
    return {
        "name": stack.name,
        "id": stack.id,
        "action": str(stack.action),
        "status": str(stack.status),
        "template": dict(loaded.raw),
        "environment": loaded.env.to_dict(),
        "files": visible_files(loaded.files),
        "resources": dict(resources or {}),
        "project_id": stack.project_id,
        "stack_user_project_id": stack.project_id,
        "tags": list(stack.tags) or None,
    }
