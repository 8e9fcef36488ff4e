"""Where a finished node reports, and what it tells each dependant.

- Update dependants receive the node's NodeData (reference id and resolved
  attributes), resolved once and forwarded.
- Cleanup dependants receive the id of the row that now stands for this one
  (the replacement if there is one), or nothing when the dependant is this
  row's own cleanup.
- Cleanup dependants are told first, as in Heat, so deletions start early.
- A root of the graph also reports to the stack's sync point; the last root
  completes the traversal.
- A replacement row is not in the graph: it reports as the node of the row
  it replaces, so everybody works from one version of the graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.graph.dag import Graph
from hotplate.model.ids import ResourceId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import ResourceRecord


@dataclass(frozen=True, slots=True)
class Report:
    """One sync-point report to make: ``target`` hears ``data`` from ``sender``."""

    target: NodeKey
    sender: NodeKey
    data: Any


def graph_key_for(row: ResourceRecord, is_update: bool, graph: Graph[NodeKey]) -> NodeKey:
    """The node this row acts as: itself, or the row it replaces when it is not in the graph."""
    key = NodeKey(row.id, is_update)
    if key not in graph.nodes and row.replaces is not None:
        return NodeKey(row.replaces, is_update)
    return key


def reports_for(
    graph: Graph[NodeKey],
    graph_key: NodeKey,
    row: ResourceRecord,
    node_data: Mapping[str, Any] | None,
) -> list[Report]:
    dependants = sorted(graph.required_by(graph_key), key=lambda n: (n.is_update, n))
    reports: list[Report] = []
    for dep in dependants:
        if dep.is_update:
            data: Any = node_data
        elif dep.resource_id == graph_key.resource_id:
            data = None
        else:
            data = row.replaced_by if row.replaced_by is not None else row.id
        reports.append(Report(target=dep, sender=graph_key, data=data))
    return reports


def is_root(graph: Graph[NodeKey], key: NodeKey) -> bool:
    return key in graph.nodes and not graph.required_by(key)


def expects_inputs(graph: Graph[NodeKey], key: NodeKey) -> bool:
    """Whether anything reports to the node: a node of the graph that requires no
    other has no predecessor, so its sync point never holds an input."""
    return key not in graph.nodes or bool(graph.requires(key))


def retrigger_key(graph: Graph[NodeKey], resource_id: ResourceId, is_update: bool) -> NodeKey:
    """Which node of a newer traversal a stale worker should poke for its row.

    An update finishing for a row that the new traversal only cleans up pokes
    the cleanup node, and a cleanup finishing for a row the new traversal
    updates pokes the update node: whichever the new traversal waits on.
    """
    if is_update:
        key = NodeKey(resource_id, True)
        return key if key in graph.nodes else NodeKey(resource_id, False)
    update = NodeKey(resource_id, True)
    return update if update in graph.nodes else NodeKey(resource_id, False)


def sync_counts(graph: Graph[NodeKey]) -> dict[NodeKey, int]:
    """How many reports each node waits for before it can run."""
    return {node: len(graph.requires(node)) for node in graph.nodes}
