import textwrap

import pytest

from hotplate.model.errors import CircularDependencyException
from hotplate.template import ALL_ATTRIBUTES, parse_template

GOLDEN = [
    (
        "independent resources",
        """
        a: {type: T}
        b: {type: T}
        """,
        "a\nb",
    ),
    (
        "depends_on, get_resource and get_attr",
        """
        net: {type: T}
        subnet: {type: T, properties: {network: {get_resource: net}}}
        port:
          type: T
          depends_on: [subnet]
          properties: {network: {get_attr: [net, id]}}
        server: {type: T, properties: {port: {get_resource: port}}, depends_on: net}
        """,
        "net\nport -> net, subnet\nserver -> net, port\nsubnet -> net",
    ),
    (
        "references deep inside functions and metadata",
        """
        db: {type: T}
        cache: {type: T}
        web:
          type: T
          properties:
            conf:
              str_replace:
                template: "db=$db cache=$cache"
                params:
                  $db: {get_attr: [db, address]}
                  $cache: {list_join: [",", {get_attr: [cache, nodes]}]}
          metadata: {x: [{get_resource: db}]}
        """,
        "cache\ndb\nweb -> cache, db",
    ),
]


@pytest.mark.parametrize(("resources", "expected"), [g[1:] for g in GOLDEN],
                         ids=[g[0] for g in GOLDEN])
def test_dependency_graph_golden(resources: str, expected: str) -> None:
    text = "heat_template_version: 2021-04-16\nresources:\n" + textwrap.indent(
        textwrap.dedent(resources), "  "
    )
    assert parse_template(text).dependencies().to_text() == expected


def test_graph_nodes_are_in_template_order_and_copies() -> None:
    template = parse_template(
        {
            "heat_template_version": "2021-04-16",
            "resources": {"z": {"type": "T"}, "a": {"type": "T", "depends_on": "z"}},
        }
    )
    graph = template.dependencies()
    assert list(graph.nodes) == ["z", "a"]
    assert graph.toposort() == ["z", "a"]
    graph.add_edge("z", "a")
    assert template.dependencies().find_cycle() is None


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        ({"a": {"type": "T", "depends_on": "a"}}, "Circular Dependency Found: a -> a"),
        (
            {
                "a": {"type": "T", "depends_on": "b"},
                "b": {"type": "T", "properties": {"x": {"get_attr": ["a", "y"]}}},
            },
            "Circular Dependency Found: a -> b -> a",
        ),
        (
            {
                "x": {"type": "T"},
                "a": {"type": "T", "properties": {"p": {"get_resource": "b"}}},
                "b": {"type": "T", "properties": {"p": {"get_resource": "c"}}},
                "c": {"type": "T", "depends_on": ["x", "a"]},
            },
            "Circular Dependency Found: a -> b -> c -> a",
        ),
    ],
)
def test_cycles_are_named(resources: dict[str, object], message: str) -> None:
    template = parse_template({"heat_template_version": "2021-04-16", "resources": resources})
    with pytest.raises(CircularDependencyException) as info:
        template.dependencies()
    assert str(info.value) == message


def test_attributes_referenced() -> None:
    template = parse_template(
        {
            "heat_template_version": "2021-04-16",
            "resources": {
                "db": {"type": "T"},
                "lb": {"type": "T"},
                "idle": {"type": "T"},
                "web": {
                    "type": "T",
                    "properties": {"a": {"get_attr": ["db", "ip"]}, "b": {"get_attr": ["lb"]}},
                    "metadata": {"c": {"get_attr": ["db", "port", 0]}},
                },
            },
            "outputs": {"url": {"value": {"get_attr": ["web", "url"]}}},
        }
    )
    assert dict(template.attributes_referenced()) == {
        "db": frozenset({"ip", "port"}),
        "lb": frozenset({ALL_ATTRIBUTES}),
        "idle": frozenset(),
        "web": frozenset({"url"}),
    }
