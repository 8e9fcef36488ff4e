"""OS::Heat::ResourceGroup and OS::Heat::ResourceChain through python-heatclient.

Each case is one Heat's functional tests exercise (heat_integrationtests/
functional/test_resource_group.py, test_resource_chain.py), checked the way
they check it: the members of the group's nested stack, physical ids kept
or renewed, outputs over the members, and the 400 a bad member gives.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from heatclient import exc

from tests.api.helpers import create_complete, output_values, update_complete

GROUP = """
heat_template_version: 2013-05-23
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 0
      resource_def:
        type: My::RandomString
        properties:
          length: 30
          salt: initial
outputs:
  random1:
    value: {get_attr: [random_group, resource.0.value]}
  random2:
    value: {get_attr: [random_group, resource.1.value]}
  all_values:
    value: {get_attr: [random_group, value]}
  refs:
    value: {get_attr: [random_group, refs]}
"""
RANDOM_ENV = {"resource_registry": {"My::RandomString": "OS::Heat::RandomString"}}

ROLLING = """
heat_template_version: '2015-04-30'
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    update_policy:
      rolling_update:
        min_in_service: 1
        max_batch_size: 2
        pause_time: 0
    properties:
      count: 10
      resource_def:
        type: OS::Heat::TestResource
        properties:
          value: initial
          update_replace: False
"""

def _create(hc: Any, template: Any, **kwargs: Any) -> str:
    return create_complete(hc, template, **kwargs)


def _update(hc: Any, stack_id: str, template: Any, **kwargs: Any) -> Any:
    return update_complete(hc, stack_id, template, **kwargs)


def _output(stack: Any, key: str) -> Any:
    return output_values(stack)[key]


def _members(hc: Any, stack_id: str, name: str = "random_group") -> dict[str, Any]:
    child = hc.resources.get(stack_id, name).physical_resource_id
    return {r.resource_name: r for r in hc.resources.list(child)}


def test_group_members_and_their_attributes(hc: Any) -> None:
    stack_id = _create(hc, GROUP.replace("count: 0", "count: 2"), environment=RANDOM_ENV)
    members = _members(hc, stack_id)
    assert {n: r.resource_type for n, r in members.items()} == {
        "0": "My::RandomString", "1": "My::RandomString"}
    stack = hc.stacks.get(stack_id)
    first, second = _output(stack, "random1"), _output(stack, "random2")
    assert len(first) == 30 and len(second) == 30 and first != second
    assert _output(stack, "all_values") == [first, second]
    assert _output(stack, "refs") == [first, second]  # a RandomString's reference is its value


def test_count_up_and_down_keeps_the_first_members(hc: Any) -> None:
    stack_id = _create(hc, GROUP.replace("count: 0", "count: 2"), environment=RANDOM_ENV)
    before = _output(hc.stacks.get(stack_id), "random1")
    _update(hc, stack_id, GROUP.replace("count: 0", "count: 5"), environment=RANDOM_ENV)
    assert sorted(_members(hc, stack_id)) == ["0", "1", "2", "3", "4"]
    stack = _update(hc, stack_id, GROUP.replace("count: 0", "count: 3"),
                    environment=RANDOM_ENV)
    assert sorted(_members(hc, stack_id)) == ["0", "1", "2"]
    assert _output(stack, "random1") == before
    assert len(_output(stack, "all_values")) == 3


def test_removal_policies_never_reuse_a_name(hc: Any) -> None:
    template = """
heat_template_version: 2014-10-16
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 5
      removal_policies: []
      resource_def:
        type: OS::Heat::RandomString
outputs:
  removed:
    value: {get_attr: [random_group, removed_rsrc_list]}
"""
    stack_id = _create(hc, template)
    stack = _update(hc, stack_id, template.replace(
        "removal_policies: []", "removal_policies: [{resource_list: ['1', '2', '3']}]"))
    assert sorted(_members(hc, stack_id), key=int) == ["0", "4", "5", "6", "7"]
    assert _output(stack, "removed") == ["1", "2", "3"]


def test_a_changed_member_property_replaces_the_member_not_the_group(hc: Any) -> None:
    stack_id = _create(hc, GROUP.replace("count: 0", "count: 1"), environment=RANDOM_ENV)
    child = hc.resources.get(stack_id, "random_group").physical_resource_id
    before = _members(hc, stack_id)["0"].physical_resource_id
    _update(hc, stack_id, GROUP.replace("count: 0", "count: 1").replace(
        "salt: initial", "salt: more"), environment=RANDOM_ENV)
    assert hc.resources.get(stack_id, "random_group").physical_resource_id == child
    assert _members(hc, stack_id)["0"].physical_resource_id != before


def test_a_changed_provider_template_reaches_the_members(hc: Any) -> None:
    provider = """
heat_template_version: 2013-05-23
parameters:
  length: {type: string, default: not-used}
  salt: {type: string, default: not-used}
resources:
  random1:
    type: OS::Heat::RandomString
    properties:
      salt: initial
outputs:
  value:
    value: {get_attr: [random1, value]}
"""
    env = {"resource_registry": {"My::RandomString": "my_random.yaml"}}
    template = GROUP.replace("count: 0", "count: 2")
    stack_id = _create(hc, template, environment=env, files={"my_random.yaml": provider})
    before = _output(hc.stacks.get(stack_id), "random1")
    stack = _update(hc, stack_id, template, environment=env,
                    files={"my_random.yaml": provider.replace("salt: initial", "salt: more")})
    after = _output(stack, "random1")
    assert after and after != before


def test_count_zero_does_not_validate_members_but_more_does(hc: Any) -> None:
    provider = """
heat_template_version: 2013-05-23
parameters:
  length: {type: string, default: 50}
  salt: {type: string, default: initial}
resources:
  random:
    type: OS::Heat::RandomString
    properties:
      length: BAD
"""
    files = {"provider.yaml": provider}
    env = {"resource_registry": {"My::RandomString": "provider.yaml"}}
    stack_id = _create(hc, GROUP, files=files, environment=env)
    assert _members(hc, stack_id) == {}
    expected = ("resources.random_group<nested_stack>.resources.0<provider.yaml>"
                ".resources.random: : Value 'BAD' is not an integer")
    two = GROUP.replace("count: 0", "count: 2")
    with pytest.raises(exc.HTTPBadRequest) as raised:
        hc.stacks.update(stack_id, template=two, files=files, environment=env)
    assert expected in str(raised.value)
    with pytest.raises(exc.HTTPBadRequest) as raised:
        hc.stacks.create(stack_name="group-bad", template=two, files=files,
                         environment=env)
    assert expected in str(raised.value)


def _rolling(hc: Any, changes: dict[str, Any]) -> tuple[int, int, int]:
    """(kept, created, deleted) physical ids of the group across a rolling update."""
    stack_id = _create(hc, ROLLING)
    before = {r.physical_resource_id for r in _members(hc, stack_id).values()}
    updated = yaml.safe_load(ROLLING)
    group = updated["resources"]["random_group"]
    group["update_policy"]["rolling_update"].update(changes.get("policy", {}))
    group["properties"].update(changes.get("properties", {}))
    group["properties"]["resource_def"]["properties"].update(changes.get("member", {}))
    _update(hc, stack_id, copy.deepcopy(updated))
    after = {r.physical_resource_id for r in _members(hc, stack_id).values()}
    return len(before & after), len(after - before), len(before - after)


@pytest.mark.parametrize(("changes", "expected"), [
    ({"policy": {"max_batch_size": 3}, "member": {"value": "updated"}}, (10, 0, 0)),
    ({"policy": {"max_batch_size": 3}, "member": {"value": "updated",
                                                  "update_replace": True}}, (0, 10, 10)),
    ({"policy": {"max_batch_size": 3}, "properties": {"count": 6},
      "member": {"value": "updated"}}, (6, 0, 4)),
    ({"policy": {"max_batch_size": 3}, "properties": {"count": 12},
      "member": {"value": "updated"}}, (10, 2, 0)),
    ({"policy": {"min_in_service": 8, "max_batch_size": 4}, "properties": {"count": 6},
      "member": {"value": "updated"}}, (6, 0, 4)),
], ids=["in-place", "replace", "scale-down", "scale-up", "adjusted"])
def test_rolling_update_keeps_and_renews_members_as_heat(
        hc: Any, changes: dict[str, Any], expected: tuple[int, int, int]) -> None:
    assert _rolling(hc, changes) == expected


def test_batch_create_builds_the_group_in_batches(hc: Any) -> None:
    template = """
heat_template_version: rocky
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    update_policy:
      batch_create: {max_batch_size: 2, pause_time: 0}
    properties:
      count: 3
      resource_def:
        type: OS::Heat::Value
        properties: {value: '%index%'}
outputs:
  values:
    value: {get_attr: [random_group, value]}
"""
    stack_id = _create(hc, template)
    assert _output(hc.stacks.get(stack_id), "values") == ["0", "1", "2"]
    child = hc.resources.get(stack_id, "random_group").physical_resource_id
    assert hc.stacks.get(child).stack_status == "UPDATE_COMPLETE"  # created, then grown


CHAIN = """
heat_template_version: 2016-04-08
parameters:
  string-length:
    type: number
resources:
  my-chain:
    type: OS::Heat::ResourceChain
    properties:
      resources: ['OS::Heat::RandomString', 'OS::Heat::RandomString']
      resource_properties:
        length: { get_param: string-length }
outputs:
  resource-ids:
    value: { get_attr: [my-chain, refs] }
  resource-0-value:
    value: { get_attr: [my-chain, resource.0, value] }
  all-resource-attrs:
    value: { get_attr: [my-chain, attributes, value] }
"""


def test_chain_members_in_order_with_their_attributes(hc: Any) -> None:
    stack_id = _create(hc, CHAIN, parameters={"string-length": 8})
    members = _members(hc, stack_id, "my-chain")
    assert {n: r.resource_type for n, r in members.items()} == {
        "0": "OS::Heat::RandomString", "1": "OS::Heat::RandomString"}
    assert members["1"].required_by == [] and members["0"].required_by == ["1"]
    stack = hc.stacks.get(stack_id)
    assert len(_output(stack, "resource-ids")) == 2
    first = _output(stack, "resource-0-value")
    assert len(first) == 8
    attrs = _output(stack, "all-resource-attrs")
    assert set(attrs) == {"0", "1"} and attrs["0"] == first and len(attrs["1"]) == 8


def test_chain_update_changes_its_members(hc: Any) -> None:
    stack_id = _create(hc, CHAIN, parameters={"string-length": 8})
    _update(hc, stack_id, CHAIN.replace(
        "resources: ['OS::Heat::RandomString', 'OS::Heat::RandomString']",
        "resources: ['OS::Heat::None']").split("outputs:")[0],
        parameters={"string-length": 8})
    assert {n: r.resource_type for n, r in _members(hc, stack_id, "my-chain").items()} == {
        "0": "OS::Heat::None"}


def test_a_patch_keeps_the_registry_its_members_need(hc: Any) -> None:
    template = """
heat_template_version: 2015-04-30
parameters:
  count: {type: number, default: 2}
resources:
  test_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: My::TestResource
"""
    provider = """
heat_template_version: 2015-04-30
resources:
  test1:
    type: OS::Heat::TestResource
    properties: {value: from-provider}
"""
    env = {"resource_registry": {"My::TestResource": "provider.template"}}
    stack_id = _create(hc, template, environment=env, files={"provider.template": provider})
    child = hc.resources.get(stack_id, "test_group").physical_resource_id
    _update(hc, stack_id, None, parameters={"count": 3}, existing=True)
    assert hc.resources.get(stack_id, "test_group").physical_resource_id == child
    assert {n: r.resource_type for n, r in _members(hc, stack_id, "test_group").items()} == {
        "0": "My::TestResource", "1": "My::TestResource", "2": "My::TestResource"}
    assert hc.stacks.get(child).stack_status == "UPDATE_COMPLETE"


def test_rolling_update_to_a_moved_provider_template(hc: Any) -> None:
    provider = """
heat_template_version: "2013-05-23"
resources:
  oops:
    type: OS::Heat::TestResource
"""
    template = yaml.safe_load(ROLLING)
    group = template["resources"]["random_group"]
    group["properties"]["resource_def"] = {"type": "/opt/provider.yaml"}
    group["update_policy"]["rolling_update"].update({"min_in_service": 1, "max_batch_size": 3})
    stack_id = _create(hc, copy.deepcopy(template), files={"/opt/provider.yaml": provider})
    group["properties"]["resource_def"] = {"type": "/opt1/provider.yaml"}
    _update(hc, stack_id, template, files={"/opt1/provider.yaml": provider})
    assert {r.resource_type for r in _members(hc, stack_id).values()} == {"/opt1/provider.yaml"}
