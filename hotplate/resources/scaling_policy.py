"""OS::Heat::ScalingPolicy: a signal to it resizes an OS::Heat::AutoScalingGroup.

The policy names its group by reference (``{get_resource: group}``); on a
signal it finds the group among its stack's resources and asks it to
``adjust`` by ``scaling_adjustment`` of ``adjustment_type``, under the
policy's ``cooldown`` if it has one, else the group's. The group decides
whether it may scale (``autoscaling_group.py``); an ignored signal writes
no event, as in Heat. The group's "scaling started" and the signal's
applied mark are one write (``scaling.SignalApplication``): one signal
resizes the group once, even when the engine re-drives it after a crash.

``alarm_url`` is a pre-signed heat-api-cfn URL (``/v1/signal/<arn>``, the
policy's own stack-user keys) and ``signal_url`` the policy's signal URL on
the API, both from the engine's signal endpoints; an alarm POSTs to either.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from hotplate.model.errors import StackValidationFailed
from hotplate.resources import scaling
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.constraints import AllowedValues, Range
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.signal_responder import signal_endpoints
from hotplate.resources.signals import SignalWork, peers
from hotplate.resources.support import SupportStatus

__all__ = ["PolicyKeys", "ResourcePropertyValueDependency", "ScalingGroupNotFound",
           "ScalingPolicy"]

LOG = logging.getLogger(__name__)

GROUP, ADJUSTMENT, ADJUSTMENT_TYPE = (
    "auto_scaling_group_id", "scaling_adjustment", "adjustment_type")
COOLDOWN, MIN_ADJUSTMENT_STEP = "cooldown", "min_adjustment_step"
ALARM_URL, SIGNAL_URL = "alarm_url", "signal_url"


class ResourcePropertyValueDependency(StackValidationFailed):
    """A property given that only another property's value allows; Heat's text."""

    def __init__(self, prop1: str, prop2: str, value: str) -> None:
        super().__init__(f"{prop1} property should only be specified for {prop2} "
                         f"with value {value}.")


class ScalingGroupNotFound(Exception):
    def __init__(self, alarm: str, group: str) -> None:
        super().__init__(f'Alarm {alarm} could not find scaling group named "{group}"')


@dataclass(frozen=True)
class PolicyKeys:
    """A policy's property names, which the AWS policy spells its own way."""

    group: str = GROUP
    adjustment: str = ADJUSTMENT
    adjustment_type: str = ADJUSTMENT_TYPE
    cooldown: str = COOLDOWN
    min_adjustment_step: str = MIN_ADJUSTMENT_STEP
    percent: str = scaling.PERCENT_CHANGE_IN_CAPACITY
    """The adjustment type that alone takes a minimum step."""


class ScalingPolicy(Resource):
    """A resource to manage scaling of `OS::Heat::AutoScalingGroup`.

    **Note** while it may incidentally support
    `AWS::AutoScaling::AutoScalingGroup` for now, please don't use it for that
    purpose and use `AWS::AutoScaling::ScalingPolicy` instead.

    Resource to manage scaling for `OS::Heat::AutoScalingGroup`, i.e. define
    which metric should be scaled and scaling adjustment, set cooldown etc.
    """

    heat_class_name = "AutoScalingPolicy"
    keys: ClassVar[PolicyKeys] = PolicyKeys()
    signal_needs_metadata_updates: ClassVar[bool] = True
    """After a resize, metadata that reads the group is resolved again (Heat's)."""

    managed_metadata = frozenset({scaling.IN_PROGRESS, scaling.COOLDOWN_END,
                                  scaling.LEGACY_COOLDOWN})
    properties_schema = {
        GROUP: Schema(Schema.STRING, "AutoScaling group ID to apply policy to.", required=True),
        ADJUSTMENT: Schema(Schema.NUMBER, "Size of adjustment.", required=True,
                           update_allowed=True),
        ADJUSTMENT_TYPE: Schema(Schema.STRING, "Type of adjustment (absolute or percentage).",
                                required=True,
                                constraints=[AllowedValues((
                                    scaling.CHANGE_IN_CAPACITY, scaling.EXACT_CAPACITY,
                                    scaling.PERCENT_CHANGE_IN_CAPACITY))],
                                update_allowed=True),
        COOLDOWN: Schema(Schema.NUMBER, "Cooldown period, in seconds.", update_allowed=True),
        MIN_ADJUSTMENT_STEP: Schema(
            Schema.INTEGER, "Minimum number of resources that are added or removed when the "
            "AutoScaling group scales up or down. This can be used only when specifying "
            "percent_change_in_capacity for the adjustment_type property.",
            constraints=[Range(min=0)], update_allowed=True),
    }
    attributes_schema = {
        ALARM_URL: Attribute("A signed url to handle the alarm.", Attribute.STRING),
        SIGNAL_URL: Attribute("A url to handle the alarm using native API.", Attribute.STRING,
                              support_status=SupportStatus(version="5.0.0")),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """The properties; a ``min_adjustment_step`` only for a percentage (Heat's rule)."""
        props = super().validate(raw, path)
        keys = cls.keys
        if (props[keys.adjustment_type] != keys.percent
                and props[keys.min_adjustment_step] is not None):
            raise ResourcePropertyValueDependency(keys.min_adjustment_step,
                                                  keys.adjustment_type, keys.percent)
        return props

    def handle_signal(self, details: Any = None) -> SignalWork:
        """Adjust the group; what remains of the resize the engine finishes later.

        Raises:
            NoActionRequired: the group ignores the signal (see its ``adjust``).
            ScalingGroupNotFound: no resource of the stack has the group's reference.
        """
        state = "alarm"
        if isinstance(details, Mapping):
            state = str(details.get("current", details.get("state", "alarm"))).lower()
        LOG.info("Alarm %s, new state %s", self.name, state)
        keys = self.keys
        reference = str(self.properties[keys.group])
        group = peers(self).resource_by_reference(reference)
        adjust = getattr(group, "adjust", None)
        if group is None or not callable(adjust):
            raise ScalingGroupNotFound(self.name, reference)
        LOG.info("%s alarm, adjusting group %s with id %s by %s", self.name, group.name,
                 reference, self.properties[keys.adjustment])
        work: SignalWork = adjust(self.properties[keys.adjustment],
                                  self.properties[keys.adjustment_type],
                                  self.properties[keys.min_adjustment_step],
                                  self.properties[keys.cooldown], signal=self._signal())
        return work

    def _signal(self) -> scaling.SignalApplication | None:
        """The signal being handled, when the engine's context offers it: the group
        marks it applied with the write that starts the scaling, so a re-driven
        signal (its engine died after the resize began) does not scale again."""
        if callable(getattr(self.ctx, "metadata_update_applying_signal", None)):
            return cast(scaling.SignalApplication, self.ctx)
        return None

    def _resolve_attribute(self, name: str) -> Any:
        try:
            endpoints = signal_endpoints(self)
            if name == ALARM_URL:
                return endpoints.cfn_signal_url("signal")
            if name == SIGNAL_URL:  # the owner's project, whose users signal it (Heat's)
                return endpoints.heat_signal_url(stack_user_project=False)
        except RuntimeError:  # a context without signal endpoints (previews)
            return None
        return None

    def handle_delete(self) -> None:
        try:
            signal_endpoints(self).forget_signal_credentials()
        except RuntimeError:
            LOG.debug("no signal credentials to forget for %s", self.name)
