"""Turning a legacy stack's rows into a convergence stack's (``heat-manage
migrate_convergence_1``).

A convergence traversal reads two things from each resource row that the
legacy engine never wrote: ``current_template_id`` (the template the row was
last brought to) and ``requires`` (the rows it depended on then), from which
the next traversal draws its cleanup nodes (graph_build.py). A stack whose
last action completed has its rows where its template says, so both follow
from that template: every live row gets the stack's template and the ids of
the rows its resource depends on in it. A live row whose name the template
does not have is dropped, as Heat drops it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hotplate.convergence.rows import choose_rows
from hotplate.graph.dag import Graph
from hotplate.model.ids import ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status

__all__ = ["StackConversion", "convert_rows"]


@dataclass(frozen=True, slots=True)
class StackConversion:
    """What one stack's migration writes, and the state it must find the stack in.

    ``requires`` is Heat's order (largest id first); ``dropped`` are rows no resource
    of the template names; ``prev_template_id`` goes once nothing refers to it.
    """

    stack_id: StackId
    expected_traversal: TraversalId
    template_id: TemplateId
    new_traversal: TraversalId
    requires: Mapping[ResourceId, tuple[ResourceId, ...]]
    dropped: tuple[ResourceId, ...]
    prev_template_id: TemplateId | None


def convert_rows(
    name_graph: Graph[str], rows: Iterable[ResourceRecord], template_id: TemplateId
) -> tuple[dict[ResourceId, tuple[ResourceId, ...]], tuple[ResourceId, ...]]:
    """Each live row's ``requires`` by the template's dependencies, and the live rows
    the template has no resource for.

    Live rows are those not DELETE_COMPLETE. A name with several live rows (a legacy
    replacement left behind) depends through the row a traversal would choose for it;
    each of its rows gets the same ``requires``.
    """
    live = [row for row in rows
            if not (row.action is Action.DELETE and row.status is Status.COMPLETE)]
    chosen = choose_rows(name_graph.nodes, live, template_id, None).chosen
    requires: dict[ResourceId, tuple[ResourceId, ...]] = {}
    dropped: list[ResourceId] = []
    for row in live:
        if row.name not in name_graph.nodes:
            dropped.append(row.id)
            continue
        needed = {chosen[name].id for name in name_graph.requires(row.name) if name in chosen}
        requires[row.id] = tuple(sorted(needed, reverse=True))
    return requires, tuple(dropped)
