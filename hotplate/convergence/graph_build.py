"""Drawing a traversal's graph of update and cleanup nodes.

Built in three steps, each for a reason:

1. **Update nodes** from the template: ``update(row)`` for the row chosen
   for each resource, with the template's dependencies translated to rows.
   They say "bring this resource to the new template, after what it needs".
2. **Cleanup nodes** for every row that existed before the traversal began:
   ``cleanup(row)`` deletes it if the new template no longer wants it.
   - ``cleanup(req)`` needs ``cleanup(row)`` for each row it required:
     a resource goes only after whatever depended on it has gone.
   - ``cleanup(old)`` needs ``cleanup(replacement)``: on a rollback the newer
     row goes first.
3. **Cleanup after update**: ``cleanup(row)`` needs ``update(row)`` when the
   row is in both, so nothing is deleted before its dependants moved on; and
   ``cleanup(replacement)`` needs ``update(old)`` when the row it replaced is
   chosen again (a rollback): the old row takes back what it handed over
   (a server its ports, a port its addresses) from a replacement that still
   stands, not from one deleted under it.

Rows created for this traversal (born INIT) get no cleanup node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hotplate.graph.dag import Graph
from hotplate.model.ids import ResourceId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import ResourceRecord


def add_update_nodes(
    graph: Graph[NodeKey],
    name_graph: Graph[str],
    row_ids: Mapping[str, ResourceId],
) -> None:
    for name in name_graph.nodes:
        graph.add_node(NodeKey(row_ids[name], True))
    for name in name_graph.nodes:
        requirer = NodeKey(row_ids[name], True)
        for required in name_graph.requires(name):
            graph.add_edge(requirer, NodeKey(row_ids[required], True))


def add_cleanup_nodes(graph: Graph[NodeKey], existing: Iterable[ResourceRecord]) -> None:
    rows = list(existing)
    ids = {row.id for row in rows}
    for row in rows:
        graph.add_node(NodeKey(row.id, False))
    for row in rows:
        mine = NodeKey(row.id, False)
        for req in row.requires:
            if req in ids:
                graph.add_edge(NodeKey(req, False), mine)
        if row.replaces is not None and row.replaces in ids:
            graph.add_edge(NodeKey(row.replaces, False), mine)


def add_cleanup_after_update(graph: Graph[NodeKey], existing: Iterable[ResourceRecord]) -> None:
    for row in existing:
        update = NodeKey(row.id, True)
        if update in graph.nodes:
            graph.add_edge(NodeKey(row.id, False), update)
        if row.replaces is not None:
            taken_back = NodeKey(row.replaces, True)
            if taken_back in graph.nodes and update not in graph.nodes:
                graph.add_edge(NodeKey(row.id, False), taken_back)


def build_traversal_graph(
    name_graph: Graph[str],
    row_ids: Mapping[str, ResourceId],
    existing: Iterable[ResourceRecord],
) -> Graph[NodeKey]:
    """The whole graph of one traversal, in the three steps of the module doc."""
    rows = list(existing)
    graph: Graph[NodeKey] = Graph()
    add_update_nodes(graph, name_graph, row_ids)
    add_cleanup_nodes(graph, rows)
    add_cleanup_after_update(graph, rows)
    return graph


def graph_to_json(graph: Graph[NodeKey], *, converge: bool = False,
                  retired: Sequence[int] = ()) -> dict[str, Any]:
    """Heat's ``current_deps`` form: ``{"edges": [[[id, is_update], [id, is_update]|null]]}``,
    with ``"converge": true`` for an update that converges on the live state (Heat carries
    that flag in each node's message; ours carry keys only, so the traversal keeps it), and
    ``"retired_templates"``: template ids the stack no longer names but some of its rows
    did when the traversal began, deleted once it succeeds (engine/worker/retired_templates)."""
    edges: list[list[Any]] = []
    for node in graph.nodes:
        reqs = graph.requires(node)
        if not reqs:
            edges.append([[node.resource_id, node.is_update], None])
        for req in sorted(reqs):
            edges.append([[node.resource_id, node.is_update], [req.resource_id, req.is_update]])
    data: dict[str, Any] = {"edges": edges}
    if converge:
        data["converge"] = True
    if retired:
        data["retired_templates"] = list(retired)
    return data


def graph_from_json(data: Mapping[str, Any]) -> Graph[NodeKey]:
    graph: Graph[NodeKey] = Graph()
    for requirer, required in data.get("edges", []):
        node = NodeKey(ResourceId(int(requirer[0])), bool(requirer[1]))
        graph.add_node(node)
        if required is not None:
            graph.add_edge(node, NodeKey(ResourceId(int(required[0])), bool(required[1])))
    return graph
