"""Adopt: a new stack around resources that already exist (an abandon document).

Each resource takes its physical id, resource data and metadata from the
document instead of being created (``ADOPT_IN_PROGRESS`` then
``ADOPT_COMPLETE``); one the document lacks, or gives no id for, fails as
Heat's does ("Resource ID was not provided.") and the stack rolls back
unless rollback is disabled.

The document travels with the stack's template, in its files under a name
no request can use, so any engine's worker finds it (Heat passes it in every
check_resource message instead). Listings of the stack's files leave it out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from hotplate.model.errors import StackValidationFailed

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
