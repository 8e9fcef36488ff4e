"""validate_properties: types, coercion, defaults, required, unknown, and error paths."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotplate.model.errors import StackValidationFailed
from hotplate.resources import (
    AllowedValues,
    InvalidSchemaError,
    Length,
    PropertyType,
    Range,
    Schema,
    coerce_value,
    validate_properties,
)

PREFIX = ("resources", "web", "properties")


def one(kind: str, value: Any, **schema: Any) -> Any:
    """Validate a single property ``p`` of type ``kind``; return its value."""
    return validate_properties({"p": Schema(kind, **schema)}, {"p": value}, PREFIX)["p"]


def failure(kind: str, value: Any, **schema: Any) -> StackValidationFailed:
    with pytest.raises(StackValidationFailed) as info:
        one(kind, value, **schema)
    return info.value


COERCIONS = [
    (Schema.STRING, "abc", "abc"),
    (Schema.STRING, "", ""),
    (Schema.STRING, 5, "5"),
    (Schema.STRING, True, "True"),
    (Schema.INTEGER, 5, 5),
    (Schema.INTEGER, "5", 5),
    (Schema.INTEGER, " 7 ", 7),
    (Schema.INTEGER, 5.7, 5),  # Heat truncates, it does not refuse
    (Schema.INTEGER, True, 1),
    (Schema.NUMBER, 5, 5),
    (Schema.NUMBER, 2.5, 2.5),
    (Schema.NUMBER, "5", 5),
    (Schema.NUMBER, "5.5", 5.5),
    (Schema.NUMBER, "1e3", 1000.0),
    (Schema.BOOLEAN, True, True),
    (Schema.BOOLEAN, False, False),
    (Schema.BOOLEAN, "true", True),
    (Schema.BOOLEAN, "TRUE", True),
    (Schema.BOOLEAN, "False", False),
    (Schema.MAP, {"a": 1}, {"a": 1}),
    (Schema.MAP, {}, {}),
    (Schema.LIST, [1, "a"], [1, "a"]),
    (Schema.LIST, (1, 2), [1, 2]),
    (Schema.ANY, {"x": [1]}, {"x": [1]}),
    (Schema.ANY, "s", "s"),
    (Schema.ANY, 3, 3),
]


@pytest.mark.parametrize(("kind", "raw", "expected"), COERCIONS)
def test_coercion(kind: str, raw: Any, expected: Any) -> None:
    result = one(kind, raw)
    assert result == expected
    assert type(result) is type(expected)


BAD_VALUES = [
    (Schema.STRING, 1.5, "Value must be a string; got 1.5"),
    (Schema.STRING, {"a": 1}, "Value must be a string; got {'a': 1}"),
    (Schema.STRING, [1], "Value must be a string; got [1]"),
    (Schema.INTEGER, "abc", "Value 'abc' is not an integer"),
    (Schema.INTEGER, "5.0", "Value '5.0' is not an integer"),
    (Schema.INTEGER, [1], "Value '[1]' is not an integer"),
    (Schema.NUMBER, "abc", "could not convert string to float: 'abc'"),
    (Schema.BOOLEAN, "yes", '"yes" is not a valid boolean'),
    (Schema.BOOLEAN, "Maybe", '"maybe" is not a valid boolean'),
    (Schema.BOOLEAN, 1, '"1" is not a valid boolean'),
    (Schema.MAP, "x", '"x" is not a map'),
    (Schema.MAP, [1], '"[1]" is not a map'),
    (Schema.LIST, "abc", "\"'abc'\" is not a list"),
    (Schema.LIST, {"a": 1}, "\"{'a': 1}\" is not a list"),
]


@pytest.mark.parametrize(("kind", "raw", "message"), BAD_VALUES)
def test_bad_value_names_the_property(kind: str, raw: Any, message: str) -> None:
    exc = failure(kind, raw)
    assert exc.detail == message
    assert exc.path == (*PREFIX, "p")
    assert str(exc) == f"resources.web.properties.p: {message}"


def test_type_names_are_heats_and_case_insensitive() -> None:
    assert [t.value for t in PropertyType] == [
        "String", "Integer", "Number", "Boolean", "Map", "List", "Any",
    ]
    assert Schema("integer").type is PropertyType.INTEGER
    assert Schema("Map").type is PropertyType.MAP


# -- absent, None, defaults, required, unknown ----------------------------------------
def test_absent_optional_property_is_none() -> None:
    assert validate_properties({"p": Schema(Schema.STRING)}, {}, PREFIX) == {"p": None}


def test_missing_raw_means_no_properties() -> None:
    assert validate_properties({"p": Schema(Schema.STRING)}, None, PREFIX) == {"p": None}


@pytest.mark.parametrize("raw", [{}, {"p": None}])
def test_default_applies_when_absent_or_none(raw: dict[str, Any]) -> None:
    schema = {"p": Schema(Schema.INTEGER, default=3)}
    assert validate_properties(schema, raw, PREFIX) == {"p": 3}


def test_default_is_coerced_like_a_value() -> None:
    assert validate_properties({"p": Schema(Schema.INTEGER, default="5")}, {}, PREFIX) == {"p": 5}


def test_default_is_copied_not_shared() -> None:
    schema = {"p": Schema(Schema.ANY, default={"k": [1]})}
    first = validate_properties(schema, {}, PREFIX)
    first["p"]["k"].append(2)
    assert validate_properties(schema, {}, PREFIX) == {"p": {"k": [1]}}


@pytest.mark.parametrize("raw", [{}, {"length": None}])
def test_required_missing_names_the_container(raw: dict[str, Any]) -> None:
    with pytest.raises(StackValidationFailed) as info:
        validate_properties({"length": Schema(Schema.INTEGER, required=True)}, raw, PREFIX)
    assert info.value.detail == "Property length not assigned"
    assert info.value.path == PREFIX
    assert str(info.value) == "resources.web.properties: Property length not assigned"


def test_required_with_default_is_satisfied_by_the_default() -> None:
    schema = {"p": Schema(Schema.STRING, required=True, default="d")}
    assert validate_properties(schema, {}, PREFIX) == {"p": "d"}


def test_unknown_property_is_refused_before_anything_else() -> None:
    schema = {"length": Schema(Schema.INTEGER, required=True)}
    with pytest.raises(StackValidationFailed) as info:
        validate_properties(schema, {"foo": 1}, PREFIX)
    assert info.value.detail == "Unknown Property foo"
    assert info.value.path == PREFIX


def test_default_path_is_properties() -> None:
    with pytest.raises(StackValidationFailed) as info:
        validate_properties({}, {"foo": 1})
    assert str(info.value) == "properties: Unknown Property foo"


def test_non_mapping_raw_is_refused() -> None:
    with pytest.raises(StackValidationFailed) as info:
        validate_properties({}, ["a"], PREFIX)  # type: ignore[arg-type]
    assert info.value.detail == "\"['a']\" is not a map"
    assert info.value.path == PREFIX


def test_result_keeps_schema_order_and_every_key() -> None:
    schema = {"b": Schema(Schema.STRING), "a": Schema(Schema.STRING, default="x")}
    assert list(validate_properties(schema, {}, PREFIX).items()) == [("b", None), ("a", "x")]


def test_input_is_not_modified() -> None:
    raw = {"m": {"k": "1"}}
    schema = {"m": Schema(Schema.MAP, schema={"k": Schema(Schema.INTEGER)})}
    assert validate_properties(schema, raw, PREFIX) == {"m": {"k": 1}}
    assert raw == {"m": {"k": "1"}}


# -- nesting -------------------------------------------------------------------------
NESTED = {
    "waits": Schema(Schema.MAP, schema={
        "create": Schema(Schema.NUMBER),
        "delete": Schema(Schema.NUMBER, default=2),
    }),
    "items": Schema(Schema.LIST, schema=Schema(Schema.MAP, schema={
        "name": Schema(Schema.STRING, required=True),
        "size": Schema(Schema.INTEGER, default=1, constraints=[Range(1, 10)]),
    })),
    "tags": Schema(Schema.LIST, schema=Schema(Schema.STRING)),
}


def test_nested_map_gets_defaults_and_every_key() -> None:
    props = validate_properties(NESTED, {"waits": {"create": "3"}}, PREFIX)
    assert props["waits"] == {"create": 3, "delete": 2}
    assert props["items"] is None


def test_nested_list_items_are_validated() -> None:
    props = validate_properties(
        NESTED, {"items": [{"name": "a"}, {"name": 5, "size": "4"}], "tags": [1, "b"]}, PREFIX
    )
    assert props["items"] == [{"name": "a", "size": 1}, {"name": "5", "size": 4}]
    assert props["tags"] == ["1", "b"]


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"waits": {"foo": 1}}, ("waits",), "Unknown Property foo"),
        ({"waits": {"create": "x"}}, ("waits", "create"),
         "could not convert string to float: 'x'"),
        ({"items": [{"name": "a"}, {}]}, ("items", 1), "Property name not assigned"),
        ({"items": [{"name": "a", "size": 11}]}, ("items", 0, "size"),
         "11 is out of range (min: 1, max: 10)"),
        ({"items": ["x"]}, ("items", 0), '"x" is not a map'),
        ({"tags": [1.5]}, ("tags", 0), "Value must be a string; got 1.5"),
    ],
)
def test_nested_errors_name_the_exact_path(
    raw: dict[str, Any], path: tuple[str | int, ...], message: str
) -> None:
    with pytest.raises(StackValidationFailed) as info:
        validate_properties(NESTED, raw, PREFIX)
    assert info.value.detail == message
    assert info.value.path == (*PREFIX, *path)


def test_map_without_schema_takes_any_keys() -> None:
    assert one(Schema.MAP, {"anything": [1]}) == {"anything": [1]}


# -- constraints through validation ------------------------------------------------------
def test_constraints_run_after_coercion() -> None:
    assert one(Schema.INTEGER, "5", constraints=[Range(1, 10)]) == 5
    exc = failure(Schema.INTEGER, "50", constraints=[Range(1, 10)])
    assert exc.detail == "50 is out of range (min: 1, max: 10)"
    assert exc.path == (*PREFIX, "p")


def test_first_failing_constraint_reports() -> None:
    exc = failure(Schema.STRING, "zz", constraints=[Length(max=1), AllowedValues(["a"])])
    assert exc.detail == "length (2) is out of range (min: None, max: 1)"


def test_coerce_value_checks_a_single_value() -> None:
    assert coerce_value(Schema(Schema.NUMBER), "2", ("x",)) == 2
    with pytest.raises(StackValidationFailed) as info:
        coerce_value(Schema(Schema.BOOLEAN), "no", ("x", "y"))
    assert info.value.path == ("x", "y")


# -- declaring schemas wrongly --------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Schema("Text"), "Invalid type (Text)"),
        (lambda: Schema(Schema.STRING, update_allowed=True, immutable=True),
         "Options UpdateAllowed and Immutable cannot both be True"),
        (lambda: Schema(Schema.STRING, constraints=[Range(1)]),
         "Range constraint invalid for String"),
        (lambda: Schema(Schema.MAP, constraints=[AllowedValues(["a"])]),
         "AllowedValues constraint invalid for Map"),
        (lambda: Schema(Schema.STRING, schema={"a": Schema(Schema.STRING)}),
         "Schema valid only for List or Map, not String"),
        (lambda: Schema(Schema.MAP, schema=Schema(Schema.STRING)),
         "Single schema valid only for List, not Map"),
        (lambda: Schema(Schema.INTEGER, default=0, constraints=[Range(1)]),
         "Invalid default 0 (0 is out of range (min: 1, max: None))"),
        (lambda: Schema(Schema.INTEGER, default="x"),
         "Invalid default x (Value 'x' is not an integer)"),
    ],
)
def test_bad_schema_declarations(make: Any, message: str) -> None:
    with pytest.raises(InvalidSchemaError) as info:
        make()
    assert str(info.value) == message


def test_schema_as_dict_is_heats_listing_view() -> None:
    schema = Schema(
        Schema.LIST, "Things.", update_allowed=True,
        constraints=[Length(min=1)],
        schema=Schema(Schema.MAP, schema={"n": Schema(Schema.INTEGER, default=1)}),
    )
    assert schema.as_dict() == {
        "type": "list",
        "description": "Things.",
        "required": False,
        "update_allowed": True,
        "immutable": False,
        "constraints": [{"length": {"min": 1}}],
        "schema": {"*": {
            "type": "map", "required": False, "update_allowed": False, "immutable": False,
            "schema": {"n": {"type": "integer", "default": 1, "required": False,
                             "update_allowed": False, "immutable": False}},
        }},
    }


# -- properties of coercion ---------------------------------------------------------
@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_integer_strings_round_trip(number: int) -> None:
    assert one(Schema.INTEGER, str(number)) == number
    assert one(Schema.NUMBER, str(number)) == number


@given(st.text())
def test_any_string_is_a_valid_string(text: str) -> None:
    assert one(Schema.STRING, text) == text


@given(st.booleans(), st.sampled_from([str.lower, str.upper, str.title]))
def test_boolean_strings_in_any_case(flag: bool, case: Any) -> None:
    assert one(Schema.BOOLEAN, case(str(flag))) is flag
