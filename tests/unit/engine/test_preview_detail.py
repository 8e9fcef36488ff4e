"""The plan's property detail: which properties derive from hidden parameters, which
values hold a hidden value, and what forces a replacement."""

from __future__ import annotations

from hotplate.engine.service.preview_detail import (
    EVERY_PROPERTY,
    HIDDEN,
    Masks,
    derived_from_hidden,
    entry,
    hidden_parameters,
    property_changes,
    replacement,
    secret_texts,
)
from hotplate.resources.random_string import RandomString
from hotplate.resources.test_resource import TestResource
from hotplate.template import parse_template

TEMPLATE = """
heat_template_version: 2021-04-16
parameters:
  secret: {type: string, hidden: true, default: pw}
  plain: {type: string, default: open}
resources:
  direct:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: ["-", [{get_param: secret}, x]]}
      fail: false
  through:
    type: OS::Heat::Value
    properties: {value: {get_attr: [direct, output]}, type: string}
  twice:
    type: OS::Heat::Value
    properties: {value: {get_attr: [through, value]}}
  by_id:
    type: OS::Heat::Value
    properties: {value: {get_resource: direct}}
  open:
    type: OS::Heat::Value
    properties: {value: {get_param: plain}}
  whole:
    type: OS::Heat::None
    properties: {get_param: secret}
"""


def test_what_reads_a_hidden_parameter_directly_or_through_attributes_is_derived() -> None:
    template = parse_template(TEMPLATE)
    hidden = hidden_parameters(template)
    assert hidden == {"secret"}
    assert derived_from_hidden(template, hidden) == {
        "direct": {"value"}, "through": {"value"}, "twice": {"value"},
        "whole": {EVERY_PROPERTY}}
    assert derived_from_hidden(template, frozenset()) == {}
    assert derived_from_hidden(template, frozenset({"plain"})) == {"open": {"value"}}


def test_a_value_holding_a_hidden_value_is_hidden() -> None:
    masks = Masks({"a": frozenset({"x"}), "b": frozenset({EVERY_PROPERTY})},
                  secret_texts(["s", "n", "short", "none"],
                               {"s": "sesame", "n": 42, "short": "ab", "none": None}))
    assert masks.secrets == {"sesame", "42", "ab"}
    assert masks.hides("a", "x", "anything")
    assert masks.hides("b", "y", 1)
    assert masks.hides("c", "y", "open sesame")
    assert masks.hides("c", "y", {"nested": ["sesame"]})
    assert masks.hides("c", "y", "ab")
    assert not masks.hides("c", "y", "abc")  # a short secret is not looked for inside
    assert masks.hides("c", "y", 42)
    assert not masks.hides("c", "y", None)
    assert not Masks({}, frozenset()).hides("c", "y", "sesame")


def test_each_changed_property_old_and_new_and_whether_it_forces_replacement() -> None:
    masks = Masks({"r": frozenset({"value"})}, frozenset())
    changes = property_changes(TestResource, "r", {"value": "a", "wait_secs": 1, "fail": False},
                               {"value": "b", "wait_secs": 2, "fail": False}, masks)
    assert changes == [
        {"name": "value", "old": HIDDEN, "new": HIDDEN, "forces_replacement": False},
        {"name": "wait_secs", "old": 1, "new": 2, "forces_replacement": False}]
    plain = Masks({}, frozenset())
    assert property_changes(RandomString, "k", {"length": 8}, {"length": 9}, plain) == [
        {"name": "length", "old": 8, "new": 9, "forces_replacement": True}]
    # A property that is gone is shown going to None; nothing forces a replacement by going.
    assert property_changes(RandomString, "k", {"length": 8}, {}, plain) == [
        {"name": "length", "old": 8, "new": None, "forces_replacement": False}]


def test_what_forces_a_replacement() -> None:
    assert replacement(RandomString, {"length": 8}, {"length": 9}) == {
        "forced_by": ["length"], "reason": "length cannot be updated in place"}
    assert replacement(TestResource, {"value": "a", "update_replace": False},
                       {"value": "b", "update_replace": True}) == {
        "forced_by": ["update_replace", "value"],
        "reason": "the type replaces on a change to update_replace, value"}
    assert replacement(TestResource, None, {"value": "b"}) == {
        "forced_by": [], "reason": "the new properties are known only at run time"}


def test_an_entry_leaves_out_what_it_does_not_have() -> None:
    assert entry("r", "T", "updated", properties=[], nested=None, properties_known=False) == {
        "resource_name": "r", "resource_type": "T", "change": "updated",
        "properties_known": False}
