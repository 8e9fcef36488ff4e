"""OS::Heat::AutoScalingGroup and OS::Heat::ScalingPolicy through python-heatclient.

The cases of Heat's functional tests (heat_integrationtests/functional/
test_heat_autoscaling.py), checked as they check them: a policy's signal
resizes the group's nested stack within its bounds, a signal in cooldown
changes nothing, path attributes read the members by position, and an
update that changes no member keeps them. Also what Heat keeps in the
group's metadata and the events a signal writes.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from heatclient import exc

from tests.api.conftest import Api
from tests.api.helpers import create_complete, output_values, wait_status

TEMPLATE = """
heat_template_version: 2014-10-16
resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      desired_capacity: 3
      max_size: 5
      min_size: 2
      resource:
        type: OS::Heat::RandomString
  scale_up_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: random_group }
      scaling_adjustment: 1
  scale_down_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: random_group }
      scaling_adjustment: -1
outputs:
  all_values:
    value: {get_attr: [random_group, outputs_list, value]}
  value_0:
    value: {get_attr: [random_group, resource.0.value]}
  value_1:
    value: {get_attr: [random_group, resource.1.value]}
  value_2:
    value: {get_attr: [random_group, resource.2.value]}
  asg_size:
    value: {get_attr: [random_group, current_size]}
"""

NESTED = """
heat_template_version: 2014-10-16
resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 3
      max_size: 5
      min_size: 2
      resource:
        type: randomstr.yaml
outputs:
  all_values:
    value: {get_attr: [random_group, outputs_list, random_str]}
  value_0:
    value: {get_attr: [random_group, resource.0.random_str]}
  value_1:
    value: {get_attr: [random_group, resource.1.random_str]}
  value_2:
    value: {get_attr: [random_group, resource.2.random_str]}
"""

RANDOMSTR = """
heat_template_version: 2013-05-23
resources:
  random_str:
    type: OS::Heat::RandomString
outputs:
  random_str:
    value: {get_attr: [random_str, value]}
"""

NO_CHANGES = """
heat_template_version: 2013-05-23
resources:
  test_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 0
      max_size: 0
      min_size: 0
      resource:
        type: OS::Heat::RandomString
  test_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: test_group }
      scaling_adjustment: 1
"""

def _create(hc: Any, template: str, **kwargs: Any) -> str:
    return create_complete(hc, template, **kwargs)


def _output(hc: Any, stack_id: str, key: str) -> Any:
    return output_values(hc.stacks.get(stack_id))[key]


def _members(hc: Any, stack_id: str, group: str = "random_group") -> list[Any]:
    return list(hc.resources.list(hc.resources.get(stack_id, group).physical_resource_id))


def _scaled(hc: Any, stack_id: str, expected: int, group: str = "random_group") -> bool:
    """Heat's check_autoscale_complete: the right number of members, all complete, and
    the group no longer scaling."""
    members = _members(hc, stack_id, group)
    if len(members) != expected or any(
            m.resource_status not in ("CREATE_COMPLETE", "UPDATE_COMPLETE") for m in members):
        return False
    return not hc.resources.metadata(stack_id, group).get("scaling_in_progress")


def _wait_scaled(hc: Any, stack_id: str, expected: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not _scaled(hc, stack_id, expected):
        assert time.monotonic() < deadline, f"group never reached {expected} members"
        time.sleep(0.05)


def test_scale_up_stops_at_max_size(hc: Any) -> None:
    stack_id = _create(hc, TEMPLATE)
    assert _output(hc, stack_id, "asg_size") == 3
    for expected in (4, 5, 5):
        hc.resources.signal(stack_id, "scale_up_policy")
        _wait_scaled(hc, stack_id, expected)
    assert _output(hc, stack_id, "asg_size") == 5
    assert len(_output(hc, stack_id, "all_values")) == 5


def test_scale_down_stops_at_min_size_dropping_the_oldest(hc: Any) -> None:
    stack_id = _create(hc, TEMPLATE)
    hc.resources.signal(stack_id, "scale_up_policy")
    _wait_scaled(hc, stack_id, 4)
    values = _output(hc, stack_id, "all_values")
    for expected in (3, 2, 2):
        hc.resources.signal(stack_id, "scale_down_policy")
        _wait_scaled(hc, stack_id, expected)
    assert _output(hc, stack_id, "all_values") == values[-2:]


def test_a_signal_in_cooldown_changes_nothing(hc: Any) -> None:
    stack_id = _create(hc, TEMPLATE.replace("cooldown: 0", "cooldown: 60"))
    group = hc.resources.get(stack_id, "random_group")
    before = {m.resource_name for m in _members(hc, stack_id)}
    metadata = hc.resources.metadata(stack_id, "random_group")
    assert list(metadata["cooldown_end"].values()) == ["ExactCapacity : 3"]
    assert metadata["scaling_in_progress"] is False

    hc.resources.signal(stack_id, "scale_up_policy")  # answered at once, ignored

    assert hc.resources.metadata(stack_id, "random_group") == metadata
    assert hc.stacks.get(group.physical_resource_id).stack_status == "CREATE_COMPLETE"
    assert {m.resource_name for m in _members(hc, stack_id)} == before
    assert not [e for e in hc.events.list(stack_id, resource_name="scale_up_policy")
                if e.resource_status_reason == "No signal details provided"]


def test_the_policy_cooldown_ignores_a_second_signal(hc: Any) -> None:
    template = TEMPLATE.replace("scaling_adjustment: 1",
                                "scaling_adjustment: 1\n      cooldown: 60")
    stack_id = _create(hc, template)
    hc.resources.signal(stack_id, "scale_up_policy")
    _wait_scaled(hc, stack_id, 4)
    metadata = hc.resources.metadata(stack_id, "random_group")
    assert list(metadata["cooldown_end"].values()) == ["change_in_capacity : 1"]
    hc.resources.signal(stack_id, "scale_up_policy")
    assert hc.resources.metadata(stack_id, "random_group") == metadata
    assert len(_members(hc, stack_id)) == 4
    signals = [e for e in hc.events.list(stack_id, resource_name="scale_up_policy")
               if e.resource_status_reason == "No signal details provided"]
    assert len(signals) == 1


def test_the_group_cooldown_runs_out(hc: Any) -> None:
    stack_id = _create(hc, TEMPLATE.replace("cooldown: 0", "cooldown: 2"))
    hc.resources.signal(stack_id, "scale_up_policy")  # within 2 s of the create: ignored
    assert len(_members(hc, stack_id)) == 3
    time.sleep(2.1)
    hc.resources.signal(stack_id, "scale_up_policy")
    _wait_scaled(hc, stack_id, 4)


def test_signals_at_once_scale_once(hc: Any, api: Api) -> None:
    template = TEMPLATE.replace("scaling_adjustment: 1",
                                "scaling_adjustment: 1\n      cooldown: 60")
    stack_id = _create(hc, template)
    clients = [api.client() for _ in range(4)]
    threads = [threading.Thread(target=c.resources.signal, args=(stack_id, "scale_up_policy"))
               for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _wait_scaled(hc, stack_id, 4)
    time.sleep(0.3)
    assert len(_members(hc, stack_id)) == 4


def test_path_attributes_read_members_by_position(hc: Any) -> None:
    stack_id = _create(hc, TEMPLATE)
    assert {r.resource_name: r.resource_type for r in hc.resources.list(stack_id)} == {
        "random_group": "OS::Heat::AutoScalingGroup",
        "scale_up_policy": "OS::Heat::ScalingPolicy",
        "scale_down_policy": "OS::Heat::ScalingPolicy"}
    _assert_values(hc, stack_id)
    names = {m.resource_name for m in _members(hc, stack_id)}
    assert len(names) == 3 and all(len(n) == 12 and n.isalnum() for n in names)


def test_path_attributes_of_template_members(hc: Any) -> None:
    stack_id = _create(hc, NESTED, files={"randomstr.yaml": RANDOMSTR})
    assert {r.resource_name: r.resource_type for r in hc.resources.list(stack_id)} == {
        "random_group": "OS::Heat::AutoScalingGroup"}
    _assert_values(hc, stack_id)


def _assert_values(hc: Any, stack_id: str) -> None:
    values = _output(hc, stack_id, "all_values")
    assert len(values) == 3 and all(values)
    assert [_output(hc, stack_id, f"value_{i}") for i in range(3)] == values


def test_update_without_member_changes_keeps_the_members(hc: Any) -> None:
    stack_id = _create(hc, NO_CHANGES)
    hc.stacks.update(stack_id, template=NO_CHANGES.replace("scaling_adjustment: 1",
                                                           "scaling_adjustment: 2"))
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason

    stack_id = _create(hc, TEMPLATE)
    before = {m.resource_name: m.physical_resource_id for m in _members(hc, stack_id)}
    hc.stacks.update(stack_id, template=TEMPLATE.replace("scaling_adjustment: -1",
                                                         "scaling_adjustment: -2"))
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason
    assert {m.resource_name: m.physical_resource_id for m in _members(hc, stack_id)} == before


@pytest.mark.parametrize(("sizes", "message"), [
    ("min_size: 3\n      max_size: 2", "MinSize can not be greater than MaxSize"),
    ("min_size: 1\n      max_size: 2\n      desired_capacity: 3",
     "DesiredCapacity must be between MinSize and MaxSize"),
])
def test_sizes_are_validated_as_heat(hc: Any, sizes: str, message: str) -> None:
    template = f"""
heat_template_version: 2015-04-30
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      {sizes}
      resource: {{type: OS::Heat::RandomString}}
"""
    with pytest.raises(exc.HTTPBadRequest) as caught:
        hc.stacks.create(stack_name="asg-invalid", template=template)
    assert message in str(caught.value)


SLOW = """
heat_template_version: 2015-04-30
resources:
  random_group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      desired_capacity: 0
      max_size: 3
      min_size: 0
      resource:
        type: OS::Heat::TestResource
        properties:
          action_wait_secs: {create: 1}
          fail: false
  scale_up_policy:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: { get_resource: random_group }
      scaling_adjustment: 1
"""


def test_a_signal_while_scaling_is_ignored(hc: Any) -> None:
    stack_id = _create(hc, SLOW.replace("{create: 1}", "{create: 3}"))
    hc.resources.signal(stack_id, "scale_up_policy")
    # The signal's handler runs after the answer: wait for it to mark the group scaling.
    deadline = time.monotonic() + 10
    while not hc.resources.metadata(stack_id, "random_group").get("scaling_in_progress"):
        assert time.monotonic() < deadline, "the group never started scaling"
        time.sleep(0.05)
    hc.resources.signal(stack_id, "scale_up_policy")  # the group is scaling: ignored
    _wait_scaled(hc, stack_id, 1)
    time.sleep(0.3)
    assert len(_members(hc, stack_id)) == 1
    signals = [e for e in hc.events.list(stack_id, resource_name="scale_up_policy")
               if e.resource_status_reason == "No signal details provided"]
    assert len(signals) == 1


def test_a_failed_resize_ends_the_scaling_without_a_cooldown(hc: Any) -> None:
    stack_id = _create(hc, SLOW.replace("fail: false", "fail: true"))
    before = hc.resources.metadata(stack_id, "random_group")["cooldown_end"]
    hc.resources.signal(stack_id, "scale_up_policy")
    child = hc.resources.get(stack_id, "random_group").physical_resource_id
    # The signal's handler runs after the answer: until it starts the resize, the group's
    # stack still reads CREATE_COMPLETE.
    deadline = time.monotonic() + 30
    while (status := hc.stacks.get(child).stack_status) in ("CREATE_COMPLETE",) \
            or status.endswith("_IN_PROGRESS"):
        assert time.monotonic() < deadline, f"the resize never ended: {status}"
        time.sleep(0.05)
    assert status == "UPDATE_FAILED"
    deadline = time.monotonic() + 10
    while hc.resources.metadata(stack_id, "random_group")["scaling_in_progress"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert hc.resources.metadata(stack_id, "random_group")["cooldown_end"] == before
    assert not [e for e in hc.events.list(stack_id, resource_name="scale_up_policy")
                if e.resource_status_reason == "No signal details provided"]


def test_a_changed_member_definition_rolls_through_the_members(hc: Any) -> None:
    template = TEMPLATE.replace("type: OS::Heat::RandomString",
                                "type: OS::Heat::RandomString\n        properties: "
                                "{length: 10}")
    stack_id = _create(hc, template)
    names = sorted(m.resource_name for m in _members(hc, stack_id))
    hc.stacks.update(stack_id, template=template.replace("length: 10", "length: 12"))
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason
    assert sorted(m.resource_name for m in _members(hc, stack_id)) == names
    assert [len(v) for v in _output(hc, stack_id, "all_values")] == [12, 12, 12]


def test_marking_the_group_healthy_again_resets_an_unfinished_scaling(hc: Any) -> None:
    stack_id = _create(hc, SLOW)
    hc.resources.signal(stack_id, "scale_up_policy")
    hc.resources.mark_unhealthy(stack_id, "random_group", True, "stuck")
    assert hc.resources.metadata(stack_id, "random_group")["scaling_in_progress"] is True
    hc.resources.mark_unhealthy(stack_id, "random_group", False, "fine")
    assert hc.resources.metadata(stack_id, "random_group")["scaling_in_progress"] is False
    assert hc.resources.get(stack_id, "random_group").resource_status == "CHECK_COMPLETE"


def test_a_stack_update_keeps_the_cooldown(hc: Any) -> None:
    template = TEMPLATE.replace("scaling_adjustment: 1",
                                "scaling_adjustment: 1\n      cooldown: 60")
    stack_id = _create(hc, template)
    hc.resources.signal(stack_id, "scale_up_policy")
    _wait_scaled(hc, stack_id, 4)
    policy_metadata = hc.resources.metadata(stack_id, "scale_up_policy")
    hc.stacks.update(stack_id, template=template)
    assert wait_status(hc, stack_id, timeout=60).stack_status == "UPDATE_COMPLETE"
    assert hc.resources.metadata(stack_id, "scale_up_policy") == policy_metadata
    assert not hc.resources.metadata(stack_id, "random_group")["scaling_in_progress"]
    assert len(_members(hc, stack_id)) == 3  # an update resizes to desired_capacity, as Heat's
    hc.resources.signal(stack_id, "scale_up_policy")  # still in the policy's cooldown
    assert len(_members(hc, stack_id)) == 3
    assert hc.resources.metadata(stack_id, "scale_up_policy") == policy_metadata
