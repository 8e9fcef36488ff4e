"""Random damage to a valid CFN template must only ever produce StackValidationFailed.

The CFN counterpart of ``test_mutations``: a TypeError or KeyError escaping
the parser or a CFN function would be a 500 instead of a 400 with a message.
"""

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from hotplate.template import parse_template, resolve_parameters
from tests.unit.template.fakes import FakeContext

BASE: dict[str, Any] = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Description": "mutation base",
    "Parameters": {
        "Env": {"Type": "String", "Default": "test", "AllowedValues": ["test", "prod"]},
        "Count": {"Type": "Number", "Default": 2, "MinValue": 1},
        "Nets": {"Type": "CommaDelimitedList", "Default": "a,b"},
    },
    "Mappings": {"Images": {"test": {"image": "cirros"}, "prod": {"image": "fedora"}}},
    "Conditions": {"IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
                   "NotProd": {"Fn::Not": ["IsProd"]}},
    "Resources": {
        "db": {"Type": "OS::Heat::None",
               "Properties": {"image": {"Fn::FindInMap": ["Images", {"Ref": "Env"}, "image"]}}},
        "web": {
            "Type": "OS::Heat::None",
            "DependsOn": ["db"],
            "Condition": "NotProd",
            "Properties": {
                "name": {"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, {"Ref": "Env"}]]},
                "ip": {"Fn::GetAtt": ["db", "ip"]},
                "ref": {"Ref": "db"},
                "net": {"Fn::Select": [0, {"Ref": "Nets"}]},
                "parts": {"Fn::Split": [",", "x,y"]},
                "text": {"Fn::Replace": [{"$c": {"Ref": "Count"}}, "n=$c"]},
                "data": {"Fn::Base64": {"Fn::If": ["IsProd", "p", "t"]}},
                "tags": {"Fn::MemberListToMap": ["K", "V", [".member.0.K=a", ".member.0.V=b"]]},
                "zone": {"Fn::GetAZs": ""},
            },
            "Metadata": {"m": {"Fn::GetAtt": ["db", "addrs"]}},
            "DeletionPolicy": "Retain",
        },
    },
    "Outputs": {"url": {"Value": {"Fn::GetAtt": ["web", "url"]}, "Description": "d"}},
}

KEYS = [
    "Ref", "Fn::GetAtt", "Fn::Join", "Fn::Select", "Fn::Split", "Fn::Replace", "Fn::Base64",
    "Fn::FindInMap", "Fn::GetAZs", "Fn::MemberListToMap", "Fn::If", "Fn::Equals", "Fn::Not",
    "Fn::And", "Fn::Or", "Type", "Properties", "Metadata", "DependsOn", "Condition", "Value",
    "DeletionPolicy", "db", "web", "Env", "Count", "IsProd", "AWS::StackId", "Images",
    "MinValue", "AllowedValues", "Default",
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from(KEYS)
    | st.text(max_size=4)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            paths.extend(_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            paths.extend(_paths(value, (*prefix, i)))
    return paths


def _mutate(choice: int, op: str, key: str, value: Any) -> dict[str, Any]:
    result = copy.deepcopy(BASE)
    paths = _paths(result)[1:]
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


def _exercise(source: Any, attribute: Any) -> dict[str, Any] | None:
    try:
        template = parse_template(source)
        template.dependencies()
        params = resolve_parameters(template, {})
        params.update({"OS::stack_name": "s", "OS::stack_id": "i", "OS::project_id": "p"})
        template = template.with_parameters(params)
        ctx = FakeContext(
            params=params,
            refs={name: f"{name}-id" for name in template.resources},
            attrs={name: {"ip": attribute, "url": attribute, "addrs": attribute}
                   for name in template.resources},
        )
        resolved = {name: d.resolve_properties(ctx) for name, d in template.resources.items()}
        for definition in template.resources.values():
            definition.resolve_metadata(ctx)
        for output in template.outputs.values():
            output.resolve(ctx)
        return resolved
    except StackValidationFailed:
        return None


def test_the_base_template_is_valid() -> None:
    resolved = _exercise(BASE, "10.0.0.1")
    assert resolved is not None
    assert resolved["web"] == {
        "name": "s-test", "ip": "10.0.0.1", "ref": "db-id", "net": "a", "parts": ["x", "y"],
        "text": "n=2", "data": "t", "tags": {"a": "b"}, "zone": ["nova"],
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0),
    st.sampled_from(["replace", "delete", "add"]),
    st.sampled_from(KEYS),
    values,
    values,
)
def test_mutated_cfn_templates_fail_only_with_validation_errors(
    choice: int, op: str, key: str, value: Any, attribute: Any
) -> None:
    _exercise(_mutate(choice, op, key, value), attribute)
