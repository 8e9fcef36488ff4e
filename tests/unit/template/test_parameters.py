from typing import Any

import pytest

from hotplate.model.errors import (
    StackValidationFailed,
    UnknownUserParameter,
    UserParameterMissing,
)
from hotplate.template import InvalidSchemaError, parse_template, resolve_parameters


def params(declared: dict[str, Any], version: str = "2021-04-16") -> Any:
    return parse_template({"heat_template_version": version, "parameters": declared})


def resolve(declared: dict[str, Any], given: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    return resolve_parameters(params(declared), given, **kwargs)


def test_schema_is_kept() -> None:
    template = params(
        {
            "flavor": {
                "type": "string",
                "label": "Flavor",
                "description": "what size",
                "default": "m1.small",
                "hidden": True,
                "immutable": True,
                "tags": ["a"],
                "constraints": [
                    {"custom_constraint": "nova.flavor", "description": "a flavor"},
                    {"allowed_pattern": "m1\\..*"},
                ],
            }
        }
    )
    schema = template.parameters["flavor"]
    assert (schema.name, schema.type, schema.label, schema.default) == (
        "flavor", "string", "Flavor", "m1.small"
    )
    assert schema.hidden and schema.immutable and schema.tags == ("a",)
    assert [c.kind for c in schema.constraints] == ["CustomConstraint", "AllowedPattern"]
    assert schema.has_default


SCHEMA_ERRORS: list[tuple[str, dict[str, Any], str, str]] = [
    ("not a map", {"p": "string"}, "2021-04-16", "Invalid parameter (p), expected a mapping"),
    ("unknown key", {"p": {"type": "string", "colour": 1}}, "2021-04-16",
     "Invalid key 'colour' for parameter (p)"),
    ("tags before queens", {"p": {"type": "string", "tags": []}}, "2017-09-01",
     "Invalid key 'tags' for parameter (p)"),
    ("no type", {"p": {"default": 1}}, "2021-04-16", "Missing parameter type for parameter: p"),
    ("bad type", {"p": {"type": "strin"}}, "2021-04-16", "Invalid type (strin)"),
    ("tags not a list", {"p": {"type": "string", "tags": "a"}}, "2021-04-16",
     "Tags property should be a list for parameter: p"),
    ("constraints not a list", {"p": {"type": "string", "constraints": {}}}, "2021-04-16",
     "Invalid parameter constraints for parameter p, expected a list"),
    ("constraint not a map", {"p": {"type": "string", "constraints": ["x"]}}, "2021-04-16",
     "Invalid parameter constraints, expected a mapping"),
    ("constraint unknown key", {"p": {"type": "string", "constraints": [{"size": 1}]}},
     "2021-04-16", "Invalid key 'size' for parameter constraints"),
    ("no constraint", {"p": {"type": "string", "constraints": [{"description": "d"}]}},
     "2021-04-16", "No constraint expressed"),
    ("modulo before ocata",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]}},
     "2016-10-14", "No constraint expressed"),
    ("range without bounds", {"p": {"type": "number", "constraints": [{"range": {}}]}},
     "2021-04-16", "A range constraint must have a min value and/or a max value specified."),
    ("range bad bound", {"p": {"type": "number", "constraints": [{"range": {"min": "x"}}]}},
     "2021-04-16", "min/max must be numeric"),
    ("range bad key", {"p": {"type": "number", "constraints": [{"range": {"low": 1}}]}},
     "2021-04-16", "Invalid key 'low' for range constraint"),
    ("length without bounds", {"p": {"type": "string", "constraints": [{"length": {}}]}},
     "2021-04-16", "A length constraint must have a min value and/or a max value specified."),
    ("length fraction", {"p": {"type": "string", "constraints": [{"length": {"min": 1.5}}]}},
     "2021-04-16", "min/max length must be integral"),
    ("modulo missing offset",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": 2}}]}}, "2021-04-16",
     "A modulo constraint must have a step value and an offset value specified."),
    ("modulo zero step",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": 0, "offset": 0}}]}},
     "2021-04-16", "step cannot be 0."),
    ("modulo big offset",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 2}}]}},
     "2021-04-16", "offset must be smaller (by absolute value) than step."),
    ("modulo signs",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": -3, "offset": 1}}]}},
     "2021-04-16", "step and offset must be both positive or both negative."),
    ("modulo fraction",
     {"p": {"type": "number", "constraints": [{"modulo": {"step": 2.5, "offset": 1}}]}},
     "2021-04-16", "step/offset must be integer"),
    ("allowed_values text",
     {"p": {"type": "string", "constraints": [{"allowed_values": "abc"}]}}, "2021-04-16",
     "AllowedValues must be a list"),
    ("allowed_pattern list",
     {"p": {"type": "string", "constraints": [{"allowed_pattern": ["a"]}]}}, "2021-04-16",
     "AllowedPattern must be a string"),
    ("range on a string", {"p": {"type": "string", "constraints": [{"range": {"min": 1}}]}},
     "2021-04-16", "Parameter 'p' is invalid: Range constraint invalid for string"),
    ("allowed_values on json",
     {"p": {"type": "json", "constraints": [{"allowed_values": [1]}]}}, "2021-04-16",
     "Parameter 'p' is invalid: AllowedValues constraint invalid for json"),
]


@pytest.mark.parametrize(
    ("declared", "version", "message"),
    [c[1:] for c in SCHEMA_ERRORS],
    ids=[c[0] for c in SCHEMA_ERRORS],
)
def test_schema_errors(declared: dict[str, Any], version: str, message: str) -> None:
    with pytest.raises(InvalidSchemaError) as info:
        params(declared, version)
    assert str(info.value) == message
    assert info.value.path == ("parameters", "p")


GOOD_VALUES: list[tuple[str, dict[str, Any], Any, Any]] = [
    ("string", {"type": "string"}, "abc", "abc"),
    ("string from number", {"type": "string"}, 8080, "8080"),
    ("number int", {"type": "number"}, "42", 42),
    ("number float", {"type": "number"}, "1.5", 1.5),
    ("number already", {"type": "number"}, 7, 7),
    ("boolean yes", {"type": "boolean"}, "yes", True),
    ("boolean On", {"type": "boolean"}, " On ", True),
    ("boolean 0", {"type": "boolean"}, "0", False),
    ("boolean real", {"type": "boolean"}, False, False),
    ("boolean from 1", {"type": "boolean"}, 1, True),
    ("list from text", {"type": "comma_delimited_list"}, "a,b, c", ["a", "b", " c"]),
    ("list empty text", {"type": "comma_delimited_list"}, "", []),
    ("list from list", {"type": "comma_delimited_list"}, [1, "b"], ["1", "b"]),
    ("json text", {"type": "json"}, '{"a": [1, 2]}', {"a": [1, 2]}),
    ("json map", {"type": "json"}, {"a": 1}, {"a": 1}),
    ("json list", {"type": "json"}, [1, 2], [1, 2]),
    ("range ok", {"type": "number", "constraints": [{"range": {"min": 1, "max": 5}}]}, "5", 5),
    ("length ok", {"type": "string", "constraints": [{"length": {"max": 3}}]}, "abc", "abc"),
    ("allowed number as text",
     {"type": "number", "constraints": [{"allowed_values": [1, 2]}]}, "2", 2),
    ("allowed list items",
     {"type": "comma_delimited_list", "constraints": [{"allowed_values": ["a", "b"]}]},
     "a,b", ["a", "b"]),
    ("pattern", {"type": "string", "constraints": [{"allowed_pattern": "[a-z]+"}]}, "abc", "abc"),
    ("modulo", {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]}, 7, 7),
    ("custom not checked here",
     {"type": "string", "constraints": [{"custom_constraint": "nova.flavor"}]}, "x", "x"),
]


@pytest.mark.parametrize(
    ("declared", "given", "expected"),
    [c[1:] for c in GOOD_VALUES],
    ids=[c[0] for c in GOOD_VALUES],
)
def test_values_are_converted(declared: dict[str, Any], given: Any, expected: Any) -> None:
    assert resolve({"p": declared}, {"p": given}) == {"p": expected}


BAD_VALUES: list[tuple[str, dict[str, Any], Any, str]] = [
    ("number", {"type": "number"}, "abc", "could not convert string to float: 'abc'"),
    ("number list", {"type": "number"}, [1],
     "int() argument must be a string, a bytes-like object or a real number, not 'list'"),
    ("number nan", {"type": "number"}, "nan", 'Value "nan" is invalid for data type "number".'),
    ("boolean", {"type": "boolean"}, "maybe",
     "Unrecognized value 'maybe', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', "
     "'off', 'on', 't', 'true', 'y', 'yes'"),
    ("list", {"type": "comma_delimited_list"}, 5,
     "Value must be a comma-delimited list string: 'int' object has no attribute 'split'"),
    ("json", {"type": "json"}, "{bad",
     "Value must be valid JSON: Expecting property name enclosed in double quotes: "
     "line 1 column 2 (char 1)"),
    ("range", {"type": "number", "constraints": [{"range": {"min": 5}}]}, "3",
     "3 is out of range (min: 5, max: None)"),
    ("length", {"type": "string", "constraints": [{"length": {"min": 2, "max": 3}}]}, "abcd",
     "length (4) is out of range (min: 2, max: 3)"),
    ("list length", {"type": "comma_delimited_list", "constraints": [{"length": {"max": 1}}]},
     "a,b", "length (2) is out of range (min: None, max: 1)"),
    ("allowed", {"type": "string", "constraints": [{"allowed_values": ["a", "b"]}]}, "c",
     '"c" is not an allowed value ["a", "b"]'),
    ("allowed list",
     {"type": "comma_delimited_list", "constraints": [{"allowed_values": ["a"]}]}, "a,c",
     '["a", "c"] is not an allowed value ["a"]'),
    ("allowed number as text",
     {"type": "number", "constraints": [{"allowed_values": [1, 2.5]}]}, "7",
     '"7" is not an allowed value [1, 2.5]'),
    ("allowed number", {"type": "number", "constraints": [{"allowed_values": ["1"]}]}, 7,
     '7 is not an allowed value ["1"]'),
    ("allowed boolean", {"type": "boolean", "constraints": [{"allowed_values": [False]}]},
     True, "true is not an allowed value [false]"),
    ("pattern", {"type": "string", "constraints": [{"allowed_pattern": "[a-z]+"}]}, "ab1",
     '"ab1" does not match pattern "[a-z]+"'),
    ("modulo", {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 1}}]}, 4,
     "4 is not a multiple of 2 with an offset of 1)"),
    ("description replaces the message",
     {"type": "string", "constraints": [{"length": {"max": 1}, "description": "too long!"}]},
     "abc", "too long!"),
]


@pytest.mark.parametrize(
    ("declared", "given", "message"), [c[1:] for c in BAD_VALUES], ids=[c[0] for c in BAD_VALUES]
)
def test_bad_values_name_the_parameter(declared: dict[str, Any], given: Any, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        resolve({"n": declared}, {"n": given})
    assert str(info.value) == f"Parameter 'n' is invalid: {message}"


def test_defaults_and_parameter_defaults() -> None:
    declared = {
        "a": {"type": "string", "default": "from-template"},
        "b": {"type": "number", "default": 1},
        "c": {"type": "string"},
    }
    assert resolve(declared, {"c": "x"}) == {"a": "from-template", "b": 1, "c": "x"}
    assert resolve(declared, {"c": "x", "a": None}, param_defaults={"a": "env", "b": "2"}) == {
        "a": "env", "b": 2, "c": "x"
    }
    assert resolve(declared, {"c": "x"}, param_defaults={"c": "env"}) == {
        "a": "from-template", "b": 1, "c": "x"
    }


def test_missing_and_unknown_parameters() -> None:
    with pytest.raises(UserParameterMissing) as missing:
        resolve({"c": {"type": "string"}}, {})
    assert str(missing.value) == "The Parameter (c) was not provided."
    with pytest.raises(UnknownUserParameter) as unknown:
        resolve({"c": {"type": "string"}}, {"c": "x", "zz": 1})
    assert str(unknown.value) == "The Parameter (zz) was not defined in template."


def test_a_default_breaking_constraints_is_reported_even_with_a_value() -> None:
    declared = {"p": {"type": "number", "default": 1, "constraints": [{"range": {"min": 5}}]}}
    with pytest.raises(InvalidSchemaError) as info:
        resolve(declared, {"p": 7})
    assert str(info.value) == (
        "Parameter 'p' is invalid: Invalid default 1 (1 is out of range (min: 5, max: None))"
    )


def test_list_default_must_be_text_or_list() -> None:
    with pytest.raises(InvalidSchemaError) as info:
        resolve({"p": {"type": "comma_delimited_list", "default": 5}}, {})
    assert str(info.value) == (
        "Parameter 'p' is invalid: Default must be a comma-delimited list string: "
        "'int' object has no attribute 'split'"
    )


def test_parameter_section_not_a_map() -> None:
    with pytest.raises(InvalidSchemaError):
        parse_template({"heat_template_version": "2013-05-23", "parameters": [1]})
