"""Reading a resource's attribute for a template function, ``get_attr: [name]`` included.

``get_attr`` with a resource name alone (HOT 2015-10-15 on) reads every attribute
the type declares but ``show``, as a map; Heat answers it only while the resource
stands in a state that has them, null otherwise. Both places that read
attributes for templates (a finished resource's node data, and outputs or
metadata resolved against the rows as they stand) go through here.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.states import Action, Status, answers_all_attributes
from hotplate.resources.base import Resource
from hotplate.template import ALL_ATTRIBUTES

__all__ = ["read_attribute", "stored_attribute"]


def read_attribute(instance: Resource, name: str, action: Action | str,
                   status: Status | str) -> Any:
    """Attribute ``name`` of ``instance``, whose row is in ``action``/``status``."""
    if name == ALL_ATTRIBUTES:
        return instance.attribute_values() if answers_all_attributes(action, status) else None
    return instance.get_attribute(name)


def stored_attribute(attr_data: dict[str, Any] | None, name: str, action: Action | str,
                     status: Status | str) -> tuple[bool, Any]:
    """``(True, value)`` when the row's stored attributes answer ``name`` in its state
    now; ``(False, None)`` when the plugin must be asked."""
    if name == ALL_ATTRIBUTES and not answers_all_attributes(action, status):
        return True, None
    if attr_data and name in attr_data:
        return True, attr_data[name]
    return False, None
