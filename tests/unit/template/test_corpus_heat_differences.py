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


def test_an_output_left_out_by_if_is_none() -> None:
    template = _value_template({"if": [False, "a"]}, "2021-04-16", output=True)
    assert template.outputs["o"].resolve(FakeContext()) is None


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


# -- Heat's phases and texts, function by function (scripts/heat_oracle.py checks
#    them against Heat itself; these keep them once found) --

def _outcome(value: Any, version: str, *, files: dict[str, str] | None = None,
             params: dict[str, Any] | None = None) -> tuple[str, str]:
    """Where ``web``'s value fails, as Heat's phases go, and what it says there."""
    data: dict[str, Any] = {"heat_template_version": version, "resources": {
        "db": {"type": "OS::Heat::Value", "properties": {"value": 1}},
        "web": {"type": "OS::Heat::Value", "properties": {"v": value}}}}
    if params is not None:
        data["parameters"] = {k: {"type": "string"} for k in params}
    phase = "parse"
    try:
        template = parse_template(data, files=files)
        decided = template.with_parameters(resolve_parameters(template, params or {}))
        phase = "validate"
        validate_functions(decided, {"db": frozenset({"value", "show"})})
        phase = "resolve"
        ctx = FakeContext(params=params, refs={"db": "db-id"}, attrs={"db": {"value": "v"}})
        decided.resources["web"].resolve_properties(ctx)
    except StackValidationFailed as exc:
        return phase, str(exc) if phase != "resolve" else exc.detail
    return "ok", ""


_AT = "resources.web.properties.v"
_REPEAT_USAGE = (
    "'\"repeat\" syntax should be repeat:\\n              template: This is %var%\\n"
    "              for_each:\\n                %var%: [\\'a\\', \\'b\\', \\'c\\']'")


@pytest.mark.parametrize(("version", "value", "phase", "message"), [
    # Heat raises its usage texts as KeyErrors: users read them quoted.
    ("2015-04-30", {"repeat": {"for_each": {"%a%": ["a"]}}}, "parse",
     f"{_AT}.repeat: {_REPEAT_USAGE}"),
    ("2021-04-16", {"yaql": {"data": 1}}, "parse",
     f"{_AT}.yaql: '\"yaql\" syntax should be yaql:\\n              expression: "
     "$.data.var1.sum()\\n              data:\\n                var1: [3, 2, 1]'"),
    # Python's own errors, in its words.
    ("2013-05-23", {"str_replace": {"template": "abc", "params": {"": "x"}}}, "resolve",
     "empty separator"),
    ("2015-10-15", {"str_split": ["", "ab"]}, "resolve", "empty separator"),
    ("2015-10-15", {"str_split": [1, "ab"]}, "resolve", "must be str or None, not int"),
    ("2015-10-15", {"str_split": [",", ["a"]]}, "resolve",
     "'list' object has no attribute 'split'"),
    ("2015-10-15", {"str_split": [",", "a,b", None]}, "resolve",
     "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"),
    ("2015-04-30", {"repeat": {"template": "%a%%b%", "for_each": {"%a%": [1], "%b%": ["x"]}}},
     "resolve", "replace() argument 2 must be str, not int"),
    ("2015-04-30", {"repeat": {"template": "%a%", "for_each": {"%a%": [1], "%b%": []}}},
     "ok", ""),  # no combination: nothing replaced, nothing refused
    ("2015-04-30", {"repeat": {"template": "x", "for_each": {}}}, "resolve",
     "not enough values to unpack (expected 2, got 0)"),
    ("2017-09-01", {"repeat": {"template": "%a%", "for_each": {"%a%": 1},
                               "permutations": False}}, "resolve",
     'The values of the "for_each" argument to "repeat" must be lists'),
    ("2017-09-01", {"repeat": {"template": "%a%", "for_each": {"%a%": ["a"]},
                               "permutations": {"get_param": "b"}}}, "parse",
     f'{_AT}.repeat: "permutations" should be boolean type for repeat function.'),
    ("2017-09-01", {"contains": [1, "abc"]}, "resolve",
     "'in <string>' requires string as left operand, not int"),
    ("2016-10-14", {"map_replace": {"a": 1}}, "resolve", "0"),
    ("2016-10-14", {"map_replace": ["x"]}, "resolve",
     'Incorrect arguments: to "map_replace", arguments must be a list of maps. Example:  '
     '"map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, '
     '"values": {"val1": "val2"}}]'),
    ("2016-04-08", {"map_merge": [{"a": 1}, ["b"]]}, "resolve",
     "Incorrect arguments: Items to merge must be maps. ['b'] is type <class 'list'> "
     "instead of a dict"),
    ("2017-09-01", {"list_concat": [[1], "x"]}, "resolve",
     'Incorrect arguments: Items to concat must be lists. [[1], "x"] contains an item '
     'that is not a list: "x"'),
    ("2016-10-14", {"yaql": {"expression": "1 + 'a'"}}, "resolve",
     'No function "#operator_+" matches supplied arguments'),
    ("2015-04-30", {"digest": ["SHA3_256", "x"]}, "resolve", "unsupported hash type SHA3_256"),
    # Checked when resolved, not when parsed.
    ("2013-05-23", {"get_file": "nope.txt"}, "resolve",
     'No content found in the "files" section for get_file path: nope.txt'),
    ("2013-05-23", {"get_file": ["f.txt"]}, "resolve", 'Argument to "get_file" must be a string'),
    ("2013-05-23", {"Fn::Split": [1, "a,b"]}, "resolve", "Delimiter for Fn::Split must be string"),
    ("2013-05-23", {"Fn::Split": [{"get_param": "p"}, "a,b"]}, "resolve",
     "Delimiter for Fn::Split must be string"),  # read unresolved, as Heat reads it
    ("2013-05-23", {"Fn::Split": ["", "a,b"]}, "resolve", "empty separator"),
    ("2013-05-23", {"Fn::Split": 5}, "parse",
     f"{_AT}.Fn::Split: cannot unpack non-iterable int object"),
    ("2013-05-23", {"Ref": ["s"]}, "parse", f"{_AT}.Ref: unhashable type: 'list'"),
    # Checked when validated, not when parsed.
    ("2021-04-16", {"get_attr": ["db", {"get_param": "p"}]}, "validate",
     f"{_AT}.get_attr: The Referenced Attribute (db x) is incorrect."),
    ("2021-04-16", {"get_resource": {"get_param": "p"}}, "validate",
     'The specified reference "x" (in web.Properties.v) is incorrect.'),
    ("2021-04-16", {"get_resource": {"get_attr": ["db", "value"]}}, "validate",
     'The specified reference "None" (in web.Properties.v) is incorrect.'),  # none built yet
    ("2021-04-16", {"get_resource": ["db"]}, "validate", "unhashable type: 'list'"),
    ("2021-04-16", {"get_attr": ["db", ["value"]]}, "validate",
     f"{_AT}.get_attr: unhashable type: 'list'"),
    ("2015-04-30", {"repeat": {"template": "%a%", "for_each": ["a"]}}, "validate",
     f'{_AT}.repeat: The "for_each" argument to "repeat" must contain a map'),
    ("2017-09-01", {"make_url": {"host": "h", "port": 0}}, "validate",
     f"{_AT}.make_url: Invalid URL port 0, must be in range 1-65535"),
    ("2017-09-01", {"make_url": {"nope": "x"}}, "validate",
     f'{_AT}.make_url: Invalid arguments to "make_url": nope'),
    ("2017-09-01", {"make_url": {"get_param": "p"}}, "validate",
     f'{_AT}.make_url: The arguments to "make_url" must be a map'),
    ("2017-09-01", {"make_url": {"host": "h", "port": None}}, "validate",
     f"{_AT}.make_url: int() argument must be a string, a bytes-like object or a real "
     "number, not 'NoneType'"),
    ("2017-09-01", {"make_url": {"query": {"get_param": "p"}, "fragment": 1}}, "resolve",
     'The "query" argument to "make_url" must be a map'),  # nothing after a call is validated
    ("2016-10-14", {"yaql": {"expression": "$.data."}}, "validate",
     f"{_AT}.yaql: Bad expression Parse error: unexpected end of statement."),
    ("2016-10-14", {"yaql": {"expression": 1}}, "validate",
     f'{_AT}.yaql: The "expression" argument to yaql must contain a string.'),
    ("2017-09-01", {"str_replace": {"template": {"make_url": {"port": 0}},
                                    "params": {"x": {"get_param": "p"}}}}, "validate",
     f"{_AT}.str_replace: template.make_url: Invalid URL port 0, must be in range 1-65535"),
])
def test_each_function_fails_where_and_as_heat(
        version: str, value: Any, phase: str, message: str) -> None:
    params = {"p": "x", "b": "true"}
    assert _outcome(value, version, params=params) == (phase, message)


# -- conditions: evaluated only when used, errors where Heat reports them
#    (heat/engine/conditions.py, template_common.py) --

def _decided(conditions: Any, resources: dict[str, Any], *,
             outputs: dict[str, Any] | None = None) -> Any:
    data: dict[str, Any] = {"heat_template_version": "2021-04-16",
                            "parameters": {"env": {"type": "string", "default": "prod"}},
                            "conditions": conditions, "resources": resources}
    if outputs is not None:
        data["outputs"] = outputs
    template = parse_template(data)
    return template.with_parameters(resolve_parameters(template, {}))


_R = {"type": "OS::Heat::None"}


@pytest.mark.parametrize("conditions", [
    {"a": {"not": "b"}, "b": {"not": "a"}},  # a cycle
    {"a": {"not": "nope"}},  # an unknown name
    {"a": {"and": [True, "nope"]}},
])
def test_a_named_condition_nothing_uses_is_never_evaluated(conditions: Any) -> None:
    assert list(_decided(conditions, {"r": _R}).resources) == ["r"]


@pytest.mark.parametrize(("conditions", "resources", "outputs", "message"), [
    ({"a": {"not": "b"}, "b": {"or": [False, "nope"]}}, {"r": {**_R, "condition": "a"}}, None,
     'resources.r.condition: Invalid condition "nope"'),
    ({"a": {"not": "nope"}}, {"r": {"type": "OS::Heat::Value",
                                    "properties": {"value": {"if": ["a", 1, 2]}}}}, None,
     'resources.r.properties.value.if: Invalid condition "nope"'),
    ({"a": {"not": "nope"}}, {}, {"o": {"value": 1, "condition": "a"}},
     'outputs.o.condition: Invalid condition "nope"'),
    ({"a": {"not": "b"}, "b": {"and": [True, "a"]}}, {"r": {**_R, "condition": "b"}}, None,
     'Condition validation error: Circular definition for condition "b"'),
    ({"a": {"get_param": "env"}}, {"r": {**_R, "condition": "a"}}, None,
     'Condition validation error: The definition of condition "a" is invalid: prod'),
    ({"a": {"x": {"get_param": "env"}, "y": 1}}, {"r": _R}, None,  # as written, calls and all
     "Condition validation error: The definition of condition \"a\" is invalid: "
     "{'x': {'get_param': 'env'}, 'y': 1}"),
    ({"a": "text", "b": {"equals": [1]}}, {"r": _R}, None,  # every definition parsed first
     'conditions.b.equals: Arguments to "equals" must be of the form: [value_1, value_2]'),
    ([1], {"r": _R}, None,
     "Conditions validation error: Condition definitions must be a map. Found a list instead"),
])
def test_condition_errors_as_heat_reports_them(
        conditions: Any, resources: dict[str, Any], outputs: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        _decided(conditions, resources, outputs=outputs)
    assert str(info.value) == message


def test_a_call_may_not_read_a_resource_its_condition_leaves_out() -> None:
    decided = _decided({"off": False}, {
        "a": {**_R, "condition": "off"},
        "b": {**_R, "depends_on": ["a"]},  # allowed: depends_on may name it
        "r": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["a", "x"]}}}})
    with pytest.raises(StackValidationFailed) as info:
        validate_functions(decided)
    assert str(info.value) == 'The specified reference "a" (in r.Properties.value) is incorrect.'


@pytest.mark.parametrize(("resource", "message"), [
    ({"type": "T", "condition": [1]}, "Resource r condition type must be string_or_boolean"),
    ({"type": "T", "properties": [1]}, "Resource r properties type must be object"),
    ({"type": "T", "nope": 1}, '"nope" is not a valid keyword inside a resource definition'),
    ({"properties": {}}, "Each resource must contain a type key."),
    ({"type": "T", "deletion_policy": "Keep"}, 'Invalid deletion policy "Keep"'),
])
def test_a_resources_own_fields_are_refused_in_words_naming_it(
        resource: dict[str, Any], message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template({"heat_template_version": "2021-04-16", "resources": {"r": resource}})
    assert str(info.value) == message
    assert info.value.path[:2] == ("resources", "r")  # for positions in a text template


def test_an_outputs_shape_is_refused_as_an_output_validation_error() -> None:
    with pytest.raises(StackValidationFailed) as info:
        parse_template({"heat_template_version": "2021-04-16",
                        "outputs": {"o": {"description": "d"}}})
    assert str(info.value) == (
        "Output validation error: outputs.o: Each output definition must contain a value key.")


def test_names_computed_from_parameters_read_what_they_name() -> None:
    data = {"heat_template_version": "2021-04-16",
            "parameters": {"which": {"type": "string"}, "attr": {"type": "string"}},
            "resources": {
                "db": {"type": "OS::Heat::Value", "properties": {"value": 1}},
                "cache": {"type": "OS::Heat::Value", "properties": {"value": 2}},
                "web": {"type": "OS::Heat::Value", "properties": {"value": {"list_join": [
                    ",", [{"get_resource": {"get_param": "which"}},
                          {"get_attr": ["db", {"get_param": "attr"}]}]]}}}}}
    template = parse_template(data)
    assert template.resources["web"].references() == frozenset({"db"})  # get_attr's literal
    values = resolve_parameters(template, {"which": "cache", "attr": "value"})
    decided = template.with_parameters(values)  # no condition, yet parsed with the values
    assert decided.resources["web"].references() == frozenset({"db", "cache"})
    assert decided.dependencies().requires("web") == {"db", "cache"}
    assert decided.attributes_referenced()["db"] == frozenset({"value"})
    validate_functions(decided, {"db": frozenset({"value", "show"})})
    ctx = FakeContext(params=values, refs={"cache": "cache-id"}, attrs={"db": {"value": "v"}})
    assert decided.resources["web"].resolve_properties(ctx) == {"value": "cache-id,v"}
