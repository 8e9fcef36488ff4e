import graphlib
import itertools
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hotplate.graph import CycleError, Graph


def chain() -> Graph[str]:
    """a -> b -> c, plus d alone."""
    graph: Graph[str] = Graph()
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    graph.add_node("d")
    return graph


def test_nodes_keep_insertion_order_and_adding_twice_is_harmless() -> None:
    graph = chain()
    graph.add_node("a")
    graph.add_edge("a", "b")
    assert list(graph.nodes) == ["a", "b", "c", "d"]
    assert graph.edges == [("a", "b"), ("b", "c")]
    assert len(graph) == 4
    assert "a" in graph and "z" not in graph


def test_requires_and_required_by() -> None:
    graph = chain()
    assert graph.requires("a") == frozenset({"b"})
    assert graph.required_by("b") == frozenset({"a"})
    assert graph.requires("c") == frozenset()
    assert graph.requires("unknown") == frozenset()
    assert graph.required_by("unknown") == frozenset()


def test_leaves_and_roots() -> None:
    graph = chain()
    assert graph.leaves() == ["c", "d"]
    assert graph.roots() == ["a", "d"]


def test_ancestors_and_descendants() -> None:
    graph = chain()
    assert graph.ancestors("a") == frozenset({"b", "c"})
    assert graph.descendants("c") == frozenset({"a", "b"})
    assert graph.ancestors("d") == frozenset()
    assert graph.ancestors("nowhere") == frozenset()


def test_toposort_puts_required_first_and_breaks_ties_by_insertion() -> None:
    graph: Graph[str] = Graph()
    for name in ["z", "y", "x"]:
        graph.add_node(name)
    graph.add_edge("z", "x")
    assert graph.toposort() == ["y", "x", "z"]
    assert chain().toposort() == ["c", "b", "a", "d"]


def test_toposort_of_a_cycle_raises_with_the_cycle() -> None:
    graph = chain()
    graph.add_edge("c", "a")
    with pytest.raises(CycleError) as info:
        graph.toposort()
    assert info.value.args[1] == ["a", "b", "c", "a"]


@pytest.mark.parametrize(
    ("edges", "cycle"),
    [
        ([("a", "b")], None),
        ([("a", "a")], ["a", "a"]),
        ([("a", "b"), ("b", "a")], ["a", "b", "a"]),
        ([("x", "a"), ("a", "b"), ("b", "c"), ("c", "a")], ["a", "b", "c", "a"]),
    ],
)
def test_find_cycle(edges: list[tuple[str, str]], cycle: list[str] | None) -> None:
    graph: Graph[str] = Graph()
    for requirer, required in edges:
        graph.add_edge(requirer, required)
    assert graph.find_cycle() == cycle


def test_to_text_is_sorted_and_stable() -> None:
    graph: Graph[str] = Graph()
    graph.add_edge("web", "db")
    graph.add_edge("web", "app")
    graph.add_edge("app", "db")
    graph.add_node("alone")
    assert graph.to_text() == "alone\napp -> db\ndb\nweb -> app, db"


def test_edges_round_trip_through_json() -> None:
    graph: Graph[tuple[int, bool]] = Graph()
    graph.add_edge((1, True), (2, True))
    graph.add_node((3, False))
    data = json.loads(json.dumps(graph.to_edges(list)))
    assert data == [[[1, True], [2, True]], [[2, True], None], [[3, False], None]]
    back = Graph.from_edges(data, tuple)
    assert back.edges == graph.edges
    assert list(back.nodes) == [(1, True), (2, True), (3, False)]
    assert Graph.from_edges(chain().to_edges()).to_text() == chain().to_text()


def test_copy_is_independent() -> None:
    graph = chain()
    clone = graph.copy()
    clone.add_edge("d", "a")
    assert graph.requires("d") == frozenset()
    assert clone.toposort() == ["c", "b", "a", "d"]


def test_large_graph_is_fast() -> None:
    graph: Graph[int] = Graph()
    n = 10_000
    for i in range(n):
        graph.add_node(i)
    for i in range(1, n):
        graph.add_edge(i, i - 1)
        graph.add_edge(i, i // 2)
    start = time.perf_counter()
    order = graph.toposort()
    assert graph.find_cycle() is None
    graph.to_text()
    Graph.from_edges(graph.to_edges())
    graph.ancestors(n - 1)
    elapsed = time.perf_counter() - start
    assert order[0] == 0
    assert elapsed < 2.0


def test_a_long_chain_does_not_hit_the_recursion_limit() -> None:
    graph: Graph[int] = Graph()
    for i in range(1, 5000):
        graph.add_edge(i, i - 1)
    graph.add_edge(0, 4999)
    cycle = graph.find_cycle()
    assert cycle is not None and len(cycle) == 5001


# -- properties ---------------------------------------------------------------

graphs = st.integers(min_value=0, max_value=25).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))))
        if n
        else st.just([]),
    )
)


def build(n: int, edges: list[tuple[int, int]]) -> Graph[int]:
    graph: Graph[int] = Graph()
    for i in range(n):
        graph.add_node(i)
    for requirer, required in edges:
        graph.add_edge(requirer, required)
    return graph


def acyclic(n: int, edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(a, b) for a, b in edges if a > b]


def graphlib_has_cycle(graph: Graph[int]) -> bool:
    sorter = graphlib.TopologicalSorter({n: graph.requires(n) for n in graph.nodes})
    try:
        sorter.prepare()
    except graphlib.CycleError:
        return True
    return False


@settings(max_examples=200)
@given(graphs)
def test_toposort_respects_every_edge(spec: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = spec
    graph = build(n, acyclic(n, edges))
    order = graph.toposort()
    position = {node: i for i, node in enumerate(order)}
    assert sorted(order) == list(range(n))
    for requirer, required in graph.edges:
        assert position[required] < position[requirer]


@settings(max_examples=300)
@given(graphs)
def test_find_cycle_agrees_with_graphlib(spec: tuple[int, list[tuple[int, int]]]) -> None:
    graph = build(*spec)
    cycle = graph.find_cycle()
    assert (cycle is not None) == graphlib_has_cycle(graph)
    if cycle is not None:
        assert cycle[0] == cycle[-1]
        for requirer, required in itertools.pairwise(cycle):
            assert required in graph.requires(requirer)
    else:
        graph.toposort()


@settings(max_examples=200)
@given(graphs)
def test_leaves_and_roots_are_consistent(spec: tuple[int, list[tuple[int, int]]]) -> None:
    graph = build(*spec)
    assert set(graph.leaves()) == {n for n in graph.nodes if not graph.requires(n)}
    assert set(graph.roots()) == {n for n in graph.nodes if not graph.required_by(n)}
    for requirer, required in graph.edges:
        assert requirer in graph.required_by(required)
        assert required in graph.ancestors(requirer)
        assert requirer in graph.descendants(required)
