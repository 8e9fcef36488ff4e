"""Create and update bodies, read as heat-api's InstantiationData reads them.

The template comes from ``template`` (an object, or JSON/YAML text) or from
``adopt_stack_data``; the environment (an object or YAML text) gets the
``parameters`` merged over it; ``files``, ``environment_files`` and
``files_container`` pass through; every other key goes to the engine as an
option (``timeout_mins``, ``disable_rollback``, ``tags``, ``adopt_stack_data``...),
checked where Heat checks it.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from starlette.requests import Request

from hotplate.api.calls import engine
from hotplate.api.faults import bad_request
from hotplate.template.env_merge import patched_environment

REQUEST_KEYS = frozenset({
    "stack_name", "template", "template_url", "parameters", "environment", "files",
    "environment_files", "files_container",
})
"""Heat's InstantiationData.PARAMS: what is not an engine option."""


def has_template(body: dict[str, Any]) -> bool:
    return any(body.get(k) is not None for k in ("template", "template_url",
                                                  "adopt_stack_data"))


def template(body: dict[str, Any]) -> Any:
    """The template from ``template`` (object or JSON/YAML text) or ``adopt_stack_data``."""
    adopt = body.get("adopt_stack_data")
    if adopt:
        try:
            data = json.loads(adopt) if isinstance(adopt, str) else adopt
        except ValueError as exc:
            raise bad_request(f"Invalid adopt data: {exc}")
        if isinstance(data, dict) and data.get("template") is not None:
            return data["template"]
        raise bad_request("Invalid adopt data: 'template'")
    if body.get("template") is not None:
        return body["template"]
    if body.get("template_url"):
        raise bad_request("template_url is not supported yet; send the template itself")
    raise bad_request("No template specified")


def environment(body: dict[str, Any]) -> dict[str, Any]:
    """The environment (an object or YAML text) with ``parameters`` merged over it."""
    env: Any = body.get("environment") or {}
    if isinstance(env, str):
        try:
            env = yaml.safe_load(env) or {}
        except yaml.YAMLError as exc:
            raise bad_request(f"Error parsing environment: {exc}")
    if not isinstance(env, dict):
        raise bad_request("The environment is not a valid YAML mapping data type.")
    env = dict(env)
    given = body.get("parameters") or {}
    if not isinstance(given, dict):
        raise bad_request("The parameters must be a JSON object")
    if given or "parameters" in env:
        env["parameters"] = {**(env.get("parameters") or {}), **given}
    return env


def engine_args(body: dict[str, Any], *, update: bool = False) -> dict[str, Any]:
    """Every other key goes to the engine as an option, checked where Heat checks it."""
    args = {k: v for k, v in body.items() if k not in REQUEST_KEYS}
    if not update and "converge" in args:
        raise bad_request("converge flag only supported in stack update (or update "
                          "preview) request.")
    timeout = args.get("timeout_mins")
    if timeout is not None:
        try:
            args["timeout_mins"] = int(timeout)
        except (TypeError, ValueError):
            raise bad_request(f"Only integer is acceptable by 'timeout_mins'. ({timeout!r})")
        if args["timeout_mins"] < 0:
            raise bad_request("Only non-negative integer is acceptable by 'timeout_mins'.")
    for flag in ("disable_rollback", "converge"):
        given = args.get(flag)
        if isinstance(given, str):
            if given.lower() not in ("true", "false"):
                raise bad_request(f'Unrecognized value "{given}" for "{flag}", '
                                  "acceptable values are: true, false.")
            args[flag] = given.lower() == "true"
    tags = args.get("tags")
    if isinstance(tags, str):
        args["tags"] = [t for t in tags.split(",") if t]
    if any(len(str(t)) > 80 for t in args.get("tags") or ()):
        raise bad_request("Tags must be no more than 80 characters long.")
    return args


def files(body: dict[str, Any]) -> dict[str, Any]:
    given = body.get("files") or {}
    if not isinstance(given, dict):
        raise bad_request("The files must be a JSON object")
    return given


def environment_files(body: dict[str, Any]) -> list[Any] | None:
    names = body.get("environment_files")
    if names is not None and (not isinstance(names, list)
                              or not all(isinstance(n, str) for n in names)):
        raise bad_request("The environment_files must be a list of file names")
    return names


def instantiation(body: dict[str, Any], *, update: bool = False) -> dict[str, Any]:
    """The engine's create/update keyword arguments (less the stack's name or identity)."""
    return {"template": template(body), "params": environment(body), "files": files(body),
            "args": engine_args(body, update=update),
            "environment_files": environment_files(body)}


async def patched(request: Request, project_id: str, stack: dict[str, Any],
                  body: dict[str, Any]) -> dict[str, Any]:
    """A PATCH body's arguments: the stored template, parameters and files where it
    gives none (its files are added to the stored ones, as Heat merges them)."""
    identity = stack["stack_identity"]
    if has_template(body):
        tmpl = template(body)
    else:
        tmpl = await engine(request, project_id, "get_template", stack_identity=identity)
    kept = await engine(request, project_id, "get_environment", stack_identity=identity)
    env = patched_environment(kept, environment(body), body.get("clear_parameters") or ())
    stored_files = await engine(request, project_id, "get_files", stack_identity=identity)
    return {"template": tmpl, "params": env, "files": {**stored_files, **files(body)},
            "args": {**engine_args(body, update=True), "existing": True},
            "environment_files": environment_files(body)}
