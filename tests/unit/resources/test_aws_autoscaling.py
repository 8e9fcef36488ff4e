"""The AWS autoscaling family's own rules: the launch configuration's checks, the
rolling-update policy's values, the AWS group's sizes and member source."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hotplate.model.errors import NotSupported, StackValidationFailed, UpdateReplace
from hotplate.resources.aws.autoscaling_group import AutoScalingGroup
from hotplate.resources.aws.launch_config import LaunchConfiguration, without_unset
from hotplate.resources.aws.scaling_policy import AWSScalingPolicy
from hotplate.resources.instance_group import parse_duration, rolling_policy
from hotplate.resources.scaling_policy import ResourcePropertyValueDependency
from tests.unit.resources.fakes import make

PATH = ("resources", "x", "properties")


@pytest.mark.parametrize(("text", "seconds"), [
    ("PT0S", 0), ("PT1S", 1), ("PT2M", 120), ("PT1H2M3S", 3723), ("PT", 0)])
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["1", "P1D", "PT1.5S", "pt1s"])
def test_durations_of_other_forms_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Only ISO 8601 duration format of the form PT#H#M#S is supported.")):
        parse_duration(text)


def test_rolling_policy_defaults_and_strings() -> None:
    assert rolling_policy({}) == (0, 1, 0)
    assert rolling_policy({"MinInstancesInService": "8", "MaxBatchSize": "4",
                           "PauseTime": "PT1S"}) == (8, 4, 1)
    with pytest.raises(ValueError, match=re.escape("Maximum PauseTime is 1 hour.")):
        rolling_policy({"PauseTime": "PT1H1S"})


def test_launch_configuration_needs_an_image_and_a_type_or_an_instance() -> None:
    for raw in ({}, {"ImageId": "i"}, {"InstanceType": "t"}):
        with pytest.raises(StackValidationFailed,
                           match=re.escape("If without InstanceId, ImageId and InstanceType "
                                           "are required.")):
            LaunchConfiguration.validate(raw, PATH)
    LaunchConfiguration.validate({"InstanceId": "server"}, PATH)


@pytest.mark.parametrize(("mapping", "error"), [
    ({"DeviceName": "vdb"}, "Ebs is missing, this is required when specifying "
                            "BlockDeviceMappings."),
    ({"DeviceName": "vdb", "Ebs": {"VolumeSize": "1"}},
     "SnapshotId is missing, this is required when specifying BlockDeviceMappings."),
    ({"DeviceName": "vdb", "VirtualName": "ephemeral0", "Ebs": {"SnapshotId": "s"}},
     "Property VirtualName not implemented yet"),
])
def test_block_device_mappings_are_checked(mapping: dict[str, Any], error: str) -> None:
    raw = {"ImageId": "i", "InstanceType": "t", "BlockDeviceMappings": [mapping]}
    with pytest.raises(StackValidationFailed, match=re.escape(error)):
        LaunchConfiguration.validate(raw, PATH)


def test_launch_configuration_gives_members_what_is_set_and_is_replaced_on_change() -> None:
    conf = make(LaunchConfiguration, {"ImageId": "i", "InstanceType": "t",
                                      "SecurityGroups": ["sg"]}, name="conf")
    assert conf.member_properties() == {  # type: ignore[attr-defined]
        "ImageId": "i", "InstanceType": "t", "SecurityGroups": ["sg"]}
    assert conf.get_reference_id() == "teststack-conf-abcdefghijkl"
    with pytest.raises(UpdateReplace):
        conf.handle_update({}, {})


def test_without_unset_drops_none_at_every_depth() -> None:
    assert without_unset({"a": None, "b": [{"c": None, "d": 1}], "e": {"f": None}}) == {
        "b": [{"d": 1}], "e": {}}


GROUP = {"AvailabilityZones": ["nova"], "LaunchConfigurationName": "conf",
         "MinSize": 1, "MaxSize": 3}


@pytest.mark.parametrize(("changes", "error", "kind"), [
    ({"MinSize": 4}, "MinSize can not be greater than MaxSize", StackValidationFailed),
    ({"MinSize": -1}, "The size of AutoScalingGroup can not be less than zero",
     StackValidationFailed),
    ({"DesiredCapacity": 5}, "DesiredCapacity must be between MinSize and MaxSize",
     StackValidationFailed),
    ({"VPCZoneIdentifier": ["a", "b"]},
     "Anything other than one VPCZoneIdentifier is not supported.", NotSupported),
    ({"InstanceId": "server"},
     "Either 'InstanceId' or 'LaunchConfigurationName' must be provided.",
     StackValidationFailed),
    ({"LaunchConfigurationName": None},
     "Either 'InstanceId' or 'LaunchConfigurationName' must be provided.",
     StackValidationFailed),
    ({"HealthCheckType": "EC2"}, "Property HealthCheckType not implemented yet",
     StackValidationFailed),
])
def test_aws_group_checks(changes: dict[str, Any], error: str, kind: type[Exception]) -> None:
    with pytest.raises(kind, match=re.escape(error)):
        AutoScalingGroup.validate({**GROUP, **changes}, PATH)


def test_aws_policy_takes_a_minimum_step_only_for_a_percentage() -> None:
    raw = {"AutoScalingGroupName": "g", "ScalingAdjustment": 1,
           "AdjustmentType": "ChangeInCapacity", "MinAdjustmentStep": 1}
    with pytest.raises(ResourcePropertyValueDependency,
                       match=re.escape("MinAdjustmentStep property should only be specified "
                                       "for AdjustmentType with value "
                                       "PercentChangeInCapacity.")):
        AWSScalingPolicy.validate(raw, PATH)
    AWSScalingPolicy.validate({**raw, "AdjustmentType": "PercentChangeInCapacity"}, PATH)
