"""An update's plan through python-heatclient: beside Heat's ``resource_changes`` (whose
shape stays Heat's), ``resource_changes_detail`` says what changes in each resource,
old and new value, what forces a replacement, hidden values as ``<hidden>``, and a
stack-backed resource's own resources under it."""

from __future__ import annotations

import itertools
import json
from typing import Any

import yaml

from tests.api.helpers import wait_status

KINDS = {"added", "deleted", "replaced", "unchanged", "updated"}

BEFORE = """
heat_template_version: 2021-04-16
parameters:
  password: {type: string, hidden: true, default: s3cr3t-one}
  greeting: {type: string, default: hello}
resources:
  test:
    type: OS::Heat::TestResource
    properties: {value: {get_param: greeting}}
  random:
    type: OS::Heat::RandomString
    properties: {length: 8}
  secret:
    type: OS::Heat::Value
    properties: {value: {get_param: password}}
  derived:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: "pw=X", params: {X: {get_attr: [secret, value]}}}}
  stays:
    type: OS::Heat::None
  goes:
    type: OS::Heat::None
"""

_names = (f"plan{i}" for i in itertools.count())


def _created(hc: Any, template: str, files: dict[str, str] | None = None) -> str:
    created = hc.stacks.create(stack_name=next(_names), template=template,
                               files=files or {})
    stack = wait_status(hc, created["stack"]["id"], timeout=60)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return f"{stack.stack_name}/{stack.id}"


def _plan(hc: Any, stack: str, template: str, files: dict[str, str] | None = None,
          **kwargs: Any) -> tuple[dict[str, list[Any]], list[dict[str, Any]]]:
    body = hc.stacks.preview_update(stack, template=template, files=files or {}, **kwargs)
    assert set(body) == {"resource_changes", "resource_changes_detail"}
    assert set(body["resource_changes"]) == KINDS
    return body["resource_changes"], body["resource_changes_detail"]


def _entry(detail: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [e for e in detail if e["resource_name"] == name]
    assert len(found) == 1, detail
    return found[0]


def _after() -> str:
    template = yaml.safe_load(BEFORE)
    template["parameters"]["password"]["default"] = "s3cr3t-two"
    resources = template["resources"]
    resources["test"]["properties"]["value"] = "bye"
    resources["random"]["properties"]["length"] = 12
    resources["derived"]["properties"]["value"]["str_replace"]["template"] = "password=X"
    del resources["goes"]
    resources["fresh"] = {"type": "OS::Heat::None"}
    return yaml.safe_dump(template, sort_keys=False)


def test_each_resource_says_what_changes_and_hidden_values_stay_hidden(hc: Any) -> None:
    stack = _created(hc, BEFORE)
    changes, detail = _plan(hc, stack, _after())
    # Heat's lists keep Heat's shape: no detail inside them.
    assert sorted(r["resource_name"] for r in changes["updated"]) == ["derived", "secret",
                                                                       "test"]
    assert [r["resource_name"] for r in changes["replaced"]] == ["random"]
    assert [r["resource_name"] for r in changes["added"]] == ["fresh"]
    assert [r["resource_name"] for r in changes["deleted"]] == ["goes"]
    assert [r["resource_name"] for r in changes["unchanged"]] == ["stays"]
    for listed in changes.values():
        for resource in listed:
            assert not {"properties", "change", "replacement"} & set(resource)
    # The detail: the new template's order, then the deleted ones.
    assert [(e["resource_name"], e["change"]) for e in detail] == [
        ("test", "updated"), ("random", "replaced"), ("secret", "updated"),
        ("derived", "updated"), ("stays", "unchanged"), ("fresh", "added"),
        ("goes", "deleted")]
    assert _entry(detail, "test")["properties"] == [
        {"name": "value", "old": "hello", "new": "bye", "forces_replacement": False}]
    random = _entry(detail, "random")
    assert random["properties"] == [
        {"name": "length", "old": 8, "new": 12, "forces_replacement": True}]
    assert random["replacement"] == {"forced_by": ["length"],
                                     "reason": "length cannot be updated in place"}
    assert _entry(detail, "secret")["properties"] == [
        {"name": "value", "old": "<hidden>", "new": "<hidden>", "forces_replacement": False}]
    # Read from the stored attribute of a resource given the hidden value.
    assert _entry(detail, "derived")["properties"] == [
        {"name": "value", "old": "<hidden>", "new": "<hidden>", "forces_replacement": False}]
    assert "s3cr3t" not in json.dumps(detail)
    assert _entry(detail, "stays") == {"resource_name": "stays",
                                       "resource_type": "OS::Heat::None",
                                       "change": "unchanged"}


def test_the_type_rule_and_a_type_change_are_the_reasons_of_a_replacement(hc: Any) -> None:
    stack = _created(hc, BEFORE)
    template = yaml.safe_load(BEFORE)
    resources = template["resources"]
    resources["test"]["properties"].update(value="bye", update_replace=True)
    resources["stays"]["type"] = "OS::Heat::TestResource"
    resources["goes"]["metadata"] = {"tag": "new"}
    _, detail = _plan(hc, stack, yaml.safe_dump(template, sort_keys=False))
    test = _entry(detail, "test")
    assert test["change"] == "replaced"
    assert test["replacement"] == {
        "forced_by": ["update_replace", "value"],
        "reason": "the type replaces on a change to update_replace, value"}
    assert {p["name"] for p in test["properties"]} == {"update_replace", "value"}
    assert _entry(detail, "stays")["replacement"] == {
        "forced_by": [],
        "reason": "the type changes from OS::Heat::None to OS::Heat::TestResource"}
    # Metadata alone: an update in place with no property changed, as Heat's.
    assert _entry(detail, "goes") == {"resource_name": "goes",
                                      "resource_type": "OS::Heat::None",
                                      "change": "updated", "metadata_changed": True}


PARENT = """
heat_template_version: 2021-04-16
parameters:
  token: {type: string, hidden: true, default: tok-first}
resources:
  child:
    type: child.yaml
    properties: {token: {get_param: token}, size: 1}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::TestResource
        properties: {value: {get_param: token}}
"""
CHILD = """
heat_template_version: 2021-04-16
parameters:
  token: {type: string}
  size: {type: number}
resources:
  keyed:
    type: OS::Heat::TestResource
    properties: {value: {get_param: token}}
  sized:
    type: OS::Heat::RandomString
    properties: {length: {get_param: size}}
"""


def test_nested_stacks_and_group_members_appear_under_their_resource(hc: Any) -> None:
    files = {"child.yaml": CHILD}
    stack = _created(hc, PARENT, files)
    after = PARENT.replace("tok-first", "tok-second").replace("size: 1", "size: 2")
    after = after.replace("count: 2", "count: 3")
    changes, detail = _plan(hc, stack, after, files)
    # Without show_nested, Heat's lists hold the top stack only; the detail goes down.
    assert sorted(r["resource_name"] for r in changes["updated"]) == ["child", "group"]
    assert sum(len(v) for v in changes.values()) == 2
    child = _entry(detail, "child")
    assert child["change"] == "updated"
    assert child["properties"] == [
        {"name": "size", "old": 1, "new": 2, "forces_replacement": False},
        {"name": "token", "old": "<hidden>", "new": "<hidden>", "forces_replacement": False}]
    keyed = _entry(child["nested"], "keyed")
    assert keyed["properties"] == [{"name": "value", "old": "<hidden>", "new": "<hidden>",
                                    "forces_replacement": False}]
    sized = _entry(child["nested"], "sized")
    assert sized["change"] == "replaced"
    assert sized["properties"] == [{"name": "length", "old": 1, "new": 2,
                                    "forces_replacement": True}]
    group = _entry(detail, "group")
    assert [(e["resource_name"], e["change"]) for e in group["nested"]] == [
        ("0", "updated"), ("1", "updated"), ("2", "added")]
    assert _entry(group["nested"], "0")["properties"] == [
        {"name": "value", "old": "<hidden>", "new": "<hidden>", "forces_replacement": False}]
    assert "tok-" not in json.dumps(detail)
    # With show_nested Heat's lists gain the nested resources; the detail is the same.
    nested_changes, nested_detail = _plan(hc, stack, after, files, show_nested=True)
    assert nested_detail == detail
    assert sorted((r["resource_name"], r.get("parent_resource"))
                  for r in nested_changes["updated"]) == [
        ("0", "group"), ("1", "group"), ("child", None), ("group", None), ("keyed", "child")]
    assert [r["resource_name"] for r in nested_changes["added"]] == ["2"]


def test_a_replaced_nested_stack_shows_its_old_and_new_resources(hc: Any) -> None:
    files = {"child.yaml": CHILD}
    stack = _created(hc, PARENT, files)
    after = PARENT.replace("type: child.yaml", "type: OS::Heat::None")
    _, detail = _plan(hc, stack, after, files)
    child = _entry(detail, "child")
    assert child["change"] == "replaced"
    assert child["replacement"]["reason"] == (
        "the type changes from child.yaml to OS::Heat::None")
    assert [(e["resource_name"], e["change"]) for e in child["nested"]] == [
        ("keyed", "deleted"), ("sized", "deleted")]


def test_a_failed_resource_is_replaced_because_it_failed(hc: Any) -> None:
    failing = """
heat_template_version: 2021-04-16
resources:
  broken:
    type: OS::Heat::TestResource
    properties: {value: x, fail: true}
"""
    created = hc.stacks.create(stack_name=next(_names), template=failing, files={})
    stack = wait_status(hc, created["stack"]["id"], timeout=60)
    assert stack.stack_status == "CREATE_FAILED", stack.stack_status_reason
    changes, detail = _plan(hc, f"{stack.stack_name}/{stack.id}",
                            failing.replace("fail: true", "fail: false"))
    assert [r["resource_name"] for r in changes["replaced"]] == ["broken"]
    assert detail == [{"resource_name": "broken", "resource_type": "OS::Heat::TestResource",
                       "change": "replaced",
                       "replacement": {"forced_by": [],
                                       "reason": "the resource is CREATE_FAILED"}}]
