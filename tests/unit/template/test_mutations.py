"""Random damage to a valid template must only ever produce StackValidationFailed.

A broken template is a user error; a TypeError or KeyError escaping the
parser would be a 500 instead of a 400 with a message.
"""

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from hotplate.template import parse_template, resolve_parameters
from tests.unit.template.fakes import FakeContext

BASE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "mutation base",
    "parameters": {
        "name": {"type": "string", "default": "n", "constraints": [{"length": {"max": 9}}]},
        "count": {"type": "number", "default": 2, "constraints": [{"range": {"min": 1}}]},
        "nets": {"type": "comma_delimited_list", "default": "a,b"},
        "conf": {"type": "json", "default": {"k": [1, 2]}},
        "flag": {"type": "boolean", "default": True},
    },
    "conditions": {"on": True},
    "resources": {
        "db": {"type": "OS::Heat::None", "properties": {"size": {"get_param": "count"}}},
        "web": {
            "type": "OS::Heat::None",
            "depends_on": ["db"],
            "condition": "on",
            "properties": {
                "name": {
                    "str_replace": {
                        "template": "host-$n-$ip",
                        "params": {"$n": {"get_param": "name"}, "$ip": {"get_attr": ["db", "ip"]}},
                    }
                },
                "nets": {"list_join": [",", {"get_param": "nets"}, ["c"]]},
                "ref": {"get_resource": "db"},
                "deep": {"get_param": ["conf", "k", 0]},
                "file": {"get_file": "f.txt"},
            },
            "metadata": {"m": {"get_attr": ["db", "addrs", "net", 0]}},
            "deletion_policy": "Retain",
        },
    },
    "outputs": {
        "url": {"value": {"get_attr": ["web", "url"]}, "description": "d"},
        "all": {"value": {"get_attr": ["db"]}},
    },
}
FILES = {"f.txt": "content"}

KEYS = [
    "get_param", "get_attr", "get_resource", "str_replace", "list_join", "get_file", "template",
    "params", "type", "properties", "metadata", "depends_on", "value", "condition",
    "deletion_policy", "db", "web", "name", "count", "constraints", "default", "range", "min",
    "length", "allowed_values", "allowed_pattern", "modulo", "Fn::Join", "repeat", "$n",
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(KEYS)
    | st.text(max_size=4)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


def all_paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            paths.extend(all_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            paths.extend(all_paths(value, (*prefix, i)))
    return paths


def mutate(data: dict[str, Any], choice: int, op: str, key: str, value: Any) -> dict[str, Any]:
    result = copy.deepcopy(data)
    paths = all_paths(result)[1:]
    path = paths[choice % len(paths)]
    parent: Any = result
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if op == "replace":
        parent[last] = value
    elif op == "delete":
        del parent[last]
    elif isinstance(parent[last], dict):
        parent[last][key] = value
    else:
        parent[last] = {key: value}
    return result


def exercise(template_source: Any, attribute: Any) -> None:
    try:
        template = parse_template(template_source, files=FILES)
        template.dependencies()
        template.attributes_referenced()
        template.to_dict()
        params = resolve_parameters(template, {})
        params.update({"OS::stack_name": "s", "OS::stack_id": "i", "OS::project_id": "p"})
        ctx = FakeContext(
            params=params,
            refs={name: f"{name}-id" for name in template.resources},
            attrs={name: {"ip": attribute, "url": attribute, "addrs": attribute, "*": attribute}
                   for name in template.resources},
        )
        for definition in template.resources.values():
            definition.resolve_properties(ctx)
            definition.resolve_metadata(ctx)
        for output in template.outputs.values():
            output.resolve(ctx)
    except StackValidationFailed:
        pass


def test_the_base_template_is_valid() -> None:
    template = parse_template(BASE, files=FILES)
    assert template.dependencies().to_text() == "db\nweb -> db"
    params = resolve_parameters(template, {})
    ctx = FakeContext(params=params, refs={"db": "db-id"}, attrs={"db": {"ip": "1.2.3.4"}})
    assert template.resources["web"].resolve_properties(ctx) == {
        "name": "host-n-1.2.3.4",
        "nets": "a,b,c",
        "ref": "db-id",
        "deep": 1,
        "file": "content",
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0),
    st.sampled_from(["replace", "delete", "add"]),
    st.sampled_from(KEYS),
    values,
    values,
)
def test_mutated_templates_fail_only_with_validation_errors(
    choice: int, op: str, key: str, value: Any, attribute: Any
) -> None:
    exercise(mutate(BASE, choice, op, key, value), attribute)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=3), st.text(max_size=3))
def test_mutated_text_fails_only_with_validation_errors(
    position: int, cut: int, insert: str
) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False)
    at = position % len(text)
    exercise(text[:at] + insert + text[at + cut :], {"a": [1]})
