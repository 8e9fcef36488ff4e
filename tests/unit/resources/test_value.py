"""OS::Heat::Value: typed coercion of ``value`` and the ``value`` attribute."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.value import Value
from tests.unit.resources.fakes import FakeContext, drive, make

PREFIX = ("resources", "v", "properties")


def coerced(value: Any, kind: str | None = None) -> Any:
    raw = {"value": value} if kind is None else {"value": value, "type": kind}
    return Value.validate(raw, PREFIX)["value"]


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ({"a": [1]}, None, {"a": [1]}),
        ("5", None, "5"),
        (5, "string", "5"),
        ("x", "string", "x"),
        ("5", "number", 5),
        ("5.5", "number", 5.5),
        (3, "number", 3),
        ("true", "boolean", True),
        (False, "boolean", False),
        ({"k": "v"}, "json", {"k": "v"}),
        (["a", "b"], "comma_delimited_list", ["a", "b"]),
    ],
)
def test_value_is_coerced_to_its_type(value: Any, kind: str | None, expected: Any) -> None:
    result = coerced(value, kind)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("value", "kind", "message"),
    [
        ("x", "number", "could not convert string to float: 'x'"),
        ("yes", "boolean", '"yes" is not a valid boolean'),
        ([1, 2], "json", '"[1, 2]" is not a map'),
        ("a,b", "comma_delimited_list", "\"'a,b'\" is not a list"),
        ({"a": 1}, "string", "Value must be a string; got {'a': 1}"),
    ],
)
def test_value_of_the_wrong_type(value: Any, kind: str, message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        coerced(value, kind)
    assert info.value.detail == message
    assert info.value.path == (*PREFIX, "value")


def test_unknown_type() -> None:
    with pytest.raises(StackValidationFailed) as info:
        coerced(1, "int")
    assert info.value.detail == (
        '"int" is not an allowed value '
        '["string", "number", "comma_delimited_list", "json", "boolean"]'
    )
    assert info.value.path == (*PREFIX, "type")


@pytest.mark.parametrize("raw", [{}, {"value": None}, {"type": "string"}])
def test_value_is_required(raw: dict[str, Any]) -> None:
    with pytest.raises(StackValidationFailed) as info:
        Value.validate(raw, PREFIX)
    assert str(info.value) == "resources.v.properties: Property value not assigned"


def test_lifecycle_and_in_place_update() -> None:
    ctx = FakeContext(resource_name="v")
    res = make(Value, {"value": "5", "type": "number"}, name="v", ctx=ctx)
    assert drive(res.handle_create, res.check_create_complete, ctx.clock) == 0
    assert res.resource_id == "teststack-v-abcdefghijkl"
    assert res.get_attribute("value") == 5

    new_props = Value.validate({"value": ["x"], "type": "comma_delimited_list"}, PREFIX)
    assert Value.needs_replacement(res.properties, new_props) is False
    diff = Value.property_diff(res.properties, new_props)
    assert drive(lambda: res.handle_update(new_props, diff), res.check_update_complete,
                 ctx.clock) == 0
    assert res.get_attribute("value") == ["x"]
    assert res.get_attribute("show") == {"value": ["x"]}
    assert drive(res.handle_delete, res.check_delete_complete, ctx.clock) == 0
