"""Each constraint: what passes, Heat's message for what fails, and bad declarations."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.resources import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    InvalidSchemaError,
    Length,
    Modulo,
    Range,
)

CASES: list[tuple[Constraint, str, Any, str | None]] = [
    (Range(1, 512), "Integer", 1, None),
    (Range(1, 512), "Integer", 512, None),
    (Range(1, 512), "Integer", 0, "0 is out of range (min: 1, max: 512)"),
    (Range(1, 512), "Integer", 513, "513 is out of range (min: 1, max: 512)"),
    (Range(min=0.5), "Number", 0.25, "0.25 is out of range (min: 0.5, max: None)"),
    (Range(max=10), "Number", 11, "11 is out of range (min: None, max: 10)"),
    (Length(1, 3), "String", "abc", None),
    (Length(1, 3), "String", "", "length (0) is out of range (min: 1, max: 3)"),
    (Length(max=1), "List", [1, 2], "length (2) is out of range (min: None, max: 1)"),
    (Length(min=1), "Map", {}, "length (0) is out of range (min: 1, max: None)"),
    (Modulo(2, 1), "Integer", 5, None),
    (Modulo(2, 1), "Integer", 4, "4 is not a multiple of 2 with an offset of 1)"),
    (Modulo(-3, -1), "Integer", -4, None),
    (AllowedValues(["a", "b"]), "String", "a", None),
    (AllowedValues(["a", "b"]), "String", "c", '"c" is not an allowed value ["a", "b"]'),
    (AllowedValues([1, 2]), "Integer", 2, None),
    (AllowedValues(["1", "2"]), "Integer", 2, None),  # compared in the property's type
    (AllowedValues([1, 2]), "Integer", 3, "3 is not an allowed value [1, 2]"),
    (AllowedValues(["1", 2.5]), "Number", 3.5, '3.5 is not an allowed value ["1", 2.5]'),
    (AllowedValues(["a", "b"]), "List", ["a", "b", "a"], None),
    (AllowedValues(["a", "b"]), "List", ["a", "z"],
     '["a", "z"] is not an allowed value ["a", "b"]'),
    (AllowedValues(["true"]), "Boolean", True, None),
    (AllowedValues(["false"]), "Boolean", True, 'true is not an allowed value ["false"]'),
    (AllowedPattern("[a-z]+"), "String", "abc", None),
    (AllowedPattern("[a-z]+"), "String", "abc1", '"abc1" does not match pattern "[a-z]+"'),
    (AllowedPattern("[a-z]+"), "String", "1abc", '"1abc" does not match pattern "[a-z]+"'),
]


@pytest.mark.parametrize(("constraint", "kind", "value", "message"), CASES)
def test_check(constraint: Constraint, kind: str, value: Any, message: str | None) -> None:
    assert constraint.check(value, kind) == message


def test_description_replaces_the_message() -> None:
    constraint = Range(1, 2, description="Pick one or two.")
    assert constraint.check(3, "Integer") == "Pick one or two."
    assert constraint.check(1, "Integer") is None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Range(), "A range constraint must have a min value and/or a max value "
                          "specified."),
        (lambda: Range("1"), "min/max must be numeric"),
        (lambda: Length(), "A length constraint must have a min value and/or a max value "
                           "specified."),
        (lambda: Length(1.5), "min/max length must be integral"),
        (lambda: Modulo(0, 0), "step cannot be 0."),
        (lambda: Modulo(2.5, 0), "step/offset must be integer"),
        (lambda: Modulo("2", 0), "step/offset must be numeric"),
        (lambda: Modulo(2, 3), "offset must be smaller (by absolute value) than step."),
        (lambda: Modulo(2, -1), "step and offset must be both positive or both negative."),
        (lambda: AllowedValues("abc"), "AllowedValues must be a list"),
        (lambda: AllowedPattern(5), "AllowedPattern must be a string"),
    ],
)
def test_bad_declarations(make: Any, message: str) -> None:
    with pytest.raises(InvalidSchemaError) as info:
        make()
    assert str(info.value) == message


def test_unparseable_pattern_is_a_declaration_error() -> None:
    with pytest.raises(InvalidSchemaError, match="Invalid AllowedPattern"):
        AllowedPattern("(")


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        (Range(1, 512), {"range": {"min": 1, "max": 512}}),
        (Length(min=1, description="d"), {"length": {"min": 1}, "description": "d"}),
        (Modulo(2, 1), {"modulo": {"step": 2, "offset": 1}}),
        (AllowedValues(("a",)), {"allowed_values": ["a"]}),
        (AllowedPattern("x+"), {"allowed_pattern": "x+"}),
    ],
)
def test_as_dict_is_the_hot_form(constraint: Constraint, expected: dict[str, Any]) -> None:
    assert constraint.as_dict() == expected
