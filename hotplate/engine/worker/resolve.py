"""Resolving a resource's properties from what its predecessors reported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from hotplate.model.ids import ResourceId
from hotplate.model.nodes import NodeData, path_key
from hotplate.resources.attributes import InvalidTemplateAttribute


class LiveReads(Protocol):
    """Attributes read from the resource itself (``hosting.live_attributes``)."""

    names: frozenset[str]

    def attribute(self, name: str, resource_id: ResourceId, attribute: str) -> Any: ...

    def attribute_path(self, name: str, resource_id: ResourceId, attribute: str,
                       path: tuple[Any, ...]) -> tuple[bool, Any]: ...


def _node_datas(input_data: Mapping[str, Any]) -> list[NodeData]:
    return [NodeData.from_json(v) for v in input_data.values() if isinstance(v, Mapping)]


def required_ids(input_data: Mapping[str, Any]) -> tuple[ResourceId, ...]:
    """The rows this resource depends on, newest first (Heat keeps them sorted descending)."""
    return tuple(sorted({nd.resource_id for nd in _node_datas(input_data)}, reverse=True))


class InputsContext:
    """The template's view of the world while resolving one resource.

    Only predecessors are visible: a resource can read exactly what it
    depends on, which is what its graph edges guarantee is ready. An
    attribute a predecessor did not pass on, of a resource in ``live.names``
    (one read under a name computed when resolving), is read from it; of
    any other, it is one the resource does not have (its node data leaves
    those out), and reading it fails in Heat's words.
    """

    def __init__(self, params: Mapping[str, Any], input_data: Mapping[str, Any],
                 live: LiveReads | None = None) -> None:
        self._params = params
        self._by_name = {nd.name: nd for nd in _node_datas(input_data)}
        self._live = live

    def _reads_live(self, node: NodeData, key: str) -> bool:
        return (key not in node.attrs and self._live is not None
                and node.name in self._live.names)

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        node = self._by_name.get(name)
        return node.reference_id if node is not None else None

    def resource_attribute(self, name: str, attribute: str) -> Any:
        node = self._by_name.get(name)
        if node is None:
            return None
        if self._live is not None and self._reads_live(node, attribute):
            return self._live.attribute(name, node.resource_id, attribute)
        if attribute not in node.attrs:
            raise InvalidTemplateAttribute(name, attribute)
        return node.attrs[attribute]

    def resource_attribute_path(self, name: str, attribute: str, path: tuple[Any, ...]
                                ) -> tuple[bool, Any]:
        """The value at ``path`` if the resource resolved that path itself."""
        node = self._by_name.get(name)
        key = path_key(attribute, path)
        if node is None:
            return False, None
        if self._live is not None and self._reads_live(node, key):
            return self._live.attribute_path(name, node.resource_id, attribute, path)
        if key not in node.attrs:
            return False, None
        return True, node.attrs[key]
