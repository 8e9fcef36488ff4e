"""Golden tests: a tiny situation in, the traversal graph's text form out."""

from hotplate.convergence.graph_build import (
    build_traversal_graph,
    graph_from_json,
    graph_to_json,
)
from hotplate.graph import Graph
from hotplate.model.ids import ResourceId, TemplateId

from .factories import row


def names(edges: dict[str, list[str]]) -> Graph[str]:
    graph: Graph[str] = Graph()
    for name, reqs in edges.items():
        graph.add_node(name)
        for req in reqs:
            graph.add_edge(name, req)
    return graph


def text(graph) -> str:
    return graph.to_text()


def test_create_has_only_update_nodes() -> None:
    graph = build_traversal_graph(
        names({"web": ["db"], "db": []}), {"web": ResourceId(2), "db": ResourceId(1)}, []
    )
    assert text(graph) == "update(1)\nupdate(2) -> update(1)"


def test_update_cleans_up_after_updating() -> None:
    existing = [row(1, "db"), row(2, "web", requires=(ResourceId(1),))]
    graph = build_traversal_graph(
        names({"web": ["db"], "db": []}), {"web": ResourceId(2), "db": ResourceId(1)}, existing
    )
    assert text(graph) == "\n".join([
        "cleanup(1) -> cleanup(2), update(1)",
        "cleanup(2) -> update(2)",
        "update(1)",
        "update(2) -> update(1)",
    ])


def test_removed_resource_is_cleaned_up_after_its_dependants() -> None:
    existing = [row(1, "db"), row(2, "web", requires=(ResourceId(1),))]
    graph = build_traversal_graph(names({"web": []}), {"web": ResourceId(2)}, existing)
    assert text(graph) == "\n".join([
        "cleanup(1) -> cleanup(2)",
        "cleanup(2) -> update(2)",
        "update(2)",
    ])


def test_delete_is_cleanup_only_in_reverse_dependency_order() -> None:
    existing = [row(1, "db"), row(2, "web", requires=(ResourceId(1),))]
    graph = build_traversal_graph(names({}), {}, existing)
    assert text(graph) == "cleanup(1) -> cleanup(2)\ncleanup(2)"
    assert graph.leaves() == [graph_key(2, False)]


def test_rollback_deletes_the_replacement_before_the_old_row() -> None:
    old = row(1, "db", replaced_by=ResourceId(3), current_template_id=TemplateId(1))
    new = row(3, "db", replaces=ResourceId(1), current_template_id=TemplateId(2))
    graph = build_traversal_graph(names({"db": []}), {"db": ResourceId(1)}, [old, new])
    assert "cleanup(1) -> cleanup(3), update(1)" in text(graph)


def test_rollback_deletes_the_replacement_only_after_the_old_row_took_back() -> None:
    # the old server takes its ports back from a replacement that still stands
    old = row(1, "db", replaced_by=ResourceId(3), current_template_id=TemplateId(1))
    new = row(3, "db", replaces=ResourceId(1), current_template_id=TemplateId(2))
    graph = build_traversal_graph(names({"db": []}), {"db": ResourceId(1)}, [old, new])
    assert text(graph) == "\n".join([
        "cleanup(1) -> cleanup(3), update(1)",
        "cleanup(3) -> update(1)",
        "update(1)",
    ])


def test_forward_replacement_keeps_its_cleanup_order() -> None:
    old = row(1, "db", replaced_by=ResourceId(3))
    new = row(3, "db", replaces=ResourceId(1))
    graph = build_traversal_graph(names({"db": []}), {"db": ResourceId(3)}, [old, new])
    assert text(graph) == "\n".join([
        "cleanup(1) -> cleanup(3)",
        "cleanup(3) -> update(3)",
        "update(3)",
    ])


def test_json_round_trip_is_heats_current_deps_form() -> None:
    existing = [row(1, "db"), row(2, "web", requires=(ResourceId(1),))]
    graph = build_traversal_graph(
        names({"web": ["db"], "db": []}), {"web": ResourceId(2), "db": ResourceId(1)}, existing
    )
    data = graph_to_json(graph)
    assert [[2, True], [1, True]] in data["edges"]
    assert [[1, True], None] in data["edges"]
    assert text(graph_from_json(data)) == text(graph)


def graph_key(rid: int, is_update: bool):
    from hotplate.model.nodes import NodeKey

    return NodeKey(ResourceId(rid), is_update)
