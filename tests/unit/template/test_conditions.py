"""The conditions section: named conditions, condition functions, ``condition:`` on
resources and outputs, ``if``, and ``Template.with_parameters``."""

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.template import Template, parse_template
from tests.unit.template.fakes import FakeContext


def _template(
    conditions: Any, resources: dict[str, Any] | None = None,
    outputs: dict[str, Any] | None = None, version: str = "2021-04-16",
) -> Template:
    data: dict[str, Any] = {
        "heat_template_version": version,
        "parameters": {"env": {"type": "string", "default": "prod"},
                       "n": {"type": "number", "default": 2},
                       "zones": {"type": "comma_delimited_list", "default": "a,b"}},
        "conditions": conditions,
        "resources": resources or {"r": {"type": "OS::Heat::None"}},
    }
    if outputs is not None:
        data["outputs"] = outputs
    return parse_template(data)


PARAMS = {"env": "prod", "n": 2, "zones": ["a", "b"], "OS::stack_name": "s"}

TRUTH: list[tuple[str, Any, bool]] = [
    ("literal", True, True),
    ("equals", {"equals": [{"get_param": "env"}, "prod"]}, True),
    ("equals false", {"equals": [{"get_param": "n"}, 3]}, False),
    ("not", {"not": {"equals": [{"get_param": "env"}, "prod"]}}, False),
    ("and", {"and": [True, {"equals": [1, 1]}]}, True),
    ("and false", {"and": [True, False]}, False),
    ("or", {"or": [False, {"equals": [{"get_param": "env"}, "prod"]}]}, True),
    ("reference", {"not": "other"}, True),
    ("and of names", {"and": ["other", "yes"]}, False),
    ("contains", {"contains": ["a", {"get_param": "zones"}]}, True),
    ("yaql", {"yaql": {"expression": "$.data.n > 1", "data": {"n": {"get_param": "n"}}}}, True),
    ("pseudo parameter", {"equals": [{"get_param": "OS::stack_name"}, "s"]}, True),
    ("name from a parameter", {"not": {"get_param": "env"}}, False),
]


@pytest.mark.parametrize(("definition", "expected"), [c[1:] for c in TRUTH],
                         ids=[c[0] for c in TRUTH])
def test_resource_condition_decides_presence(definition: Any, expected: bool) -> None:
    conditions = {"c": definition, "other": False, "yes": True, "prod": True}
    template = _template(conditions, {
        "r": {"type": "OS::Heat::None", "condition": "c"},
        "s": {"type": "OS::Heat::None", "properties": {"a": {"get_attr": ["r", "x"]}},
              "depends_on": ["r"]},
    })
    assert set(template.resources) == {"r", "s"}  # undecided without values
    decided = template.with_parameters(PARAMS)
    assert decided.conditions_decided
    assert ("r" in decided.resources) is expected
    assert ("r" in decided.dependencies()) is expected
    assert ("r" in decided.attributes_referenced()) is expected
    assert decided.resources["s"].references() == (frozenset({"r"}) if expected else frozenset())


def test_inline_condition_function_on_resource() -> None:
    template = _template({}, {"r": {"type": "OS::Heat::None",
                                    "condition": {"equals": [{"get_param": "n"}, 3]}}})
    assert "r" in template.resources
    assert "r" not in template.with_parameters(PARAMS).resources
    assert "r" in template.with_parameters({**PARAMS, "n": 3}).resources


def test_literal_false_is_decided_without_values() -> None:
    template = _template({"off": False}, {"r": {"type": "OS::Heat::None", "condition": "off"}})
    assert "r" not in template.resources


BAD: list[tuple[str, Any, dict[str, Any], str]] = [
    # Named conditions are evaluated only when used, and their errors are Heat's
    # "Condition validation error"s, or else reported where they were used.
    ("cycle", {"a": {"not": "b"}, "b": {"and": ["a", True]}},
     {"type": "OS::Heat::None", "condition": "a"},
     'Condition validation error: Circular definition for condition "a"'),
    ("self cycle", {"a": {"not": "a"}}, {"type": "OS::Heat::None", "condition": "a"},
     'Condition validation error: Circular definition for condition "a"'),
    ("unknown name", {"a": {"not": "zz"}}, {"type": "OS::Heat::None", "condition": "a"},
     'resources.r.condition: Invalid condition "zz"'),
    ("resource unknown name", {}, {"type": "OS::Heat::None", "condition": "zz"},
     'resources.r.condition: Invalid condition "zz"'),
    ("and arity", {"a": {"and": [True]}}, {"type": "OS::Heat::None"},
     'conditions.a.and: The minimum number of condition arguments to "and" is 2.'),
    ("or not list", {"a": {"or": "x"}}, {"type": "OS::Heat::None"},
     'conditions.a.or: Arguments to "or" must be a list of conditions'),
    ("not null", {"a": {"not": None}}, {"type": "OS::Heat::None"},
     'conditions.a.not: Argument to "not" must be a condition'),
    ("equals arity", {"a": {"equals": [1]}}, {"type": "OS::Heat::None"},
     'conditions.a.equals: Arguments to "equals" must be of the form: [value_1, value_2]'),
    ("invalid function", {"a": {"get_resource": "r"}}, {"type": "OS::Heat::None"},
     'conditions.a.get_resource: The function "get_resource" is invalid in this context'),
    ("not a definition", {"a": "text"}, {"type": "OS::Heat::None"},
     'Condition validation error: The definition of condition "a" is invalid: text'),
    ("contains before pike", {"a": {"contains": [{"get_param": "env"}, [1]]}},
     {"type": "OS::Heat::None"},  # printed as written, calls and all
     "Condition validation error: The definition of condition \"a\" is invalid: "
     "{'contains': [{'get_param': 'env'}, [1]]}"),
    ("condition type", {}, {"type": "OS::Heat::None", "condition": [1]},
     "Resource r condition type must be string_or_boolean"),
]


@pytest.mark.parametrize(("conditions", "resource", "message"), [c[1:] for c in BAD],
                         ids=[c[0] for c in BAD])
def test_condition_errors(conditions: Any, resource: dict[str, Any], message: str) -> None:
    version = "2017-02-24" if "contains" in str(conditions) else "2021-04-16"
    with pytest.raises(StackValidationFailed) as info:
        _template(conditions, {"r": resource}, version=version).with_parameters(PARAMS)
    assert str(info.value) == message


def test_condition_that_is_not_boolean_after_resolving() -> None:
    template = _template({"a": {"get_param": "env"}},
                         {"r": {"type": "OS::Heat::None", "condition": "a"}})
    with pytest.raises(StackValidationFailed) as info:
        template.with_parameters(PARAMS)
    assert str(info.value) == (
        'Condition validation error: The definition of condition "a" is invalid: prod')


def test_cycle_through_a_parameter_is_caught_when_evaluating() -> None:
    template = _template({"a": {"not": {"get_param": "env"}}, "prod": {"not": "a"}},
                         {"r": {"type": "OS::Heat::None", "condition": "a"}})
    with pytest.raises(StackValidationFailed, match="Circular definition"):
        template.with_parameters(PARAMS)


def test_missing_parameter_value() -> None:
    template = _template({"a": {"equals": [{"get_param": "env"}, "x"]}},
                         {"r": {"type": "OS::Heat::None", "condition": "a"}})
    with pytest.raises(UserParameterMissing):
        template.with_parameters({})


IF_PROPS = {"size": {"if": ["big", {"get_attr": ["db", "size"]}, 1]},
            "name": {"if": [{"equals": [{"get_param": "env"}, "prod"]}, "p", "d"]}}


def test_if_in_properties_chooses_one_branch() -> None:
    template = _template({"big": {"equals": [{"get_param": "n"}, 2]}}, {
        "db": {"type": "OS::Heat::None"},
        "web": {"type": "OS::Heat::None", "properties": IF_PROPS},
    })
    ctx = FakeContext(params=PARAMS, attrs={"db": {"size": 9}})
    # Undecided: both branches kept, the condition read when resolving.
    assert template.resources["web"].references() == frozenset({"db"})
    assert template.resources["web"].resolve_properties(ctx) == {"size": 9, "name": "p"}
    small = template.with_parameters({**PARAMS, "n": 1, "env": "dev"})
    assert small.resources["web"].references() == frozenset()
    assert small.attributes_referenced()["db"] == frozenset()
    assert small.resources["web"].resolve_properties(ctx) == {"size": 1, "name": "d"}
    big = template.with_parameters(PARAMS)
    assert big.resources["web"].references() == frozenset({"db"})
    assert big.resources["web"].resolve_properties(ctx) == {"size": 9, "name": "p"}


def test_if_is_data_before_2016_10_14() -> None:
    data = {"heat_template_version": "2016-04-08",
            "resources": {"r": {"type": "T", "properties": {"a": {"if": [True, 1, 2]}}}}}
    assert parse_template(data).resources["r"].resolve_properties(FakeContext()) == {
        "a": {"if": [True, 1, 2]}}


def test_outputs_with_conditions() -> None:
    outputs = {"on": {"value": {"if": ["big", "B", "S"]}, "condition": "big"},
               "off": {"value": "x", "condition": {"not": "big"}},
               "plain": {"value": 1}}
    template = _template({"big": {"equals": [{"get_param": "n"}, 2]}}, outputs=outputs)
    ctx = FakeContext(params=PARAMS)
    # Undecided outputs evaluate their condition when resolved.
    assert {n: o.resolve(ctx) for n, o in template.outputs.items()} == {
        "on": "B", "off": None, "plain": 1}
    decided = template.with_parameters({**PARAMS, "n": 1})
    assert {n: o.resolve(ctx) for n, o in decided.outputs.items()} == {
        "on": None, "off": "x", "plain": 1}


def test_to_dict_is_unchanged_by_conditions() -> None:
    template = _template({"off": {"equals": [1, 2]}},
                         {"r": {"type": "OS::Heat::None", "condition": "off"}})
    decided = template.with_parameters(PARAMS)
    assert decided.to_dict() == template.to_dict()
    assert "r" in decided.to_dict()["resources"]
