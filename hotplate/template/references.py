"""What the engine derives from references: the dependency graph and the attributes read.

Both come from what each definition recorded at parse time, so building
them is linear in the number of references, not in the template's size.
"""

from __future__ import annotations

from collections.abc import Mapping

from hotplate.graph import Graph
from hotplate.template.definitions import OutputDefinition, ResourceDefinition


def dependency_graph(resources: Mapping[str, ResourceDefinition]) -> Graph[str]:
    """Resource names, each requiring what it references; edges in template order."""
    order = {name: i for i, name in enumerate(resources)}
    graph: Graph[str] = Graph()
    for name in resources:
        graph.add_node(name)
    for name, definition in resources.items():
        for required in sorted(definition.references(), key=order.__getitem__):
            graph.add_edge(name, required)
    return graph


def attributes_read(
    resources: Mapping[str, ResourceDefinition], outputs: Mapping[str, OutputDefinition]
) -> dict[str, frozenset[str]]:
    """Per resource, the attributes that properties, metadata or outputs read with get_attr."""
    found: dict[str, set[str]] = {name: set() for name in resources}
    reads = [d.reads for d in resources.values()] + [o.reads for o in outputs.values()]
    for pairs in reads:
        for target, attribute in pairs:
            found.setdefault(target, set()).add(attribute)
    return {name: frozenset(attrs) for name, attrs in found.items()}
