"""What the engine derives from references: the dependency graph and the attributes read.

Both come from what each definition recorded at parse time, so building
them is linear in the number of references, not in the template's size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.graph import Graph
from hotplate.template.definitions import OutputDefinition, ResourceDefinition
from hotplate.template.functions.base import Static, iter_functions
from hotplate.template.functions.references import GetAttr


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


def computed_attribute_targets(
    resources: Mapping[str, ResourceDefinition], outputs: Mapping[str, OutputDefinition]
) -> frozenset[str]:
    """The resources some get_attr reads under a name computed only when resolving.

    ``attributes_read`` cannot list that name, so these resources' dependants
    and outputs read such an attribute from the resource itself, once known.
    """
    nodes = [n for d in resources.values() for n in (d.properties_node, d.metadata_node)]
    nodes += [o.value_node for o in outputs.values()]
    return frozenset(
        function.name for node in nodes for function in iter_functions(node)
        if isinstance(function, GetAttr) and function.needs_live_attribute)


def attribute_paths_read(
    resources: Mapping[str, ResourceDefinition], outputs: Mapping[str, OutputDefinition],
) -> dict[str, frozenset[tuple[str, tuple[Any, ...]]]]:
    """Per resource, the ``(attribute, path)`` pairs get_attr reads with a literal path.

    For the types that resolve a path themselves (a group's ``[group, attr, key]``
    is the key of each member's attribute, not an item of the list).
    """
    nodes = [n for d in resources.values() for n in (d.properties_node, d.metadata_node)]
    nodes += [o.value_node for o in outputs.values()]
    found: dict[str, set[tuple[str, tuple[Any, ...]]]] = {}
    for node in nodes:
        for function in iter_functions(node):
            if not isinstance(function, GetAttr):
                continue
            target, attribute = function.target, function.attribute
            if (target is not None and function.enabled and isinstance(attribute, str)
                    and function.components
                    and all(isinstance(c, Static) for c in function.components)):
                path = tuple(c.value for c in function.components if isinstance(c, Static))
                found.setdefault(target, set()).add((attribute, path))
    return {target: frozenset(pairs) for target, pairs in found.items()}
