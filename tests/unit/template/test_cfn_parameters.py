"""CFN's parameter schema: declarations parsed as Heat parses them, values checked as HOT's."""

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed, UnknownUserParameter
from hotplate.template import InvalidSchemaError, parse_template, resolve_parameters
from hotplate.template.constraints import AllowedPattern, AllowedValues, Length, Range


def cfn_params(parameters: Any) -> Any:
    return parse_template({"AWSTemplateFormatVersion": "2010-09-09", "Parameters": parameters})


def test_a_full_declaration() -> None:
    template = cfn_params(
        {
            "Name": {
                "Type": "String",
                "Default": "web",
                "Description": "the name",
                "Label": "Name",
                "NoEcho": "true",
                "MinLength": 1,
                "MaxLength": "8",
                "AllowedValues": ["web", "db"],
                "AllowedPattern": "[a-z]+",
                "ConstraintDescription": "lower-case, 1 to 8",
            },
            "Count": {"Type": "Number", "MinValue": "1", "MaxValue": 5.5},
        }
    )
    name = template.parameters["Name"]
    assert (name.type, name.default, name.description, name.label, name.hidden) == (
        "string", "web", "the name", "Name", True,
    )
    assert name.constraints == (
        Length("lower-case, 1 to 8", 1, 8),
        AllowedValues("lower-case, 1 to 8", ("web", "db")),
        AllowedPattern("lower-case, 1 to 8", "[a-z]+"),
    )
    count = template.parameters["Count"]
    assert (count.type, count.has_default, count.hidden) == ("number", False, False)
    assert count.constraints == (Range(None, 1, 5.5),)


@pytest.mark.parametrize(
    ("declared", "hot_type"),
    [("String", "string"), ("Number", "number"), ("CommaDelimitedList", "comma_delimited_list"),
     ("Json", "json"), ("Boolean", "boolean")],
)
def test_types_map_to_hot_types(declared: str, hot_type: str) -> None:
    assert cfn_params({"p": {"Type": declared}}).parameters["p"].type == hot_type


@pytest.mark.parametrize(
    ("declared", "raw", "value"),
    [
        ("Number", "42", 42),
        ("Number", "4.5", 4.5),
        ("CommaDelimitedList", "a,b", ["a", "b"]),
        ("Json", '{"a": [1]}', {"a": [1]}),
        ("Boolean", "yes", True),
        ("String", 5, "5"),
    ],
)
def test_values_are_converted_as_for_hot(declared: str, raw: Any, value: Any) -> None:
    template = cfn_params({"p": {"Type": declared}})
    assert resolve_parameters(template, {"p": raw}) == {"p": value}


@pytest.mark.parametrize(
    ("declaration", "raw", "message"),
    [
        ({"Type": "Number", "MinValue": 5}, "3",
         "Parameter 'p' is invalid: 3 is out of range (min: 5, max: None)"),
        ({"Type": "String", "MaxLength": 2}, "abc",
         "Parameter 'p' is invalid: length (3) is out of range (min: None, max: 2)"),
        ({"Type": "String", "AllowedValues": ["a", "b"]}, "c",
         'Parameter \'p\' is invalid: "c" is not an allowed value ["a", "b"]'),
        ({"Type": "String", "AllowedPattern": "[0-9]+"}, "12a",
         'Parameter \'p\' is invalid: "12a" does not match pattern "[0-9]+"'),
        ({"Type": "String", "AllowedPattern": "[0-9]+", "ConstraintDescription": "digits"},
         "x", "Parameter 'p' is invalid: digits"),
        ({"Type": "Number"}, "abc",
         "Parameter 'p' is invalid: could not convert string to float: 'abc'"),
    ],
)
def test_values_break_constraints(declaration: Any, raw: Any, message: str) -> None:
    template = cfn_params({"p": declaration})
    with pytest.raises(StackValidationFailed) as info:
        resolve_parameters(template, {"p": raw})
    assert str(info.value) == message


def test_unknown_user_parameters_and_defaults() -> None:
    template = cfn_params({"p": {"Type": "String", "Default": "d"}})
    assert resolve_parameters(template, {}) == {"p": "d"}
    assert resolve_parameters(template, {}, param_defaults={"p": "e"}) == {"p": "e"}
    with pytest.raises(UnknownUserParameter) as info:
        resolve_parameters(template, {"q": 1})
    assert info.value.path == ("Parameters", "q")


def test_a_default_breaking_a_constraint() -> None:
    template = cfn_params({"p": {"Type": "Number", "Default": 9, "MaxValue": 5}})
    with pytest.raises(InvalidSchemaError) as info:
        resolve_parameters(template, {"p": 1})
    assert str(info.value) == (
        "Parameter 'p' is invalid: Invalid default 9 (9 is out of range (min: None, max: 5))"
    )
    assert info.value.path == ("Parameters", "p")


BAD_DECLARATIONS: list[tuple[str, Any, str]] = [
    ("not a map", "String", "Invalid parameter (p), expected a mapping"),
    ("HOT key", {"Type": "String", "default": "x"}, "Invalid key 'default' for parameter (p)"),
    ("no type", {"Default": "x"}, "Missing parameter type for parameter: p"),
    ("HOT type", {"Type": "string"}, "Invalid type (string)"),
    ("list type", {"Type": ["String"]}, "Invalid type (['String'])"),
    ("range on text", {"Type": "String", "MinValue": 1},
     "Parameter 'p' is invalid: Range constraint invalid for String"),
    ("length on number", {"Type": "Number", "MaxLength": 1},
     "Parameter 'p' is invalid: Length constraint invalid for Number"),
    ("pattern on list", {"Type": "CommaDelimitedList", "AllowedPattern": "x"},
     "Parameter 'p' is invalid: AllowedPattern constraint invalid for CommaDelimitedList"),
    ("values on json", {"Type": "Json", "AllowedValues": []},
     "Parameter 'p' is invalid: AllowedValues constraint invalid for Json"),
    ("range not numeric", {"Type": "Number", "MinValue": "abc"},
     "could not convert string to float: 'abc'"),
    ("length not integral", {"Type": "String", "MinLength": 1.5},
     "min/max length must be integral"),
    ("allowed values text", {"Type": "String", "AllowedValues": "a"},
     "AllowedValues must be a list"),
    ("pattern not text", {"Type": "String", "AllowedPattern": 1},
     "AllowedPattern must be a string"),
    ("range without bounds", {"Type": "Number", "MinValue": None},
     "A range constraint must have a min value and/or a max value specified."),
]


@pytest.mark.parametrize(
    ("declaration", "message"),
    [c[1:] for c in BAD_DECLARATIONS],
    ids=[c[0] for c in BAD_DECLARATIONS],
)
def test_bad_declarations(declaration: Any, message: str) -> None:
    with pytest.raises(InvalidSchemaError) as info:
        cfn_params({"p": declaration})
    assert str(info.value) == message  # Heat's text; the location is in .path
    assert info.value.path == ("Parameters", "p")


def test_the_section_must_be_a_map() -> None:
    with pytest.raises(InvalidSchemaError) as info:
        cfn_params(["p"])
    assert str(info.value) == 'The "Parameters" section must be a map'
    assert info.value.path == ("Parameters",)


def test_pseudo_parameters_are_not_user_parameters() -> None:
    template = cfn_params({})
    with pytest.raises(UnknownUserParameter):
        resolve_parameters(template, {"AWS::StackName": "x"})
