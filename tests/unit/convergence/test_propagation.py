from hotplate.convergence.propagation import (
    expects_inputs,
    graph_key_for,
    is_root,
    reports_for,
    retrigger_key,
    sync_counts,
)
from hotplate.graph import Graph
from hotplate.model.ids import ResourceId
from hotplate.model.nodes import NodeKey

from .factories import row


def key(rid: int, up: bool = True) -> NodeKey:
    return NodeKey(ResourceId(rid), up)


def update_graph() -> Graph[NodeKey]:
    graph: Graph[NodeKey] = Graph()
    graph.add_edge(key(2), key(1))  # web needs db
    graph.add_edge(key(1, False), key(1))  # cleanup(db) after update(db)
    graph.add_edge(key(1, False), key(2, False))  # db goes after web
    graph.add_edge(key(2, False), key(2))
    return graph


def test_update_dependants_get_node_data_cleanup_ones_get_ids_cleanup_first() -> None:
    graph = update_graph()
    reports = reports_for(graph, key(1), row(1, "db"), {"name": "db"})
    assert [(r.target, r.data) for r in reports] == [
        (key(1, False), None),
        (key(2), {"name": "db"}),
    ]


def test_cleanup_reports_the_replacement_when_there_is_one() -> None:
    graph = update_graph()
    reports = reports_for(graph, key(2, False), row(2, "web", replaced_by=ResourceId(9)), None)
    assert [(r.target, r.data) for r in reports] == [(key(1, False), 9)]


def test_replacement_acts_as_the_node_it_replaces() -> None:
    graph = update_graph()
    assert graph_key_for(row(7, "db", replaces=ResourceId(1)), True, graph) == key(1)
    assert graph_key_for(row(1, "db"), True, graph) == key(1)


def test_roots_and_counts() -> None:
    graph = update_graph()
    assert is_root(graph, key(1, False))
    assert not is_root(graph, key(1))
    assert sync_counts(graph)[key(1, False)] == 2
    assert sync_counts(graph)[key(1)] == 0


def test_retrigger_pokes_the_node_the_new_traversal_waits_on() -> None:
    graph: Graph[NodeKey] = Graph()
    graph.add_node(key(5, False))
    assert retrigger_key(graph, ResourceId(5), True) == key(5, False)
    graph.add_node(key(6))
    assert retrigger_key(graph, ResourceId(6), False) == key(6)


def test_only_a_node_that_requires_another_expects_inputs() -> None:
    graph = update_graph()
    assert expects_inputs(graph, key(2))  # web needs db
    assert not expects_inputs(graph, key(1))  # db needs nothing: nobody reports to it
    assert expects_inputs(graph, key(1, False))
    assert expects_inputs(graph, key(7))  # not in the graph: its point is read
