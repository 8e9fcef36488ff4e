"""A directed acyclic graph of hashable nodes, knowing nothing of what they are.

An edge ``add_edge(requirer, required)`` means *requirer needs required done
first*. Everything about resources, rows and traversals is built on top of
this by ``template/`` and ``convergence/``; keeping the graph generic is what
lets both share one tested implementation of ordering and cycle finding.

Vocabulary, for ``a -> b -> c`` (a requires b, b requires c)::

    leaves()          {c}      nodes requiring nothing: they can run first
    roots()           {a}      nodes nothing requires: they finish last
    ancestors(a)      {b, c}   everything a transitively requires
    descendants(c)    {a, b}   everything that transitively requires c
    toposort()        [c, b, a]

Every operation is linear (or n log n where it sorts) in nodes plus edges, so
graphs of tens of thousands of nodes stay cheap. Orders are deterministic:
ties are broken by the order in which nodes were first added.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator, KeysView
from graphlib import CycleError
from typing import Any, Generic, TypeVar

N = TypeVar("N", bound=Hashable)
T = TypeVar("T")

__all__ = ["CycleError", "Graph"]


def _identity(value: Any) -> Any:
    return value


class Graph(Generic[N]):
    """A mutable DAG; cycles can be built and are reported by ``find_cycle``.

    Adjacency is kept in both directions (insertion-ordered dicts used as
    sets) so that ``requires`` and ``required_by`` are both O(degree).
    """

    __slots__ = ("_order", "_required_by", "_requires")

    def __init__(self) -> None:
        self._requires: dict[N, dict[N, None]] = {}
        self._required_by: dict[N, dict[N, None]] = {}
        self._order: dict[N, int] = {}

    # -- building ---------------------------------------------------------
    def add_node(self, node: N) -> None:
        """Add ``node`` if absent; adding twice is harmless."""
        if node not in self._requires:
            self._order[node] = len(self._order)
            self._requires[node] = {}
            self._required_by[node] = {}

    def add_edge(self, requirer: N, required: N) -> None:
        """Record that ``requirer`` needs ``required`` first (adds both nodes)."""
        self.add_node(requirer)
        self.add_node(required)
        self._requires[requirer][required] = None
        self._required_by[required][requirer] = None

    def copy(self) -> Graph[N]:
        """An independent graph with the same nodes, edges and insertion order."""
        clone: Graph[N] = Graph()
        clone._order = dict(self._order)
        clone._requires = {n: dict(reqs) for n, reqs in self._requires.items()}
        clone._required_by = {n: dict(deps) for n, deps in self._required_by.items()}
        return clone

    # -- reading ----------------------------------------------------------
    @property
    def nodes(self) -> KeysView[N]:
        """Every node, in insertion order (a live, set-like view)."""
        return self._requires.keys()

    @property
    def edges(self) -> list[tuple[N, N]]:
        """Every ``(requirer, required)`` pair, grouped by requirer in insertion order."""
        return [(n, r) for n, reqs in self._requires.items() for r in reqs]

    def __contains__(self, node: object) -> bool:
        return node in self._requires

    def __len__(self) -> int:
        return len(self._requires)

    def __iter__(self) -> Iterator[N]:
        return iter(self._requires)

    def __repr__(self) -> str:
        return f"<Graph nodes={len(self._requires)} edges={len(self.edges)}>"

    def requires(self, node: N) -> frozenset[N]:
        """What ``node`` needs done first; empty for a node not in the graph."""
        return frozenset(self._requires.get(node, ()))

    def required_by(self, node: N) -> frozenset[N]:
        """What needs ``node`` done first; empty for a node not in the graph."""
        return frozenset(self._required_by.get(node, ()))

    def leaves(self) -> list[N]:
        """Nodes requiring nothing, in insertion order: where work can start."""
        return [n for n, reqs in self._requires.items() if not reqs]

    def roots(self) -> list[N]:
        """Nodes nothing requires, in insertion order: where work ends."""
        return [n for n, deps in self._required_by.items() if not deps]

    def ancestors(self, node: N) -> frozenset[N]:
        """Everything ``node`` transitively requires (itself only through a cycle)."""
        return frozenset(self._reach(node, self._requires))

    def descendants(self, node: N) -> frozenset[N]:
        """Everything that transitively requires ``node`` (itself only through a cycle)."""
        return frozenset(self._reach(node, self._required_by))

    @staticmethod
    def _reach(start: N, adjacency: dict[N, dict[N, None]]) -> set[N]:
        seen: set[N] = set()
        stack = list(adjacency.get(start, ()))
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(adjacency[current])
        return seen

    # -- ordering and cycles ------------------------------------------------
    def toposort(self) -> list[N]:
        """Every node, each after all it requires; ties go to the earliest added.

        Raises:
            graphlib.CycleError: the graph has a cycle; ``args[1]`` is one,
                as a closed path (``[a, b, a]``).
        """
        remaining = {n: len(reqs) for n, reqs in self._requires.items()}
        order = self._order
        ready = [(order[n], n) for n, count in remaining.items() if count == 0]
        heapq.heapify(ready)
        result: list[N] = []
        while ready:
            _, node = heapq.heappop(ready)
            result.append(node)
            for dependant in self._required_by[node]:
                remaining[dependant] -= 1
                if remaining[dependant] == 0:
                    heapq.heappush(ready, (order[dependant], dependant))
        if len(result) != len(remaining):
            raise CycleError("nodes are in a cycle", self.find_cycle())
        return result

    def find_cycle(self) -> list[N] | None:
        """One cycle as a closed path along requirements (``[a, b, c, a]``), or None.

        Iterative depth-first search (no recursion limit), starting from nodes
        and following requirements in insertion order, so the answer is stable.
        """
        state: dict[N, int] = {}  # absent: unvisited, 1: on the path, 2: done
        for start in self._requires:
            if start in state:
                continue
            path: list[N] = [start]
            iters: list[Iterator[N]] = [iter(self._requires[start])]
            state[start] = 1
            while iters:
                nxt = next(iters[-1], None)
                if nxt is None:
                    state[path.pop()] = 2
                    iters.pop()
                elif nxt not in state:
                    state[nxt] = 1
                    path.append(nxt)
                    iters.append(iter(self._requires[nxt]))
                elif state[nxt] == 1:
                    return [*path[path.index(nxt) :], nxt]
        return None

    # -- text and JSON forms --------------------------------------------------
    def to_text(self, label: Callable[[N], str] = str) -> str:
        """A stable text form for golden tests: ``node -> req1, req2`` per line, sorted.

        A node requiring nothing is a line of its own name.
        """
        lines = []
        for node, reqs in self._requires.items():
            name = label(node)
            if reqs:
                lines.append(f"{name} -> {', '.join(sorted(label(r) for r in reqs))}")
            else:
                lines.append(name)
        return "\n".join(sorted(lines))

    def to_edges(self, encode: Callable[[N], Any] = _identity) -> list[list[Any]]:
        """JSON-safe ``[[requirer, required_or_null], ...]``; a null keeps a lone node."""
        edges: list[list[Any]] = []
        for node, reqs in self._requires.items():
            mine = encode(node)
            if not reqs:
                edges.append([mine, None])
            edges.extend([mine, encode(r)] for r in reqs)
        return edges

    @classmethod
    def from_edges(
        cls, edges: Iterable[Iterable[Any]], decode: Callable[[Any], N] = _identity
    ) -> Graph[N]:
        """The inverse of ``to_edges`` (give the decoder matching its encoder)."""
        graph: Graph[N] = cls()
        for requirer, required in edges:
            node = decode(requirer)
            graph.add_node(node)
            if required is not None:
                graph.add_edge(node, decode(required))
        return graph
