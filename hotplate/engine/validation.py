"""Whole-request validation before anything is stored: template, parameters, types."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.model.errors import StackValidationFailed
from hotplate.template import Template, parse_environment, parse_template, resolve_parameters

_STACK_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]*$")


class _NoResources:
    """Resolution context for validation: resources do not exist yet."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self._params = params

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        return None

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None


def validate_stack_request(
    deps: EngineDeps,
    template: Any,
    environment: Mapping[str, Any],
    files: Mapping[str, Any],
    *,
    stack_name: str,
) -> Template:
    """Parse and check a stack request; raises StackValidationFailed naming the path."""
    if (
        not isinstance(stack_name, str)
        or not _STACK_NAME.match(stack_name)
        or len(stack_name) > 255
    ):
        raise StackValidationFailed(
            f'Invalid stack name {stack_name} must contain only alphanumeric or "_-." '
            "characters, must start with alpha and must be 255 characters or less."
        )
    parsed = parse_template(template, files=files)
    env = parse_environment(environment)
    params = resolve_parameters(
        parsed,
        environment.get("parameters") or {},
        param_defaults=environment.get("parameter_defaults") or {},
    )
    params.update({"OS::stack_name": stack_name, "OS::stack_id": "", "OS::project_id": ""})
    decided = parsed.with_parameters(params)
    decided.dependencies()
    ctx = _NoResources(params)
    for name, defn in decided.resources.items():
        try:
            cls = deps.types.for_resource(env, name, defn.type)
        except StackValidationFailed as exc:
            raise StackValidationFailed(exc.detail, ("resources", name, "type")) from None
        if defn.references():
            continue  # values known only once the referenced resources exist
        cls.validate(defn.resolve_properties(ctx), ("resources", name, "properties"))
    return parsed
