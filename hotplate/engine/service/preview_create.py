"""A create's dry run: what ``stack preview`` answers. Nothing is written.

Heat's ``format_stack_preview``: the stack as it would be shown (without
status keys: it has none), each resource a fresh INIT_COMPLETE one with its
properties resolved as far as they can be before anything exists, and a
stack-backed resource replaced by the list of its nested stack's resources
(``preview_update.created_tree``), as Heat's StackResource previews itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.service.preview import Unbuilt, parameter_values
from hotplate.engine.service.preview_stack import Target
from hotplate.engine.service.preview_update import created_tree
from hotplate.engine.views import iso, parameter_texts
from hotplate.template import Template, parse_environment


def preview_create(deps: EngineDeps, parsed: Template, environment: Mapping[str, Any],
                   files: Mapping[str, Any], *, identity: Mapping[str, Any],
                   stack: Mapping[str, Any]) -> dict[str, Any]:
    """Heat's preview of a new stack; ``stack`` holds the view's stack-level keys."""
    env = parse_environment(environment)
    pseudo = {"OS::stack_name": identity["stack_name"], "OS::stack_id": "None",
              "OS::project_id": identity["tenant"]}
    values = parameter_values(parsed, environment, pseudo)
    decided = parsed.with_parameters(values)
    ctx = Unbuilt(values)
    target = Target(decided, env, files, ctx, identity, None, None)
    resources = created_tree(deps, target, 0)
    outputs = []
    for name, out in decided.outputs.items():
        view: dict[str, Any] = {"output_key": name, "description": out.description}
        try:
            view["output_value"] = out.resolve(ctx)
        except Exception as exc:
            view["output_value"] = None
            view["output_error"] = str(exc)
        outputs.append(view)
    return {
        **stack,
        "stack_name": identity["stack_name"],
        "stack_identity": dict(identity),
        "creation_time": iso(deps.clock.now()),
        "updated_time": None,
        "deletion_time": None,
        "notification_topics": [],
        "parameters": parameter_texts(decided.parameters, values),
        "description": decided.description,
        "template_description": decided.description,
        "capabilities": [],
        "outputs": outputs,
        "resources": resources,
    }
