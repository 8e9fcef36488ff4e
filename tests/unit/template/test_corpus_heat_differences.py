"""Heat's less obvious template behaviours, found while building the corpus.

Each test asserts what Heat does. A new difference goes here as an
``xfail(strict=True)`` test whose reason names Heat's code that decides it;
once hotplate matches, the marker comes off and the test guards it.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.template import merge_environments, parse_template, resolve_parameters
from hotplate.template.validation import validate_functions
from tests.unit.template.fakes import FakeContext, resolve_web


def _resolve(template_data: dict[str, Any], **params: Any) -> dict[str, Any]:
    """Create-time resolution: parameters decided, then ``web``'s properties."""
    template = parse_template(template_data)
    values = {**resolve_parameters(template, params), "OS::stack_name": "s"}
    decided = template.with_parameters(values)
    return decided.resources["web"].resolve_properties(FakeContext(params=values))


def test_an_untaken_if_branch_is_never_evaluated() -> None:
    data = {
        "heat_template_version": "2017-02-24",
        "parameters": {"large": {"type": "boolean", "default": False}},
        "conditions": {"large": {"equals": [{"get_param": "large"}, True]}},
        "resources": {"web": {"type": "OS::Heat::None", "properties": {"v": {"if": [
            "large",
            {"str_replace_strict": {"template": "a", "params": {"missing": "x"}}},
            "small",
        ]}}}},
    }
    assert _resolve(data) == {"v": "small"}


def test_repeat_over_numbers_fails_as_in_heat() -> None:
    with pytest.raises(StackValidationFailed):
        resolve_web({"v": {"repeat": {"template": "n-%i%", "for_each": {"%i%": [1, 2]}}}})


def test_list_concat_unique_keeps_the_first_occurrence() -> None:
    assert resolve_web({"v": {"list_concat_unique": [[0, 1], [0, 2, 1, 2]]}}) == {
        "v": [0, 1, 2]
    }


def test_digest_hashes_latin_1_bytes() -> None:
    assert resolve_web({"v": {"digest": ["md5", "é"]}}) == {
        "v": "3406877694691ddd1dfb0aca54681407"
    }


def test_digest_accepts_every_hashlib_algorithm() -> None:
    assert resolve_web({"v": {"digest": ["sha3_256", "data"]}}) == {
        "v": "efda893aa850b0c0e61f33325615b9d93bcf6b42d60d8f5d37ebc720fd4e3daf"
    }


def test_parameter_groups_are_validated() -> None:
    data = {
        "heat_template_version": "2021-04-16",
        "parameter_groups": [{"label": "g", "parameters": ["nope"]}],
        "parameters": {"a": {"type": "string", "default": "x"}},
        "resources": {"web": {"type": "OS::Heat::None"}},
    }
    with pytest.raises(StackValidationFailed, match="nope"):
        parse_template(data)


# -- environment merging (heat/common/environment_util.py) --

_FLAGS = parse_template({
    "heat_template_version": "2021-04-16",
    "parameters": {"flags": {"type": "comma_delimited_list", "default": ""},
                   "quota": {"type": "number", "default": 0}},
})


def _merge(*envs: Any) -> Any:
    return merge_environments(list(envs), template=_FLAGS).parameters


def test_the_first_file_setting_a_parameter_binds_no_strategy() -> None:
    first = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "a"}}
    second = {"parameter_merge_strategies": {"flags": "overwrite"},
              "parameters": {"flags": "b"}}
    assert _merge({}, first, second) == {"flags": "b"}


def test_request_parameters_bind_no_strategy() -> None:
    file = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "b"}}
    assert _merge({"parameters": {"flags": "a"}}, file) == {"flags": "a,b"}


def test_a_file_without_strategies_uses_its_own_default() -> None:
    first = {"parameter_merge_strategies": {"flags": "merge"}, "parameters": {"flags": "a"}}
    second = {"parameters": {"flags": "b"}}
    with pytest.raises(StackValidationFailed, match="Conflicting merge strategy"):
        _merge({"parameters": {"quota": 1}}, first, second)


def test_merging_numbers_is_refused() -> None:
    first = {"parameter_merge_strategies": {"quota": "merge"}, "parameters": {"quota": 10}}
    second = {"parameter_merge_strategies": {"quota": "merge"}, "parameters": {"quota": 5}}
    with pytest.raises(StackValidationFailed):
        _merge({"parameters": {"flags": "x"}}, first, second)


# -- when a function's error surfaces (heat/engine/function.py: validate vs result) --

def _value_template(value: Any, version: str, *, output: bool = False) -> Any:
    data: dict[str, Any] = {"heat_template_version": version, "resources": {
        "db": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
    if output:
        data["outputs"] = {"o": {"value": value}}
    else:
        data["resources"]["web"] = {"type": "OS::Heat::Value", "properties": {"v": value}}
    return parse_template(data)


@pytest.mark.parametrize(("version", "value", "message"), [
    ("2014-10-16", {"str_replace": {"template": "v=x", "params": {"x": [1]}}},
     "params must be strings or numbers"),
    ("2017-02-24", {"str_replace_strict": {"template": "a", "params": {"z": "x"}}},
     "The following params were not found in the template: z"),
    ("2015-10-15", {"str_split": [",", "a,b", 5]}, "should be between 0 and 1"),
    ("2017-09-01", {"repeat": {"template": "%a%%b%", "permutations": False,
                               "for_each": {"%a%": ["a", "b"], "%b%": ["x"]}}},
     "the length of for_each values should be equal"),
    ("2016-10-14", {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]},
     "key replacement b collides with a key in the input map"),
])
def test_result_errors_wait_for_the_resolve(version: str, value: Any, message: str) -> None:
    template = _value_template(value, version, output=True)
    validate_functions(template)  # accepted before the create, as Heat accepts it
    with pytest.raises(StackValidationFailed, match=message):
        template.outputs["o"].resolve(FakeContext())


def test_an_outputs_unknown_attribute_is_refused_when_validated() -> None:
    template = _value_template({"get_attr": ["db", "nope"]}, "2021-04-16", output=True)
    with pytest.raises(StackValidationFailed) as info:
        validate_functions(template, {"db": frozenset({"value", "show"})})
    assert str(info.value) == (
        "outputs.o.value.get_attr: The Referenced Attribute (db nope) is incorrect.")


def test_an_error_inside_a_call_is_reported_at_the_call() -> None:
    value = {"str_replace": {"template": "x", "params": {"x": {"get_attr": ["db", "nope"]}}}}
    with pytest.raises(StackValidationFailed) as info:
        validate_functions(_value_template(value, "2021-04-16"), {"db": frozenset({"value"})})
    assert str(info.value) == (
        "resources.web.properties.v.str_replace: params.x.get_attr: "
        "The Referenced Attribute (db nope) is incorrect.")


def test_get_attr_of_a_name_reads_every_attribute() -> None:
    template = _value_template({"get_attr": ["db"]}, "2015-10-15", output=True)
    ctx = FakeContext(attrs={"db": {"*": {"value": 1}}})
    assert template.outputs["o"].resolve(ctx) == {"value": 1}


@pytest.mark.parametrize(("version", "accepted"), [("2018-08-31", False),
                                                   ("2021-04-16", True)])
def test_if_with_two_arguments_from_wallaby(version: str, accepted: bool) -> None:
    value = {"k": {"if": [False, "a"]}, "l": [1, {"if": [False, "a"]}]}
    if not accepted:
        with pytest.raises(StackValidationFailed, match='Arguments to "if"'):
            _value_template(value, version)
        return
    template = _value_template(value, version)
    assert template.resources["web"].resolve_properties(FakeContext()) == {"v": {"l": [1]}}


def test_a_disabled_resource_is_parsed_but_not_validated() -> None:
    data = {"heat_template_version": "2021-04-16", "conditions": {"off": False},
            "resources": {"web": {"type": "T", "condition": "off",
                                  "properties": {"a": {"Fn::Join": [",", ["a"]]}}}}}
    validate_functions(parse_template(data))  # a removed function: refused only if validated
    data["resources"]["web"]["properties"] = {"a": {"list_join": ","}}
    with pytest.raises(StackValidationFailed, match="Incorrect arguments"):
        parse_template(data)


def test_validate_answers_heats_environment_body() -> None:
    from hotplate.template import parse_environment

    assert parse_environment({}).user_dict() == {
        "event_sinks": [], "parameter_defaults": {}, "parameters": {},
        "resource_registry": {"resources": {}}}
