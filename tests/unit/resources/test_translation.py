"""Heat's translation rules as data: the pure REPLACE/ADD/DELETE and RESOLVE by lookup."""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.translation import TranslationRule, has_resolve, resolve, translate

WHERE = ("resources", "r", "properties")


def test_replace_moves_the_old_name_to_the_new() -> None:
    rules = (TranslationRule.replace(("network",), "network_id"),)
    raw = {"network_id": "n1", "cidr": "10.0.0.0/24"}
    assert translate(rules, raw, WHERE) == {"network": "n1", "cidr": "10.0.0.0/24"}
    assert raw == {"network_id": "n1", "cidr": "10.0.0.0/24"}  # not changed


def test_replace_leaves_the_new_name_alone_when_the_old_is_absent_or_none() -> None:
    rules = (TranslationRule.replace(("network",), "network_id"),)
    assert translate(rules, {"network": "n"}, WHERE) == {"network": "n"}
    assert translate(rules, {"network": "n", "network_id": None}, WHERE) == {"network": "n"}


def test_replace_refuses_both_names_with_heats_text() -> None:
    rules = (TranslationRule.replace(("network",), "network_id"),)
    with pytest.raises(StackValidationFailed) as caught:
        translate(rules, {"network": "a", "network_id": "b"}, WHERE)
    assert str(caught.value) == ("resources.r.properties: Cannot define the following "
                                 "properties at the same time: network, network_id")


def test_replace_inside_each_item_of_a_list() -> None:
    rules = (TranslationRule.replace(("fixed_ips", "subnet"), "subnet_id"),)
    raw = {"fixed_ips": [{"subnet_id": "s1"}, {"subnet": "s2"}, {"ip_address": "10.0.0.5"}]}
    assert translate(rules, raw, WHERE) == {
        "fixed_ips": [{"subnet": "s1"}, {"subnet": "s2"}, {"ip_address": "10.0.0.5"}]}
    with pytest.raises(StackValidationFailed, match=r"fixed_ips\.subnet, fixed_ips\.subnet_id"):
        translate(rules, {"fixed_ips": [{"subnet": "a", "subnet_id": "b"}]}, WHERE)


def test_add_then_delete_folds_an_old_single_value_into_a_list() -> None:
    rules = (TranslationRule.add(("l3_agent_ids",), value_path=("l3_agent_id",)),
             TranslationRule.delete(("l3_agent_id",)))
    assert translate(rules, {"l3_agent_id": "a"}, WHERE) == {"l3_agent_ids": ["a"]}
    assert translate(rules, {"l3_agent_id": "a", "l3_agent_ids": ["b"]}, WHERE) == {
        "l3_agent_ids": ["b", "a"]}
    assert translate(rules, {}, WHERE) == {}


def test_add_a_constant() -> None:
    rules = (TranslationRule.add(("tags",), value=["x"]),)
    assert translate(rules, {"tags": ["a"]}, WHERE) == {"tags": ["a", "x"]}


def test_not_a_map_and_no_rules_pass_through() -> None:
    rules = (TranslationRule.replace(("a",), "b"),)
    assert translate(rules, None, WHERE) is None
    assert translate(rules, "text", WHERE) == "text"  # type: ignore[arg-type]
    raw = {"b": 1}
    assert translate((), raw, WHERE) is raw


def test_resolve_asks_the_lookup_for_each_value() -> None:
    asked: list[tuple[str, str]] = []

    def lookup(kind: str, value: str) -> str:
        asked.append((kind, value))
        return f"id-of-{value}"

    rules = (TranslationRule.resolve(("network",), "network"),
             TranslationRule.resolve(("gateway", "fixed_ips", "subnet"), "subnet"),
             TranslationRule.resolve(("groups",), "security_group"),
             TranslationRule.replace(("other",), "old"))
    props: dict[str, Any] = {"network": "private", "other": None, "groups": ["a", "b"],
                             "gateway": {"fixed_ips": [{"subnet": "s"}, {"subnet": None}]}}
    assert resolve(rules, props, lookup) == {
        "network": "id-of-private", "other": None, "groups": ["id-of-a", "id-of-b"],
        "gateway": {"fixed_ips": [{"subnet": "id-of-s"}, {"subnet": None}]}}
    assert asked == [("network", "private"), ("subnet", "s"), ("security_group", "a"),
                     ("security_group", "b")]
    assert props["network"] == "private"  # not changed


def test_resolve_skips_unset_values_and_has_resolve_tells() -> None:
    rules = (TranslationRule.resolve(("qos_policy",), "qos_policy"),)
    assert resolve(rules, {"qos_policy": None}, lambda k, v: 1 / 0) == {"qos_policy": None}
    assert has_resolve(rules)
    assert not has_resolve((TranslationRule.delete(("x",)),))
