"""The drift comparison (convergence/drift.py): template values against live ones."""

from __future__ import annotations

import pytest

from hotplate.convergence.drift import (
    Difference,
    DriftStatus,
    ResourceDrift,
    compare_resource,
    drift_report,
    drifted_properties,
    values_match,
)


@pytest.mark.parametrize(("expected", "actual"), [
    (None, "anything"),                       # the template left it to the cloud
    ("web", "web"),
    (1, "1"), ("1", 1), (1, 1.0),
    (True, True), (True, "True"), (False, "false"),
    (["a", "b"], ["b", "a"]),                 # plain lists in any order
    ([1, "2"], ["1", 2]),
    ([{"subnet": "s1", "ip_address": None}], [{"subnet": "s1", "ip_address": "10.0.0.5"}]),
    ({"network": "n", "enable_snat": None}, {"network": "n", "enable_snat": True}),
    ({}, {"extra": "cloud's"}),               # a structured map: live keys not set are the cloud's
])
def test_values_that_match(expected: object, actual: object) -> None:
    assert values_match(expected, actual)


@pytest.mark.parametrize(("expected", "actual"), [
    ("web", "renamed"),
    ("web", None),
    (True, False),
    (True, "no"),
    (1, 2),
    (["a"], ["a", "b"]),
    (["a", "b"], ["a", "c"]),
    (["a"], "a"),
    ([{"subnet": "s1"}], [{"subnet": "s2"}]),
    ([{"subnet": "s1"}, {"subnet": "s2"}], [{"subnet": "s1"}]),
    ({"network": "n"}, "n"),
    ({"network": "n"}, {"network": "m"}),
])
def test_values_that_differ(expected: object, actual: object) -> None:
    assert not values_match(expected, actual)


def test_free_form_maps_compare_every_key() -> None:
    assert values_match({"a": "1"}, {"a": "1"}, free_form=True)
    assert values_match({"a": 1}, {"a": "1"}, free_form=True)
    assert not values_match({"a": "1"}, {"a": "1", "b": "2"}, free_form=True)
    assert not values_match({"a": "1", "b": "2"}, {"a": "1"}, free_form=True)
    assert not values_match({"a": None}, {"a": "x"}, free_form=True)
    assert values_match({"a": None}, {"a": None}, free_form=True)
    assert values_match({"a": {"b": 1}}, {"a": {"b": 1}}, free_form=True)
    assert not values_match({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, free_form=True)
    assert not values_match({"a": "1"}, ["a"], free_form=True)
    assert values_match({}, {}, free_form=True)
    assert not values_match({}, {"added": "x"}, free_form=True)


def test_only_properties_read_back_are_compared() -> None:
    expected = {"name": "web", "size": 1, "metadata": {"k": "v"}, "image": "cirros"}
    live = {"name": "renamed", "size": 1, "metadata": {"k": "v", "x": "y"}}
    assert drifted_properties(expected, live, {"metadata"}) == ["name", "metadata"]
    assert drifted_properties(expected, live) == ["name"]  # metadata as a structured map
    assert drifted_properties(expected, {}) == []
    assert drifted_properties({}, {"description": "the cloud's"}) == []


def test_a_resource_in_sync() -> None:
    verdict = compare_resource("net", "OS::Neutron::Net", "n-1",
                               {"name": "a", "admin_state_up": True},
                               {"name": "a", "admin_state_up": True})
    assert verdict == ResourceDrift("net", "OS::Neutron::Net", "n-1", DriftStatus.IN_SYNC)
    assert verdict.as_dict() == {
        "resource_name": "net", "resource_type": "OS::Neutron::Net",
        "physical_resource_id": "n-1", "drift_status": "IN_SYNC", "drift_status_reason": ""}


def test_a_drifted_resource_lists_each_property() -> None:
    verdict = compare_resource("vol", "OS::Cinder::Volume", "v-1",
                               {"name": "a", "metadata": {"k": "v"}, "size": 1},
                               {"name": "b", "metadata": {"k": "v", "x": "1"}, "size": 1},
                               free_form=["metadata"])
    assert verdict.status is DriftStatus.DRIFTED
    assert verdict.differences == (
        Difference("vol", "OS::Cinder::Volume", "name", "a", "b"),
        Difference("vol", "OS::Cinder::Volume", "metadata", {"k": "v"}, {"k": "v", "x": "1"}),
    )


def test_the_report_lists_verdicts_then_every_difference() -> None:
    drifted = compare_resource("port", "OS::Neutron::Port", "p-1", {"name": "a"},
                               {"name": "b"})
    unchecked = ResourceDrift("note", "OS::Heat::Value", None, DriftStatus.NOT_CHECKED,
                              reason="OS::Heat::Value has no live state")
    report = drift_report([drifted, unchecked])
    assert [r["drift_status"] for r in report["resources"]] == ["DRIFTED", "NOT_CHECKED"]
    assert report["resources"][1]["drift_status_reason"] == "OS::Heat::Value has no live state"
    assert report["differences"] == [{"resource": "port", "type": "OS::Neutron::Port",
                                      "property": "name", "expected": "a", "actual": "b"}]
    assert drift_report([]) == {"resources": [], "differences": []}
