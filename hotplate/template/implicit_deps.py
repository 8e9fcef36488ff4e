"""Implicit dependencies: edges a resource's type adds to the graph (Heat's add_dependencies).

Some types need others that the template never references from them: a port
needs the subnets of its network (Neutron picks its address from one of
them), a floating IP the router gateway or interface that makes its network
reachable. Heat lets each type add such edges while the stack's graph is
built; here a type declares them as a pure rule, and this module adds them::

    for each resource R whose type has a rule:
        rule(R as a Peer, every Peer by name) -> names R requires as well
    edges R -> each such name (unknown names and R itself ignored)
    graph = the template's graph + those edges; a cycle is reported as any
            other ("Circular Dependency Found: a -> b -> a")

A ``Peer`` carries what the rules compare, read before any resource exists,
as Heat reads them then: properties with ``get_param`` resolved,
``get_resource`` standing for the resource's name and ``get_attr`` for None
(a property that cannot be resolved yet is left out), the caller's ``kind``
for the resource (the engine passes the plugin class, so a rule can ask
"is it a Subnet?" as Heat's ``has_interface`` does) and the names the
resource already requires. Nothing here does I/O or knows any type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.graph import Graph
from hotplate.template.template import Template

__all__ = ["ImplicitRule", "Peer", "implicit_edges", "with_implicit_dependencies"]


@dataclass(frozen=True, slots=True)
class Peer:
    """One resource as the rules see it (module docstring)."""

    name: str
    kind: Any
    properties: Mapping[str, Any]
    requires: frozenset[str] = frozenset()


ImplicitRule = Callable[[Peer, Mapping[str, Peer]], Iterable[str]]
"""``rule(me, peers) -> names``: what ``me`` requires besides what it references."""


class _BeforeCreation:
    """Resolution before any resource exists: a reference stands for the name."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self._params = params

    def parameter(self, name: str) -> Any:
        return self._params[name]

    def resource_reference(self, name: str) -> str | None:
        return name

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return None


def _properties(template: Template, name: str, ctx: _BeforeCreation) -> dict[str, Any]:
    try:
        return template.resources[name].resolve_properties(ctx)
    except Exception:  # a property error is reported by validation, in its context
        return {}


def implicit_edges(template: Template, kinds: Mapping[str, Any],
                   rule_of: Callable[[Any], ImplicitRule | None],
                   params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ``(requirer, required)`` edges the types' rules add, in template order.

    ``kinds`` names each resource's kind (resources missing from it have no
    rule); ``rule_of(kind)`` is that kind's rule, or None; ``params`` are the
    values ``get_param`` reads.
    """
    ruled = {name: rule for name in template.resources
             if name in kinds and (rule := rule_of(kinds[name])) is not None}
    if not ruled:
        return []
    ctx = _BeforeCreation(params)
    peers = {name: Peer(name, kinds.get(name), _properties(template, name, ctx),
                        template.resources[name].references())
             for name in template.resources}
    edges: list[tuple[str, str]] = []
    for name, rule in ruled.items():
        for required in rule(peers[name], peers):
            if required != name and required in peers and (name, required) not in edges:
                edges.append((name, required))
    return edges


def with_implicit_dependencies(template: Template, edges: Iterable[tuple[str, str]]
                               ) -> Template:
    """``template`` whose ``dependencies()`` include ``edges`` (itself when none)."""
    edges = list(edges)
    if not edges:
        return template
    graph: Graph[str] = template._graph.copy()
    for requirer, required in edges:
        graph.add_edge(requirer, required)
    cycle = template._cycle if template._cycle is not None else graph.find_cycle()
    return dataclasses.replace(template, _graph=graph, _cycle=cycle)
