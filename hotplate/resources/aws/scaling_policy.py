"""AWS::AutoScaling::ScalingPolicy: a signal to it resizes an AWS::AutoScaling::AutoScalingGroup.

``OS::Heat::ScalingPolicy`` (``scaling_policy.py``) under AWS's names:
``AutoScalingGroupName`` (the group's reference), ``ScalingAdjustment``,
``AdjustmentType`` (``ChangeInCapacity``, ``ExactCapacity``,
``PercentChangeInCapacity``), ``Cooldown`` and ``MinAdjustmentStep``. Its one
attribute is ``AlarmUrl``, the pre-signed heat-api-cfn URL an alarm POSTs to;
its reference is that URL once made (at create), as in Heat.
"""

from __future__ import annotations

import logging
from typing import Any

from hotplate.resources import scaling
from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, Range
from hotplate.resources.properties import Schema
from hotplate.resources.scaling_policy import PolicyKeys, ScalingPolicy
from hotplate.resources.signal_responder import signal_endpoints

__all__ = ["AWSScalingPolicy"]

LOG = logging.getLogger(__name__)

GROUP, ADJUSTMENT, ADJUSTMENT_TYPE = (
    "AutoScalingGroupName", "ScalingAdjustment", "AdjustmentType")
COOLDOWN, MIN_ADJUSTMENT_STEP, ALARM_URL = "Cooldown", "MinAdjustmentStep", "AlarmUrl"
CFN_PERCENT_CHANGE_IN_CAPACITY = "PercentChangeInCapacity"
SIGNED_URL_KEY = "ec2_signed_url"
"""Where the engine's signal endpoints keep the policy's pre-signed URL."""


class AWSScalingPolicy(ScalingPolicy):
    """A resource to manage scaling of an AWS::AutoScaling::AutoScalingGroup."""

    heat_class_name = "AWSScalingPolicy"
    keys = PolicyKeys(GROUP, ADJUSTMENT, ADJUSTMENT_TYPE, COOLDOWN, MIN_ADJUSTMENT_STEP,
                      CFN_PERCENT_CHANGE_IN_CAPACITY)
    properties_schema = {
        GROUP: Schema(Schema.STRING, "AutoScaling group name to apply policy to.",
                      required=True),
        ADJUSTMENT: Schema(Schema.INTEGER, "Size of adjustment.", required=True,
                           update_allowed=True),
        ADJUSTMENT_TYPE: Schema(Schema.STRING, "Type of adjustment (absolute or percentage).",
                                required=True,
                                constraints=[AllowedValues((
                                    scaling.CFN_CHANGE_IN_CAPACITY, scaling.CFN_EXACT_CAPACITY,
                                    CFN_PERCENT_CHANGE_IN_CAPACITY))],
                                update_allowed=True),
        COOLDOWN: Schema(Schema.INTEGER, "Cooldown period, in seconds.", update_allowed=True),
        MIN_ADJUSTMENT_STEP: Schema(
            Schema.INTEGER, "Minimum number of resources that are added or removed when the "
            "AutoScaling group scales up or down. This can be used only when specifying "
            "PercentChangeInCapacity for the AdjustmentType property.",
            constraints=[Range(min=0)], update_allowed=True),
    }
    attributes_schema = {
        ALARM_URL: Attribute("A signed url to handle the alarm. (Heat extension).",
                             Attribute.STRING),
    }

    def handle_create(self) -> None:
        """Make the stack user and its pre-signed URL, which is the policy's reference."""
        try:
            signal_endpoints(self).cfn_signal_url("signal")
        except RuntimeError:  # a context without signal endpoints (previews)
            LOG.debug("no signal endpoints for %s", self.name)

    def get_reference_id(self) -> str:
        url = self.data().get(SIGNED_URL_KEY)
        return str(url) if url else self.name

    def _resolve_attribute(self, name: str) -> Any:
        if name != ALARM_URL:
            return None
        try:
            return signal_endpoints(self).cfn_signal_url("signal")
        except RuntimeError:  # a context without signal endpoints (previews)
            return None
