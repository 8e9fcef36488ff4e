"""AWS::AutoScaling::AutoScalingGroup: an instance group with bounds, a cooldown and policies.

An ``OS::Heat::InstanceGroup`` (``instance_group.py``: members from a launch
configuration, Heat's CFN child, ``InstanceList``) that is also a scaling
group (``scaling_group.py``): a create makes ``DesiredCapacity`` members
(else ``MinSize``), an update resizes to ``DesiredCapacity`` (else the
current size) within ``MinSize`` and ``MaxSize``, and an
``AWS::AutoScaling::ScalingPolicy``'s signal resizes it by ``adjust`` under
the cooldown. Its rolling-update policy is ``AutoScalingRollingUpdate``.

Members are tagged ``metering.AutoScalingGroupName`` too. With
``InstanceId`` instead of a launch configuration, members take that Nova
server's image, flavor, key pair and security groups (and no tags, as in
Heat); ``VPCZoneIdentifier`` (exactly one subnet) becomes their ``SubnetId``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import NotSupported, StackValidationFailed
from hotplate.resources.aws.launch_config import server_properties
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.instance_group import (
    LOAD_BALANCER_NAMES,
    SCALED_RESOURCE_TYPE,
    TAG_KEY,
    TAG_VALUE,
    TAGS,
    TAGS_SCHEMA,
    InstanceGroup,
)
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.scaling_group import ScalingGroup
from hotplate.resources.support import SupportStatus

__all__ = ["AutoScalingGroup"]

AVAILABILITY_ZONES, LAUNCH_CONFIGURATION_NAME = "AvailabilityZones", "LaunchConfigurationName"
MAX_SIZE, MIN_SIZE, COOLDOWN = "MaxSize", "MinSize", "Cooldown"
DESIRED_CAPACITY = "DesiredCapacity"
HEALTH_CHECK_GRACE_PERIOD, HEALTH_CHECK_TYPE = "HealthCheckGracePeriod", "HealthCheckType"
VPCZONE_IDENTIFIER, INSTANCE_ID, SUBNET_ID = "VPCZoneIdentifier", "InstanceId", "SubnetId"

_MIN_ABOVE_MAX = "MinSize can not be greater than MaxSize"
_NEGATIVE = "The size of AutoScalingGroup can not be less than zero"
_DESIRED_OUT = "DesiredCapacity must be between MinSize and MaxSize"
_ONE_OF = "Either 'InstanceId' or 'LaunchConfigurationName' must be provided."
_ONE_SUBNET = "Anything other than one VPCZoneIdentifier is not supported."


class AutoScalingGroup(ScalingGroup, InstanceGroup):
    """An AWS-compatible autoscaling group of instances."""

    rolling_update = "AutoScalingRollingUpdate"
    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        AVAILABILITY_ZONES: Schema(Schema.LIST, "Not Implemented.", required=True),
        LAUNCH_CONFIGURATION_NAME: Schema(Schema.STRING, "The reference to a "
                                          "LaunchConfiguration resource.",
                                          update_allowed=True),
        INSTANCE_ID: Schema(Schema.STRING, "The ID of an existing instance to use to create "
                            "the Auto Scaling group. If specify this property, will create "
                            "the group use an existing instance instead of a launch "
                            "configuration.", constraints=[CustomConstraint("nova.server")]),
        MAX_SIZE: Schema(Schema.INTEGER, "Maximum number of instances in the group.",
                         required=True, update_allowed=True),
        MIN_SIZE: Schema(Schema.INTEGER, "Minimum number of instances in the group.",
                         required=True, update_allowed=True),
        COOLDOWN: Schema(Schema.INTEGER, "Cooldown period, in seconds.", update_allowed=True),
        DESIRED_CAPACITY: Schema(Schema.INTEGER, "Desired initial number of instances.",
                                 update_allowed=True),
        HEALTH_CHECK_GRACE_PERIOD: Schema(Schema.INTEGER, "Not Implemented."),
        HEALTH_CHECK_TYPE: Schema(Schema.STRING, "Not Implemented.",
                                  constraints=[AllowedValues(("EC2", "ELB"))]),
        LOAD_BALANCER_NAMES: Schema(Schema.LIST, "List of LoadBalancer resources."),
        VPCZONE_IDENTIFIER: Schema(Schema.LIST, "Use only with Neutron, to list the internal "
                                   "subnet to which the instance will be attached; needed "
                                   "only if multiple exist; list length must be exactly 1.",
                                   schema=Schema(Schema.STRING, "UUID of the internal subnet "
                                                 "to which the instance will be attached.")),
        TAGS: TAGS_SCHEMA,
    }
    attributes_schema = InstanceGroup.attributes_schema

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """The properties, then Heat's checks of the sizes, the subnets and the source
        of the members."""
        props = super().validate(raw, path)
        low, high, desired = props[MIN_SIZE], props[MAX_SIZE], props[DESIRED_CAPACITY]
        if high < low:
            raise StackValidationFailed(_MIN_ABOVE_MAX)
        if low < 0:
            raise StackValidationFailed(_NEGATIVE)
        if desired is not None and not low <= desired <= high:
            raise StackValidationFailed(_DESIRED_OUT)
        if props[VPCZONE_IDENTIFIER] and len(props[VPCZONE_IDENTIFIER]) != 1:
            raise NotSupported(_ONE_SUBNET)
        if bool(props[INSTANCE_ID]) == bool(props[LAUNCH_CONFIGURATION_NAME]):
            raise StackValidationFailed(_ONE_OF)
        return props

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        for key in (HEALTH_CHECK_GRACE_PERIOD, HEALTH_CHECK_TYPE):
            if props.get(key) is not None:
                raise StackValidationFailed(f"Property {key} not implemented yet")

    # -- what the scaling group asks ------------------------------------------------
    def bounds(self) -> tuple[int, int]:
        return self.properties[MIN_SIZE], self.properties[MAX_SIZE]

    def desired(self) -> int | None:
        desired: int | None = self.properties[DESIRED_CAPACITY]
        return desired

    def cooldown(self) -> float | None:
        cooldown: float | None = self.properties[COOLDOWN]
        return cooldown

    # -- members ----------------------------------------------------------------------
    def new_definition(self) -> dict[str, Any]:
        instance = self.properties[INSTANCE_ID]
        if instance:
            definition: dict[str, Any] = {
                "Type": SCALED_RESOURCE_TYPE,
                "Properties": server_properties(self.cloud, str(instance))}
        else:
            definition = super().new_definition()
        subnets = self.properties[VPCZONE_IDENTIFIER]
        if subnets:
            definition["Properties"][SUBNET_ID] = subnets[0]
        return definition

    def _tags(self) -> list[dict[str, Any]]:
        """Tags that identify the group in every member's metering data (the name must
        be the group's reference, as cfn-push-stats reports it)."""
        return [*super()._tags(), {TAG_KEY: "metering.AutoScalingGroupName",
                                   TAG_VALUE: self.get_reference_id()}]
