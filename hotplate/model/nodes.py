"""Keys of the convergence graph and the data that flows along its edges."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hotplate.model.ids import ResourceId


@dataclass(frozen=True, order=True, slots=True)
class NodeKey:
    """One node of a traversal's graph.

    ``is_update`` True: create or update the resource row to the traversal's
    template. False: the cleanup node, which deletes the row if the traversal's
    template no longer wants it (old and replaced rows).
    """

    resource_id: ResourceId
    is_update: bool

    def encode(self) -> str:
        """The text form used as a JSON key and in stored graphs: ``"42:u"``/``"42:c"``."""
        return f"{self.resource_id}:{'u' if self.is_update else 'c'}"

    @classmethod
    def decode(cls, text: str) -> NodeKey:
        rid, _, kind = text.partition(":")
        if kind not in ("u", "c") or not rid.isdigit():
            raise ValueError(f"not a node key: {text!r}")
        return cls(ResourceId(int(rid)), kind == "u")

    def __str__(self) -> str:
        return f"{'update' if self.is_update else 'cleanup'}({self.resource_id})"


def path_key(attribute: str, path: tuple[Any, ...]) -> str:
    """The ``attrs`` key of an attribute read with a path, for types that resolve
    paths themselves: the JSON text of ``[attribute, *path]``."""
    return json.dumps([attribute, *path])


@dataclass(frozen=True, slots=True)
class NodeData:
    """What a finished node tells the nodes that depend on it.

    Attributes are resolved once, by the worker that finished the resource,
    and forwarded; dependants do not reload the resource to read them, but
    for an attribute whose name is computed from another resource's
    attribute, which no list made beforehand can name
    (``engine.hosting.live_attributes``).
    ``attrs`` maps an attribute name to its whole value (paths are applied by
    the reader), and, for types that resolve paths themselves, ``path_key``
    to the value at that path.
    """

    resource_id: ResourceId
    name: str
    reference_id: str | None
    attrs: dict[str, Any] = field(default_factory=dict)
    action: str = "INIT"
    status: str = "COMPLETE"
    uuid: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.resource_id,
            "name": self.name,
            "reference_id": self.reference_id,
            "attrs": self.attrs,
            "action": self.action,
            "status": self.status,
            "uuid": self.uuid,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NodeData:
        return cls(
            resource_id=ResourceId(int(data["id"])),
            name=str(data["name"]),
            reference_id=data.get("reference_id"),
            attrs=dict(data.get("attrs") or {}),
            action=str(data.get("action", "INIT")),
            status=str(data.get("status", "COMPLETE")),
            uuid=str(data.get("uuid", "")),
        )
