"""OS::Heat::TestResource: value, fail, waits, update_replace, attributes."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed, UpdateReplace
from hotplate.resources import InvalidTemplateAttribute
from hotplate.resources.base import CheckAgain
from hotplate.resources.test_resource import TestResource
from tests.unit.resources.fakes import FakeContext, drive, make

PREFIX = ("resources", "web", "properties")


def new(raw: dict[str, Any] | None = None, ctx: FakeContext | None = None) -> TestResource:
    res = make(TestResource, raw, ctx=ctx)
    assert isinstance(res, TestResource)
    return res


def props(**raw: Any) -> dict[str, Any]:
    return TestResource.validate(raw, PREFIX)


def create(res: TestResource) -> int:
    return drive(res.handle_create, res.check_create_complete, res.ctx.clock)  # type: ignore[arg-type]


def update(res: TestResource, **raw: Any) -> int:
    new_props = props(**raw)
    diff = TestResource.property_diff(res.properties, new_props)
    return drive(lambda: res.handle_update(new_props, diff), res.check_update_complete,
                 res.ctx.clock)  # type: ignore[arg-type]


def delete(res: TestResource) -> int:
    return drive(res.handle_delete, res.check_delete_complete, res.ctx.clock)  # type: ignore[arg-type]


# -- schema ---------------------------------------------------------------------------
def test_defaults_are_heats() -> None:
    assert props() == {
        "constraint_prop_secs": 0,
        "attr_wait_secs": 0,
        "value": "test_string",
        "update_replace_value": None,
        "fail": False,
        "update_replace": False,
        "wait_secs": 0,
        "action_wait_secs": None,
        "client_name": "",
        "entity_name": "",
    }


def test_update_allowed_is_heats() -> None:
    fixed = {k for k, s in TestResource.properties_schema.items() if not s.update_allowed}
    assert fixed == {"update_replace_value"}


@pytest.mark.parametrize(
    ("raw", "path", "message"),
    [
        ({"wait_secs": "soon"}, ("wait_secs",), "could not convert string to float: 'soon'"),
        ({"fail": "yes"}, ("fail",), '"yes" is not a valid boolean'),
        ({"action_wait_secs": {"suspend": 1}}, ("action_wait_secs",),
         "Unknown Property suspend"),
        ({"colour": "red"}, (), "Unknown Property colour"),
    ],
)
def test_validation_errors(raw: dict[str, Any], path: tuple[str, ...], message: str) -> None:
    with pytest.raises(StackValidationFailed) as info:
        TestResource.validate(raw, PREFIX)
    assert info.value.detail == message
    assert info.value.path == (*PREFIX, *path)


# -- create ---------------------------------------------------------------------------
def test_create_stores_the_value_and_a_physical_name() -> None:
    ctx = FakeContext()
    res = new({"value": "hello"}, ctx)
    assert res.get_reference_id() == "web"
    assert create(res) == 0
    assert ctx.stored == {"value": "hello"} and not ctx.redacted
    assert res.resource_id == "teststack-web-abcdefghijkl"
    assert res.get_reference_id() == res.resource_id
    assert res.get_attribute("output") == "hello"
    assert res.get_attribute("show") == {"output": "hello"}


def test_create_waits_without_blocking_and_says_how_long() -> None:
    res = new({"wait_secs": 5})
    data = res.handle_create()
    assert res.check_create_complete(data) == CheckAgain(after=5)
    res.ctx.clock.advance(4.5)  # type: ignore[attr-defined]
    assert res.check_create_complete(data) == CheckAgain(after=0.5)
    assert not res.check_create_complete(data)  # Heat's reading: not done
    res.ctx.clock.advance(0.5)  # type: ignore[attr-defined]
    assert res.check_create_complete(data) is True


def test_action_wait_secs_overrides_wait_secs_per_action() -> None:
    res = new({"wait_secs": 2, "action_wait_secs": {"create": 7, "delete": 0}})
    assert create(res) == 7
    assert update(res, wait_secs=2, action_wait_secs={"create": 7, "delete": 0},
                  value="v2") == 2
    assert delete(res) == 0


def test_negative_wait_never_completes() -> None:
    res = new({"wait_secs": -1})
    data = res.handle_create()
    res.ctx.clock.advance(10**6)  # type: ignore[attr-defined]
    assert res.check_create_complete(data) == CheckAgain(after=math.inf)


def test_fail_fails_the_create_after_the_wait() -> None:
    ctx = FakeContext()
    res = new({"fail": True, "wait_secs": 3}, ctx)
    data = res.handle_create()
    assert ctx.stored == {} and res.resource_id is None
    assert not res.check_create_complete(data)
    ctx.clock.advance(3)
    with pytest.raises(ValueError, match=r"^Test Resource failed web$"):
        res.check_create_complete(data)


def test_delete_of_a_row_with_no_stored_properties() -> None:
    # A create that failed before its properties were stored still deletes.
    res = TestResource("web", {}, FakeContext())
    assert delete(res) == 0


def test_fail_is_ignored_on_delete() -> None:
    res = new({"fail": True, "wait_secs": 1})
    assert delete(res) == 1


# -- update ---------------------------------------------------------------------------
def test_update_in_place_stores_the_new_value_and_waits() -> None:
    ctx = FakeContext()
    res = new({"value": "a"}, ctx)
    create(res)
    old = res.properties
    new_props = props(value="b", wait_secs=3)
    assert TestResource.needs_replacement(old, new_props) is False
    assert update(res, value="b", wait_secs=3) == 3
    assert ctx.stored == {"value": "b"}
    assert res.get_attribute("output") == "b"
    assert res.properties["wait_secs"] == 3


def test_update_without_a_new_value_does_not_wait() -> None:
    res = new({"value": "a"})
    create(res)
    assert update(res, value="a", wait_secs=30) == 0


def test_update_with_fail_fails_and_keeps_the_old_value() -> None:
    ctx = FakeContext()
    res = new({"value": "a"}, ctx)
    create(res)
    with pytest.raises(ValueError, match="Test Resource failed web"):
        update(res, value="b", fail=True)
    assert ctx.stored == {"value": "a"}


def test_update_replace_with_a_new_value_replaces() -> None:
    old = props(value="a")
    assert TestResource.needs_replacement(old, props(value="b", update_replace=True)) is True
    # update_replace alone is an in-place change
    assert TestResource.needs_replacement(old, props(value="a", update_replace=True)) is False


def test_update_replace_is_also_raised_from_handle_update() -> None:
    res = new({"value": "a"})
    create(res)
    new_props = props(value="b", update_replace=True)
    with pytest.raises(UpdateReplace):
        res.handle_update(new_props, TestResource.property_diff(res.properties, new_props))


def test_update_replace_value_always_replaces() -> None:
    old = props(update_replace_value="x")
    assert TestResource.needs_replacement(old, props(update_replace_value="y")) is True
    assert TestResource.needs_replacement(old, props(update_replace_value="x")) is False


# -- attributes -----------------------------------------------------------------------
def test_attr_wait_secs_takes_time_on_the_clock() -> None:
    ctx = FakeContext()
    res = new({"attr_wait_secs": 2, "value": "v"}, ctx)
    create(res)
    assert res.get_attribute("output") == "v"
    assert ctx.clock.slept == [2]


def test_unknown_attribute() -> None:
    with pytest.raises(InvalidTemplateAttribute):
        new().get_attribute("value")


def test_output_is_none_before_create() -> None:
    assert new().get_attribute("output") is None


def test_constraint_prop_secs_makes_validation_slow() -> None:
    import time

    from hotplate.resources.test_resource import TestResource

    started = time.monotonic()
    TestResource.validate({"value": "x"}, ("properties",))
    assert time.monotonic() - started < 0.1
    started = time.monotonic()
    TestResource.validate({"value": "x", "constraint_prop_secs": 0.3}, ("properties",))
    assert time.monotonic() - started >= 0.3
