"""OS::Heat::InstanceGroup: ``Size`` members made from an AWS launch configuration.

A scaled group (``scaling_group.py``) whose members are
``OS::Heat::ScaledResource``, which the child's environment maps to
``AWS::EC2::Instance`` (so a parent that maps ``AWS::EC2::Instance`` to a
template makes its members from that template). Each member takes the
properties set on the ``LaunchConfigurationName`` resource
(``AWS::AutoScaling::LaunchConfiguration``), the group's ``Tags`` plus a
``metering.groupname`` tag, and the launch configuration's metadata. The
child template is in Heat's CFN format (``HeatTemplateFormatVersion``), as
Heat builds it.

An update resizes the group to ``Size``. When the launch configuration was
replaced (its reference changed) and the group has a ``RollingUpdate`` update
policy (``MinInstancesInService``, ``MaxBatchSize``, ``PauseTime`` as an ISO
8601 duration ``PT#H#M#S``), the members are first renewed in batches, as
Heat's ``_replace`` does; without the policy, only new members get the new
configuration, as in Heat.

``InstanceList`` is the members' ``PublicIp``, comma-separated (``0.0.0.0``
for a member without one), None for no member. ``LoadBalancerNames`` is
accepted but reconfigures nothing: hotplate has no
``AWS::ElasticLoadBalancing::LoadBalancer``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource, select_path
from hotplate.resources.group_steps import Apply, Pause, Steps
from hotplate.resources.properties import Schema, with_defaults
from hotplate.resources.scaling_group import ScaledGroup
from hotplate.resources.signals import peers

__all__ = ["InstanceGroup", "parse_duration", "rolling_policy"]

AVAILABILITY_ZONES, LAUNCH_CONFIGURATION_NAME, SIZE = (
    "AvailabilityZones", "LaunchConfigurationName", "Size")
LOAD_BALANCER_NAMES, TAGS, TAG_KEY, TAG_VALUE = "LoadBalancerNames", "Tags", "Key", "Value"
MIN_INSTANCES_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = (
    "MinInstancesInService", "MaxBatchSize", "PauseTime")
INSTANCE_LIST, PUBLIC_IP, NO_IP = "InstanceList", "PublicIp", "0.0.0.0"
SCALED_RESOURCE_TYPE, INSTANCE_TYPE = "OS::Heat::ScaledResource", "AWS::EC2::Instance"
METERING = "metering."
MAX_PAUSE = 3600

_DURATION = re.compile(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$")

TAGS_SCHEMA = Schema(Schema.LIST, "Tags to attach to this group.", schema=Schema(
    Schema.MAP, schema={
        TAG_KEY: Schema(Schema.STRING, "Tag key.", required=True),
        TAG_VALUE: Schema(Schema.STRING, "Tag value.", required=True),
    }))


def parse_duration(text: str) -> int:
    """Seconds in Heat's ISO 8601 durations (``PT1H2M3S``, each part optional).

    Raises:
        ValueError: Heat's text for any other form.
    """
    found = _DURATION.match(str(text))
    if not found:
        raise ValueError("Only ISO 8601 duration format of the form PT#H#M#S is supported.")
    hours, minutes, seconds = (int(part) if part else 0 for part in found.groups())
    return hours * 3600 + minutes * 60 + seconds


def rolling_policy(policy: Mapping[str, Any]) -> tuple[int, int, int]:
    """(MinInstancesInService, MaxBatchSize, PauseTime in seconds) of a rolling-update
    policy as written, with Heat's defaults (0, 1, ``PT0S``).

    Raises:
        ValueError: a value of the wrong form, or a pause over an hour (Heat's texts).
    """
    in_service = int(policy.get(MIN_INSTANCES_IN_SERVICE) or 0)
    batch_size = int(policy.get(MAX_BATCH_SIZE) or 1)
    pause = parse_duration(policy.get(PAUSE_TIME) or "PT0S")
    if pause > MAX_PAUSE:
        raise ValueError(f"Maximum {PAUSE_TIME} is 1 hour.")
    return in_service, batch_size, pause


class InstanceGroup(ScaledGroup):
    """An instance group that can scale arbitrary instances.

    A resource allowing for the creating number of defined with
    AWS::AutoScaling::LaunchConfiguration instances. Allows to associate
    scaled resources with loadbalancer resources.
    """

    child_format = ("HeatTemplateFormatVersion", "2012-12-12", "Resources")
    path_attributes = False
    rolling_update: ClassVar[str] = "RollingUpdate"
    """The update policy's key that turns on rolling updates."""

    properties_schema = {
        AVAILABILITY_ZONES: Schema(Schema.LIST, "Not Implemented.", required=True),
        LAUNCH_CONFIGURATION_NAME: Schema(Schema.STRING, "The reference to a "
                                          "LaunchConfiguration resource.", required=True,
                                          update_allowed=True),
        SIZE: Schema(Schema.INTEGER, "Desired number of instances.", required=True,
                     update_allowed=True),
        LOAD_BALANCER_NAMES: Schema(Schema.LIST, "List of LoadBalancer resources. Currently "
                                    "only the AWS::ElasticLoadBalancing::LoadBalancer "
                                    "resource type is supported."),
        TAGS: TAGS_SCHEMA,
    }
    attributes_schema = {
        INSTANCE_LIST: Attribute("A comma-delimited list of server ip addresses. (Heat "
                                 "extension).", Attribute.STRING),
    }

    # -- sizes ------------------------------------------------------------------------
    def desired(self) -> int | None:
        """The size the group should have (Heat's ``get_size``)."""
        size: int | None = self.properties[SIZE]
        return size

    def initial_size(self) -> int:
        return int(self.properties[SIZE])

    def _resized_template(self) -> dict[str, Any]:
        """An update's resize: to ``Size``, else the current size."""
        size = self.desired()
        return self._sized_template(self.current_size() if size is None else int(size))

    # -- members ----------------------------------------------------------------------
    def child_registry(self) -> dict[str, str]:
        return {SCALED_RESOURCE_TYPE: INSTANCE_TYPE}

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Nothing before create: a member's properties come from another resource."""
        return None

    def new_definition(self) -> dict[str, Any]:
        """Heat's ``_get_resource_definition``: the launch configuration's properties
        and metadata, with the group's tags."""
        conf = self._launch_config()
        properties = conf.member_properties()  # type: ignore[attr-defined]
        properties[TAGS] = self._tags()
        definition: dict[str, Any] = {"Type": SCALED_RESOURCE_TYPE, "Properties": properties}
        metadata = conf.member_metadata()  # type: ignore[attr-defined]
        if metadata:
            definition["Metadata"] = metadata
        return definition

    def _launch_config(self) -> Resource:
        reference = str(self.properties[LAUNCH_CONFIGURATION_NAME])
        found = peers(self).resource_by_reference(reference)
        if found is None or not callable(getattr(found, "member_properties", None)):
            raise ValueError(f"{LAUNCH_CONFIGURATION_NAME} ({reference}) reference can not "
                             "be found.")
        return found

    def _tags(self) -> list[dict[str, Any]]:
        """The group's tags, plus one Ceilometer picks up unless a ``metering.`` tag is
        there already."""
        tags = [dict(tag) for tag in self.properties[TAGS] or []]
        if any(str(tag[TAG_KEY]).startswith(METERING) for tag in tags):
            return tags
        return [*tags, {TAG_KEY: f"{METERING}groupname", TAG_VALUE: self.get_reference_id()}]

    # -- update -----------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Steps:
        """Renew the members in batches if the launch configuration changed under a
        rolling-update policy; then resize (always, as Heat's)."""
        self.properties = with_defaults(self.properties_schema, new_properties)
        planned: list[Apply | Pause] = []
        policy = self.update_policy().get(self.rolling_update)
        if (isinstance(policy, Mapping) and LAUNCH_CONFIGURATION_NAME in prop_diff
                and self.resource_id is not None):
            in_service, batch_size, pause = rolling_policy(policy)
            planned.extend(self._rolling_steps(self.desired(), batch_size, in_service, pause))
        planned.append(Apply(self._resized_template))
        return self._start(planned)

    # -- attributes -------------------------------------------------------------------
    def get_attribute(self, name: str) -> Any:
        if name == INSTANCE_LIST:
            return self._instance_list()
        return Resource.get_attribute(self, name)

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        return select_path(self.get_attribute(name), path)

    def _resolve_attribute(self, name: str) -> Any:
        return self.get_attribute(name) if name == INSTANCE_LIST else None

    def _instance_list(self) -> str | None:
        addresses = [self._member_attribute(m.name, PUBLIC_IP) or NO_IP for m in self._live()]
        return ",".join(str(a) for a in addresses) or None
