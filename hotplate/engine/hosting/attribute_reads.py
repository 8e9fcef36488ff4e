"""Reading a resource's attribute for a template function, ``get_attr: [name]`` included.

``get_attr`` with a resource name alone (HOT 2015-10-15 on) reads every attribute
the type declares but ``show``, as a map; Heat answers it only while the resource
stands in a state that has them, null otherwise. Both places that read
attributes for templates (a finished resource's node data, and outputs or
metadata resolved against the rows as they stand) go through here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status, answers_all_attributes
from hotplate.resources.base import Resource
from hotplate.template import ALL_ATTRIBUTES

__all__ = ["read_attribute", "row_attribute"]


def read_attribute(instance: Resource, name: str, action: Action | str,
                   status: Status | str) -> Any:
    """Attribute ``name`` of ``instance``, whose row is in ``action``/``status``."""
    if name == ALL_ATTRIBUTES:
        return instance.attribute_values() if answers_all_attributes(action, status) else None
    return instance.get_attribute(name)


def row_attribute(row: ResourceRecord, name: str,
                  instance: Callable[[], Resource | None]) -> Any:
    """Attribute ``name`` of a row as it stands: from the attributes stored when it
    finished where they answer it in the row's state now, else from its plugin
    (``instance()``; None when there is none)."""
    if name == ALL_ATTRIBUTES and not answers_all_attributes(row.action, row.status):
        return None
    if row.attr_data and name in row.attr_data:
        return row.attr_data[name]
    found = instance()
    return read_attribute(found, name, row.action, row.status) if found is not None else None
