"""Events as heatclient's log lines: ``TIME ID [stack.resource]: STATUS  REASON``.

Resources in nested stacks are named by their path from the top stack
(``web.server``): a resource whose physical id is a stack id owns that
nested stack, and the nested stack's own events take the owner's path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote


def link(item: Mapping[str, Any], rel: str) -> str:
    for entry in item.get("links") or ():
        if isinstance(entry, Mapping) and entry.get("rel") == rel:
            return str(entry.get("href") or "")
    return ""


def stack_id_of(item: Mapping[str, Any]) -> str:
    """The id of the stack an event or resource belongs to, from its ``stack`` link."""
    return link(item, "stack").rstrip("/").rsplit("/", 1)[-1]


def stack_name_of(item: Mapping[str, Any]) -> str:
    """The name of the stack an event or resource belongs to, from its ``stack`` link."""
    href = link(item, "stack")
    return unquote(href.split("/stacks/", 1)[-1].split("/")[0]) if "/stacks/" in href else ""


def nested_id_of(resource: Mapping[str, Any]) -> str:
    """The id of the stack a resource owns, from its ``nested`` link ("" if none)."""
    return link(resource, "nested").rstrip("/").rsplit("/", 1)[-1]


def is_stack_event(event: Mapping[str, Any]) -> bool:
    """An event about a stack itself: its physical id is the id of its own stack."""
    stack_id = stack_id_of(event)
    return bool(stack_id) and event.get("physical_resource_id") == stack_id


class EventNames:
    """Remembers stacks and owners across batches of events, to name each event."""

    def __init__(self) -> None:
        self._stacks: dict[str, str] = {}  # stack id -> the stack's name
        self._owners: dict[str, str] = {}  # nested stack id -> its owner's path

    def _path(self, stack_id: str) -> str:
        return self._owners.get(stack_id) or self._stacks.get(stack_id, "")

    def name(self, event: Mapping[str, Any]) -> str:
        resource = str(event.get("resource_name") or "")
        stack_id = stack_id_of(event)
        if is_stack_event(event):
            self._stacks.setdefault(stack_id, resource)
            return self._path(stack_id)
        base = self._path(stack_id)
        path = f"{base}.{resource}" if base else resource
        physical = str(event.get("physical_resource_id") or "")
        if physical:
            self._owners.setdefault(physical, path)
        return path


def log_line(event: Mapping[str, Any], names: EventNames) -> str:
    when = str(event.get("event_time") or "").replace("T", " ")
    return (f"{when} {event.get('id', '')} [{names.name(event)}]: "
            f"{event.get('resource_status', '')}  {event.get('resource_status_reason') or ''}")


def log_lines(events: Iterable[Mapping[str, Any]], names: EventNames | None = None) -> str:
    names = names or EventNames()
    return "".join(log_line(e, names) + "\n" for e in events)
