"""Adopt: a new stack around resources that already exist (an abandon document).

Each resource takes its physical id, resource data and metadata from the
document instead of being created (``ADOPT_IN_PROGRESS`` then
``ADOPT_COMPLETE``); one the document lacks, or gives no id for, fails as
Heat's does ("Resource ID was not provided.") and the stack rolls back
unless rollback is disabled. A type with its own adopt (``AdoptsItself``:
template resources and resource groups, as in Heat) adopts its child stack
instead, from the ``resources`` of its entry; the child's own stack-backed
resources do the same one level down.

The document travels with the stack's template, in its files under a name
no request can use, so any engine's worker finds it (Heat passes it in every
check_resource message instead). Listings of the stack's files leave it out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import yaml

from hotplate.model.errors import StackValidationFailed


@runtime_checkable
class AdoptsItself(Protocol):
    """A resource type with its own adopt (a stack-backed one: Heat's handle_adopt).

    ``handle_adopt`` gets the resource's entry in the document (empty if the
    document has none) and starts the action, ``check_adopt_complete`` polls
    it, as for a create.
    """

    def handle_adopt(self, entry: Mapping[str, Any]) -> Any: ...

    def check_adopt_complete(self, data: Any) -> bool: ...


ADOPT_FILE = "\x00adopt_stack_data"
"""Not a name a client can send (no file name holds a NUL)."""


def parse_adopt_data(raw: Any) -> dict[str, Any]:
    """The abandon document, from JSON/YAML text or a mapping.

    Raises:
        StackValidationFailed: not a mapping, or ``resources`` is not a map.
    """
    data = raw
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except ValueError:
            try:
                data = yaml.safe_load(raw)
            except yaml.YAMLError as exc:
                raise StackValidationFailed(f"Invalid adopt data: {exc}") from None
    if not isinstance(data, Mapping):
        raise StackValidationFailed("Invalid adopt data: it is not a map")
    resources = data.get("resources", {})
    if not isinstance(resources, Mapping):
        raise StackValidationFailed("Invalid adopt data: 'resources' is not a map")
    return dict(data)


def with_adopt_parameters(env: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The request's environment with the document's parameter values under its own.

    As Heat's create_stack does for an adopt: the abandoned stack's parameters
    come back unless the request gives others.
    """
    adopted = data.get("environment")
    given = adopted.get("parameters") if isinstance(adopted, Mapping) else None
    if not isinstance(given, Mapping) or not given:
        return dict(env)
    return {**env, "parameters": {**given, **(env.get("parameters") or {})}}


def child_adopt_request(entry: Mapping[str, Any], template: Mapping[str, Any] | str,
                        env: Mapping[str, Any]) -> str:
    """The ``adopt_stack_data`` of a child stack adopted for its parent's resource.

    ``entry`` is the parent document's entry for that resource (for a stack
    resource, the child's own abandon document). As in Heat, it keeps its
    ``environment`` and ``template`` if it has them and otherwise gets the
    child's: the child is built from ``template`` either way, and only the
    entry's parameters and resources are used.
    """
    data = dict(entry)
    data.setdefault("environment", dict(env))
    data.setdefault("template", template)
    return json.dumps(data)


def with_adopt_data(files: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    return {**files, ADOPT_FILE: json.dumps(data)}


def resource_entry(files: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """What the document says of resource ``name``; None when it says nothing."""
    raw = files.get(ADOPT_FILE)
    if raw is None:
        return None
    entry = (json.loads(raw).get("resources") or {}).get(name)
    return entry if isinstance(entry, Mapping) else None


def visible_files(files: Mapping[str, Any]) -> dict[str, Any]:
    return {name: body for name, body in files.items() if name != ADOPT_FILE}
