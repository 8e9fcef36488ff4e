"""OS::Heat::InstanceGroup and the AWS autoscaling family through python-heatclient.

The cases of Heat's functional tests (heat_integrationtests/functional/
test_instance_group.py and test_autoscaling.py), checked as they check them,
with members mapped to a provider template (TestResource) so no cloud is
needed: sizes, replacement, a failing member failing the group, rolling
updates under ``RollingUpdate`` / ``AutoScalingRollingUpdate`` (which members
survive), suspend and resume, and an AWS policy's signal resizing the group
and refreshing the metadata that reads ``InstanceList``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from heatclient import exc

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.resources.aws.launch_config import IMAGE_ID, INSTANCE_TYPE, LaunchConfiguration
from hotplate.resources.registry import Registry
from hotplate.rpc.inprocess import InProcessTransport
from tests.api.conftest import Api, serving
from tests.api.helpers import create_complete, output_values, update_complete, wait_status


class OfflineLaunchConfiguration(LaunchConfiguration):
    """The launch configuration without its cloud constraints (glance.image, nova.flavor):
    this engine has no cloud to ask (tests/cloud/test_aws_types.py checks them)."""

    properties_schema = {
        **LaunchConfiguration.properties_schema,
        **{key: dataclasses.replace(LaunchConfiguration.properties_schema[key], constraints=())
           for key in (IMAGE_ID, INSTANCE_TYPE)},
    }


@pytest.fixture(scope="module")
def hc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    db = f"sqlite:///{tmp_path_factory.mktemp('groups') / 'hotplate.sqlite'}"
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=8)
    registry = Registry.with_extra(
        {"AWS::AutoScaling::LaunchConfiguration": OfflineLaunchConfiguration})
    engine = start_engine(open_store(db, clock), transport, clock=clock, work_slots=1,
                          registry=registry)
    with serving(engine, transport) as served:
        yield Api.client(served)

GROUP_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"size": {"Type": "String", "Default": "1"},
                   "AZ": {"Type": "String", "Default": "nova"},
                   "image": {"Type": "String", "Default": "an-image"},
                   "flavor": {"Type": "String", "Default": "a-flavor"},
                   "user_data": {"Type": "String", "Default": "jsconfig data"}},
    "Resources": {
        "JobServerGroup": {
            "Type": "OS::Heat::InstanceGroup",
            "Properties": {"LaunchConfigurationName": {"Ref": "JobServerConfig"},
                           "Size": {"Ref": "size"},
                           "AvailabilityZones": [{"Ref": "AZ"}]}},
        "JobServerConfig": {
            "Type": "AWS::AutoScaling::LaunchConfiguration",
            "Metadata": {"foo": "bar"},
            "Properties": {"ImageId": {"Ref": "image"}, "InstanceType": {"Ref": "flavor"},
                           "SecurityGroups": ["sg-1"], "UserData": {"Ref": "user_data"}}},
    },
    "Outputs": {"InstanceList": {"Value": {"Fn::GetAtt": ["JobServerGroup", "InstanceList"]}},
                "JobServerConfigRef": {"Value": {"Ref": "JobServerConfig"}}},
}

INSTANCE = """
heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list, default: "x,y"}
resources:
  random1:
    type: OS::Heat::TestResource
    properties:
      fail: %s
outputs:
  PublicIp: {value: {get_attr: [random1, output]}}
  AvailabilityZone: {value: 'not-used11'}
  PrivateDnsName: {value: 'not-used12'}
  PublicDnsName: {value: 'not-used13'}
  PrivateIp: {value: 'not-used14'}
"""
GOOD, BAD = INSTANCE % "false", INSTANCE % "true"

LB = """
heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list, default: "x,y"}
outputs:
  PublicIp: {value: "not-used"}
  AvailabilityZone: {value: 'not-used1'}
  PrivateDnsName: {value: 'not-used2'}
  PublicDnsName: {value: 'not-used3'}
  PrivateIp: {value: 'not-used4'}
"""


def _aws_group(template: dict[str, Any], **group: Any) -> dict[str, Any]:
    """The template with an AWS::AutoScaling::AutoScalingGroup instead of the group."""
    changed = copy.deepcopy(template)
    props = changed["Resources"]["JobServerGroup"]["Properties"]
    props.pop("Size")
    props.update({"MinSize": {"Ref": "size"}, "MaxSize": "20", **group})
    changed["Resources"]["JobServerGroup"]["Type"] = "AWS::AutoScaling::AutoScalingGroup"
    return changed


def _env(size: int, member: str = "provider.yaml", **params: Any) -> dict[str, Any]:
    return {"resource_registry": {"AWS::EC2::Instance": member},
            "parameters": {"size": size, **params}}


def _count(hc: Any, stack_id: str) -> int:
    listed = output_values(hc.stacks.get(stack_id))["InstanceList"]
    return len(listed.split(","))


def _nested(hc: Any, stack_id: str) -> str:
    return str(hc.resources.get(stack_id, "JobServerGroup").physical_resource_id)


@pytest.mark.parametrize("aws", [False, True], ids=["instance_group", "autoscaling_group"])
def test_create_lists_instances_and_resizes(hc: Any, aws: bool) -> None:
    template = _aws_group(GROUP_TEMPLATE) if aws else GROUP_TEMPLATE
    files = {"provider.yaml": GOOD}
    stack_id = create_complete(hc, template, files=files, environment=_env(2))
    kinds = {r.resource_name: r.resource_type for r in hc.resources.list(stack_id)}
    assert kinds == {"JobServerConfig": "AWS::AutoScaling::LaunchConfiguration",
                     "JobServerGroup": ("AWS::AutoScaling::AutoScalingGroup" if aws
                                        else "OS::Heat::InstanceGroup")}
    assert _count(hc, stack_id) == 2
    members = list(hc.resources.list(_nested(hc, stack_id)))
    assert {m.resource_type for m in members} == {"OS::Heat::ScaledResource"}
    assert all(re.fullmatch(r"[a-z2-7]{12}", m.resource_name) for m in members)
    update_complete(hc, stack_id, template, files=files, environment=_env(5))
    assert _count(hc, stack_id) == 5


def test_member_gets_the_launch_configuration(hc: Any) -> None:
    """Properties set on the launch configuration, the group's tags, its metadata."""
    files = {"provider.yaml": GOOD}
    stack_id = create_complete(hc, GROUP_TEMPLATE, files=files, environment=_env(1))
    nested = _nested(hc, stack_id)
    template = hc.stacks.template(nested)
    assert template["HeatTemplateFormatVersion"] == "2012-12-12"
    (member,) = template["Resources"].values()
    assert member["Type"] == "OS::Heat::ScaledResource"
    assert member["Metadata"] == {"foo": "bar"}
    assert member["Properties"] == {
        "ImageId": "an-image", "InstanceType": "a-flavor", "SecurityGroups": ["sg-1"],
        "UserData": "jsconfig data",
        "Tags": [{"Key": "metering.groupname", "Value": "JobServerGroup"}]}


def test_non_updatable_change_replaces_the_group(hc: Any) -> None:
    files = {"provider.yaml": GOOD}
    stack_id = create_complete(hc, GROUP_TEMPLATE, files=files, environment=_env(1))
    before = _nested(hc, stack_id)
    update_complete(hc, stack_id, GROUP_TEMPLATE, files=files,
                    environment=_env(1, AZ="wibble", user_data="new data"))
    assert _nested(hc, stack_id) != before


@pytest.mark.parametrize("aws", [False, True], ids=["instance_group", "autoscaling_group"])
def test_failing_member_fails_the_group(hc: Any, aws: bool) -> None:
    template = _aws_group(GROUP_TEMPLATE) if aws else GROUP_TEMPLATE
    created = hc.stacks.create(stack_name=f"bad-group-{aws}", template=template,
                               files={"provider.yaml": BAD}, disable_rollback=True,
                               environment=_env(2))
    done = wait_status(hc, created["stack"]["id"])
    assert done.stack_status == "CREATE_FAILED"
    group = hc.resources.get(done.id, "JobServerGroup")
    assert group.resource_status == "CREATE_FAILED"
    assert re.fullmatch(r"ValueError: resources\.JobServerGroup\.resources\.[a-z2-7]{12}"
                        r"\.resources\.random1: Test Resource failed random1",
                        group.resource_status_reason)
    statuses = [m.resource_status for m in hc.resources.list(group.physical_resource_id)]
    assert "CREATE_FAILED" in statuses


def _rolling(template: dict[str, Any], key: str, in_service: str, batch: str,
             pause: str = "PT0S") -> dict[str, Any]:
    changed = copy.deepcopy(template)
    changed["Resources"]["JobServerGroup"]["UpdatePolicy"] = {key: {
        "MinInstancesInService": in_service, "MaxBatchSize": batch, "PauseTime": pause}}
    return changed


@pytest.mark.parametrize(("aws", "in_service", "batch", "kept"), [
    (False, "1", "3", 10), (False, "8", "4", 8), (False, "20", "1", 9),
    (True, "0", "20", 10), (True, "8", "4", 8),
])
def test_rolling_update_renews_members(hc: Any, aws: bool, in_service: str, batch: str,
                                       kept: int) -> None:
    """Heat's counts: members kept (renewed in place), created and removed (oldest)."""
    base = _aws_group(GROUP_TEMPLATE) if aws else GROUP_TEMPLATE
    key = "AutoScalingRollingUpdate" if aws else "RollingUpdate"
    template = _rolling(base, key, "1", "2", "PT1S")
    files = {"provider.yaml": GOOD}
    stack_id = create_complete(hc, template, name=f"roll-{aws}-{in_service}-{batch}",
                               files=files, environment=_env(10))
    stack = hc.stacks.get(stack_id)
    conf = output_values(stack)["JobServerConfigRef"]
    assert re.fullmatch(rf"{stack.stack_name}-JobServerConfig-[a-zA-Z0-9]+", conf)
    nested = _nested(hc, stack_id)
    before = [m.resource_name for m in hc.resources.list(nested)]
    # Heat orders members by creation time to the second, then by name: members the
    # update makes within the same second as the first ones could pass for older.
    time.sleep(1.1)
    updated = _rolling(base, key, in_service, batch)
    updated["Resources"]["JobServerConfig"]["Properties"]["UserData"] = "new data"
    update_complete(hc, stack_id, updated, files=files, environment=_env(10), timeout=120)
    assert output_values(hc.stacks.get(stack_id))["JobServerConfigRef"] != conf
    after = list(hc.resources.list(nested))
    names = [m.resource_name for m in after]
    assert len(names) == 10
    assert {m.resource_status for m in after} == {"UPDATE_COMPLETE"}
    assert len(set(names) & set(before)) == kept
    assert len(set(before) - set(names)) == 10 - kept


SIGNAL_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"size": {"Type": "String", "Default": "1"}},
    "Resources": {
        "custom_lb": {"Type": "AWS::EC2::Instance",
                      "Properties": {"ImageId": "an-image", "InstanceType": "a-flavor",
                                     "UserData": "foo", "SecurityGroups": ["sg-1"],
                                     "Tags": []},
                      "Metadata": {"IPs": {"Fn::GetAtt": ["JobServerGroup", "InstanceList"]}}},
        "JobServerGroup": {"Type": "AWS::AutoScaling::AutoScalingGroup",
                           "Properties": {"AvailabilityZones": ["nova"],
                                          "LaunchConfigurationName": {"Ref": "JobServerConfig"},
                                          "DesiredCapacity": {"Ref": "size"},
                                          "MinSize": "0", "MaxSize": "20"}},
        "JobServerConfig": {"Type": "AWS::AutoScaling::LaunchConfiguration",
                            "Metadata": {"foo": "bar"},
                            "Properties": {"ImageId": "an-image", "InstanceType": "a-flavor",
                                           "SecurityGroups": ["sg-1"],
                                           "UserData": "jsconfig data"}},
        "ScaleUpPolicy": {"Type": "AWS::AutoScaling::ScalingPolicy",
                          "Properties": {"AdjustmentType": "ChangeInCapacity",
                                         "AutoScalingGroupName": {"Ref": "JobServerGroup"},
                                         "Cooldown": "0", "ScalingAdjustment": "1"}},
        "ScaleDownPolicy": {"Type": "AWS::AutoScaling::ScalingPolicy",
                            "Properties": {"AdjustmentType": "ChangeInCapacity",
                                           "AutoScalingGroupName": {"Ref": "JobServerGroup"},
                                           "Cooldown": "0", "ScalingAdjustment": "-2"}},
    },
    "Outputs": {"InstanceList": {"Value": {"Fn::GetAtt": ["JobServerGroup", "InstanceList"]}}},
}
SIGNAL_FILES = {"provider.yaml": GOOD, "lb.yaml": LB}
SIGNAL_ENV = {"resource_registry": {"resources": {"custom_lb": {"AWS::EC2::Instance": "lb.yaml"}},
                                    "AWS::EC2::Instance": "provider.yaml"},
              "parameters": {"size": 2}}


def _counted(hc: Any, stack_id: str, expected: int, timeout: float = 30.0) -> bool:
    """Heat's check_instance_count: the metadata reading InstanceList and the output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        metadata = hc.resources.metadata(stack_id, "custom_lb")
        if (len(metadata["IPs"].split(",")) == expected
                and _count(hc, stack_id) == expected):
            return True
        time.sleep(0.1)
    return False


def test_policy_signal_resizes_and_refreshes_metadata(hc: Any) -> None:
    stack_id = create_complete(hc, json.dumps(SIGNAL_TEMPLATE), files=SIGNAL_FILES,
                               environment=SIGNAL_ENV)
    assert _counted(hc, stack_id, 2)
    hc.resources.signal(stack_id, "ScaleUpPolicy")
    assert _counted(hc, stack_id, 3)
    hc.resources.signal(stack_id, "ScaleDownPolicy")
    assert _counted(hc, stack_id, 1)
    policy = hc.resources.get(stack_id, "ScaleUpPolicy")
    assert "/v1/signal/" in policy.attributes["AlarmUrl"]


def test_signal_during_suspend_is_refused(hc: Any) -> None:
    stack_id = create_complete(hc, json.dumps(SIGNAL_TEMPLATE), files=SIGNAL_FILES,
                               environment=SIGNAL_ENV)
    hc.actions.suspend(stack_id)
    assert wait_status(hc, stack_id).stack_status == "SUSPEND_COMPLETE"
    members = hc.resources.list(_nested(hc, stack_id))
    assert {m.resource_status for m in members} == {"SUSPEND_COMPLETE"}
    with pytest.raises(exc.BadRequest, match="Signal resource during SUSPEND is not supported"):
        hc.resources.signal(stack_id, "ScaleUpPolicy")
    hc.actions.resume(stack_id)
    assert wait_status(hc, stack_id).stack_status == "RESUME_COMPLETE"
    assert _counted(hc, stack_id, 2)
