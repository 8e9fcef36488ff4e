"""Converting a legacy stack's rows: requires by the template's graph, Heat's order,
rows the template does not name dropped, deleted rows left alone."""

from __future__ import annotations

from hotplate.convergence.migration import convert_rows
from hotplate.graph.dag import Graph
from hotplate.model.ids import ResourceId, TemplateId
from hotplate.model.states import Action, Status
from tests.unit.convergence.factories import row

TEMPLATE = TemplateId(7)


def graph(*edges: tuple[str, str], nodes: tuple[str, ...] = ()) -> Graph[str]:
    g: Graph[str] = Graph()
    for node in nodes:
        g.add_node(node)
    for requirer, required in edges:
        g.add_node(requirer)
        g.add_node(required)
        g.add_edge(requirer, required)
    return g


def test_each_row_requires_the_rows_of_what_its_resource_depends_on() -> None:
    names = graph(("app", "net"), ("app", "db"), ("db", "net"), nodes=("lonely",))
    rows = [row(1, "net", current_template_id=None), row(2, "db", current_template_id=None),
            row(3, "app", current_template_id=None), row(4, "lonely", current_template_id=None)]
    requires, dropped = convert_rows(names, rows, TEMPLATE)
    assert requires == {ResourceId(1): (), ResourceId(2): (ResourceId(1),),
                        ResourceId(3): (ResourceId(2), ResourceId(1)), ResourceId(4): ()}
    assert dropped == ()


def test_rows_the_template_does_not_name_are_dropped_and_deleted_rows_ignored() -> None:
    names = graph(("b", "a"))
    rows = [row(1, "a"), row(2, "b"), row(3, "old"),
            row(4, "gone", action=Action.DELETE, status=Status.COMPLETE),
            row(5, "a", action=Action.DELETE, status=Status.COMPLETE)]
    requires, dropped = convert_rows(names, rows, TEMPLATE)
    assert requires == {ResourceId(1): (), ResourceId(2): (ResourceId(1),)}
    assert dropped == (ResourceId(3),)


def test_a_name_with_two_live_rows_depends_through_the_chosen_one() -> None:
    names = graph(("b", "a"))
    rows = [row(1, "a", status=Status.FAILED), row(2, "a"), row(3, "b")]
    requires, _ = convert_rows(names, rows, TEMPLATE)
    assert requires == {ResourceId(1): (), ResourceId(2): (), ResourceId(3): (ResourceId(2),)}
