"""Registry: entry points, lookups, Heat's not-found text, extras for tests."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from hotplate.model.errors import ResourceTypeUnavailable, StackValidationFailed
from hotplate.resources import ENTRY_POINT_GROUP, Registry, Resource
from hotplate.resources import registry as registry_module
from hotplate.resources.none import NoneResource
from hotplate.resources.random_string import RandomString
from hotplate.resources.test_resource import TestResource
from hotplate.resources.value import Value

BUILT_INS = {
    "OS::Heat::None": NoneResource,
    "OS::Heat::RandomString": RandomString,
    "OS::Heat::TestResource": TestResource,
    "OS::Heat::Value": Value,
}


class Custom(Resource):
    pass


def ep(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


def test_built_ins_come_from_entry_points() -> None:
    registry = Registry.from_entry_points()
    assert set(BUILT_INS) <= set(registry.types())
    for name, cls in BUILT_INS.items():
        assert registry.get(name) is cls


def test_default_is_shared() -> None:
    assert Registry.default() is Registry.default()


def test_unknown_type_has_heats_message() -> None:
    with pytest.raises(ResourceTypeUnavailable) as info:
        Registry.default().get("OS::Nova::Serverr")
    assert str(info.value) == "The Resource Type (OS::Nova::Serverr) could not be found."
    assert info.value.path == ()
    assert isinstance(info.value, StackValidationFailed)


def test_with_extra_adds_and_overrides_without_touching_the_base() -> None:
    base = Registry(BUILT_INS)
    extended = Registry.with_extra({"My::Custom": Custom, "OS::Heat::None": Custom}, base=base)
    assert extended.get("My::Custom") is Custom
    assert extended.get("OS::Heat::None") is Custom
    assert extended.get("OS::Heat::Value") is Value
    assert "My::Custom" not in base
    assert base.get("OS::Heat::None") is NoneResource


def test_with_extra_defaults_to_the_installed_types() -> None:
    registry = Registry.with_extra({"My::Custom": Custom})
    assert registry.get("My::Custom") is Custom
    assert registry.get("OS::Heat::RandomString") is RandomString


def test_entry_points_load_lazily_and_once() -> None:
    value_ep = ep("X::Value", "hotplate.resources.value:Value")
    registry = Registry(entry_points={"X::Value": value_ep})
    assert registry.types() == ["X::Value"]
    assert registry.get("X::Value") is Value
    assert registry.get("X::Value") is Value


def test_broken_plugin_is_logged_and_not_found(caplog: pytest.LogCaptureFixture) -> None:
    registry = Registry(entry_points={
        "Bad::Import": ep("Bad::Import", "hotplate_no_such_module:Thing"),
        "Bad::Class": ep("Bad::Class", "hotplate.resources.value:VALUE"),
        "Good::One": ep("Good::One", "hotplate.resources.none:NoneResource"),
    })
    with caplog.at_level(logging.ERROR, logger=registry_module.__name__):
        for name in ("Bad::Import", "Bad::Class"):
            with pytest.raises(ResourceTypeUnavailable, match="could not be found"):
                registry.get(name)
            with pytest.raises(ResourceTypeUnavailable):  # stays unavailable
                registry.get(name)
    assert "cannot load hotplate_no_such_module:Thing" in caplog.text
    assert "is not a Resource subclass" in caplog.text
    assert registry.types() == ["Good::One"]
    assert registry.get("Good::One") is NoneResource


def test_contains() -> None:
    registry = Registry(BUILT_INS)
    assert "OS::Heat::Value" in registry
    assert "OS::Heat::Nothing" not in registry
    assert 42 not in registry


def test_duplicate_entry_points_keep_the_first(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    found = [ep("A::B", "hotplate.resources.none:NoneResource"),
             ep("A::B", "hotplate.resources.value:Value")]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: found)
    with caplog.at_level(logging.WARNING, logger=registry_module.__name__):
        registry = Registry.from_entry_points()
    assert registry.get("A::B") is NoneResource
    assert "declared twice" in caplog.text
