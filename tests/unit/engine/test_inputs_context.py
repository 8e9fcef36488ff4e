"""What a resource reads of its predecessors: their node data, or the resource itself.

A predecessor passes on the attributes its dependants name. One read under
a name computed when resolving cannot be named beforehand, so it is read
live; any other name missing from the node data is one the resource does
not have, and reading it fails as Heat's does.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.engine.worker.resolve import InputsContext
from hotplate.model.ids import ResourceId
from hotplate.model.nodes import NodeData, path_key
from hotplate.resources.attributes import InvalidTemplateAttribute


class RecordingLiveReads:
    """Answers ``live-<attribute>`` and records what it was asked."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.asked: list[tuple[Any, ...]] = []

    def attribute(self, name: str, resource_id: ResourceId, attribute: str) -> Any:
        self.asked.append((name, resource_id, attribute))
        return f"live-{attribute}"

    def attribute_path(self, name: str, resource_id: ResourceId, attribute: str,
                       path: tuple[Any, ...]) -> tuple[bool, Any]:
        self.asked.append((name, resource_id, attribute, path))
        return True, f"live-{attribute}{list(path)}"


def _inputs(live: RecordingLiveReads | None = None) -> InputsContext:
    nodes = [NodeData(ResourceId(7), "a", "a-ref", {"first": "one"}),
             NodeData(ResourceId(8), "b", "b-ref", {"value": "first"})]
    return InputsContext({}, {str(n.resource_id): n.to_json() for n in nodes}, live)


def test_attributes_passed_on_are_read_from_the_node_data() -> None:
    live = RecordingLiveReads(frozenset({"a"}))
    assert _inputs(live).resource_attribute("a", "first") == "one"
    assert live.asked == []


def test_an_attribute_not_passed_on_of_a_resource_read_live_is_asked_of_it() -> None:
    live = RecordingLiveReads(frozenset({"a"}))
    assert _inputs(live).resource_attribute("a", "second") == "live-second"
    assert live.asked == [("a", ResourceId(7), "second")]


def test_an_attribute_not_passed_on_otherwise_is_one_the_resource_lacks() -> None:
    live = RecordingLiveReads(frozenset({"a"}))
    for inputs in (_inputs(), _inputs(live)):
        with pytest.raises(InvalidTemplateAttribute) as info:
            inputs.resource_attribute("b", "nope")
        assert str(info.value) == "The Referenced Attribute (b nope) is incorrect."
    assert live.asked == []


def test_a_resource_that_is_no_predecessor_reads_as_none() -> None:
    assert _inputs().resource_attribute("z", "x") is None


def test_a_path_not_passed_on_is_asked_of_a_resource_read_live() -> None:
    live = RecordingLiveReads(frozenset({"a"}))
    inputs = _inputs(live)
    assert inputs.resource_attribute_path("a", "second", ("k",)) == (True, "live-second['k']")
    assert inputs.resource_attribute_path("b", "value", ("k",)) == (False, None)
    assert live.asked == [("a", ResourceId(7), "second", ("k",))]


def test_a_path_passed_on_is_read_from_the_node_data() -> None:
    node = NodeData(ResourceId(9), "g", None, {path_key("refs", (0,)): "m0"})
    inputs = InputsContext({}, {"9": node.to_json()}, RecordingLiveReads(frozenset({"g"})))
    assert inputs.resource_attribute_path("g", "refs", (0,)) == (True, "m0")
