"""OS::Heat::AutoScalingGroup: a group of ``resource`` members sized between two bounds.

A scaling group (``scaling_group.py``): a create makes ``desired_capacity``
members (else ``min_size``); an update first renews changed members in
rolling batches (``rolling_updates``, always on, as Heat's), then resizes the
group to ``desired_capacity`` (else its current size) within the bounds; a
scaling policy's signal resizes it by ``adjust``.

Heat orders members failed ones first, then oldest first (``scaling.
member_order``): a shrinking group drops the oldest, a rolling update renews
them first, and ``resource.<i>`` is the i-th live member in that order, not
the member named ``i``. Attributes:

- ``current_size``, ``refs``, ``refs_map``: the live members (a path after
  them is ignored, as Heat's group ignores it);
- ``[outputs, attr, ...]``, ``[outputs_list, attr, ...]``: each member's
  ``attr`` (at the path), by name or as a list; without a path they fail;
- ``resource.<i>``, ``resource.<i>.<attr>``, ``[resource.<i>, attr, ...]``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute, InvalidTemplateAttribute
from hotplate.resources.base import select_path
from hotplate.resources.constraints import Range
from hotplate.resources.group_steps import Apply, Pause
from hotplate.resources.member_group import REFS, REFS_MAP, MemberNotFound
from hotplate.resources.properties import PropertyPath, Schema, with_defaults
from hotplate.resources.scaling_group import ScalingGroup, new_member_name
from hotplate.resources.support import SupportStatus

__all__ = ["AutoScalingGroup"]

RESOURCE, MAX_SIZE, MIN_SIZE = "resource", "max_size", "min_size"
COOLDOWN, DESIRED_CAPACITY, ROLLING_UPDATES = "cooldown", "desired_capacity", "rolling_updates"
MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = "min_in_service", "max_batch_size", "pause_time"
OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE = "outputs", "outputs_list", "current_size"
MEMBER_PREFIX, SHOW = "resource.", "show"
DEFINITION_KEYS = ("type", "properties", "metadata", "depends_on", "deletion_policy",
                   "update_policy", "description", "condition", "external_id")
"""What a member's definition in the child template carries over from ``resource``."""

_MIN_ABOVE_MAX = "MinSize can not be greater than MaxSize"
_NEGATIVE = "The size of AutoScalingGroup can not be less than zero"
_DESIRED_OUT = "DesiredCapacity must be between MinSize and MaxSize"


class AutoScalingGroup(ScalingGroup):
    """An autoscaling group that can scale arbitrary resources.

    An autoscaling group allows the creation of a desired count of similar
    resources, which are defined with the resource property in HOT format.
    If there is a need to create many of the same resources (e.g. one
    hundred sets of Server, WaitCondition and WaitConditionHandle or even
    Neutron Nets), AutoScalingGroup is a convenient and easy way to do that.
    """

    heat_class_name = "AutoScalingResourceGroup"

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        RESOURCE: Schema(Schema.MAP, "Resource definition for the resources in the group, in "
                         "HOT format. The value of this property is the definition of a "
                         "resource just as if it had been declared in the template itself.",
                         required=True, update_allowed=True),
        MAX_SIZE: Schema(Schema.INTEGER, "Maximum number of resources in the group.",
                         required=True, update_allowed=True, constraints=[Range(min=0)]),
        MIN_SIZE: Schema(Schema.INTEGER, "Minimum number of resources in the group.",
                         required=True, update_allowed=True, constraints=[Range(min=0)]),
        COOLDOWN: Schema(Schema.INTEGER, "Cooldown period, in seconds.", update_allowed=True),
        DESIRED_CAPACITY: Schema(Schema.INTEGER, "Desired initial number of resources.",
                                 update_allowed=True),
        ROLLING_UPDATES: Schema(
            Schema.MAP, "Policy for rolling updates for this scaling group.",
            update_allowed=True,
            schema={
                MIN_IN_SERVICE: Schema(Schema.INTEGER, "The minimum number of resources in "
                                       "service while rolling updates are being executed.",
                                       constraints=[Range(min=0)], default=0),
                MAX_BATCH_SIZE: Schema(Schema.INTEGER, "The maximum number of resources to "
                                       "replace at once.", constraints=[Range(min=1)],
                                       default=1),
                PAUSE_TIME: Schema(Schema.NUMBER, "The number of seconds to wait between "
                                   "batches of updates.", constraints=[Range(min=0)],
                                   default=0),
            },
            default={MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0}),
    }
    attributes_schema = {
        OUTPUTS: Attribute("A map of resource names to the specified attribute of each "
                           "individual resource that is part of the AutoScalingGroup. This "
                           "map specifies output parameters that are available once the "
                           "AutoScalingGroup has been instantiated.", Attribute.MAP,
                           support_status=SupportStatus(version="2014.2")),
        OUTPUTS_LIST: Attribute("A list of the specified attribute of each individual "
                                "resource that is part of the AutoScalingGroup. This list of "
                                "attributes is available as an output once the "
                                "AutoScalingGroup has been instantiated.", Attribute.LIST,
                                support_status=SupportStatus(version="2014.2")),
        CURRENT_SIZE: Attribute("The current size of AutoscalingResourceGroup.",
                                Attribute.INTEGER,
                                support_status=SupportStatus(version="2015.1")),
        REFS: Attribute("A list of resource IDs for the resources in the group.",
                        Attribute.LIST, support_status=SupportStatus(version="7.0.0")),
        REFS_MAP: Attribute("A map of resource names to IDs for the resources in the group.",
                            Attribute.MAP, support_status=SupportStatus(version="7.0.0")),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """The properties, then Heat's checks of the sizes against each other."""
        props = super().validate(raw, path)
        low, high, desired = props[MIN_SIZE], props[MAX_SIZE], props[DESIRED_CAPACITY]
        if high < low:
            raise StackValidationFailed(_MIN_ABOVE_MAX)
        if low < 0:
            raise StackValidationFailed(_NEGATIVE)
        if desired is not None and not low <= desired <= high:
            raise StackValidationFailed(_DESIRED_OUT)
        return props

    # -- what the scaling group asks ------------------------------------------------
    def bounds(self) -> tuple[int, int]:
        return self.properties[MIN_SIZE], self.properties[MAX_SIZE]

    def desired(self) -> int | None:
        desired: int | None = self.properties[DESIRED_CAPACITY]
        return desired

    def cooldown(self) -> float | None:
        cooldown: float | None = self.properties[COOLDOWN]
        return cooldown

    def new_definition(self) -> dict[str, Any]:
        return self.member_definition(self.properties)

    @classmethod
    def member_definition(cls, properties: Mapping[str, Any]) -> dict[str, Any]:
        """A member's snippet in the child template: ``resource`` as written."""
        given = properties[RESOURCE] or {}
        return {key: copy.deepcopy(given[key]) for key in DEFINITION_KEYS
                if given.get(key) is not None}

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        """One member, as Heat validates a group whatever its size."""
        group = cls.__new__(cls)
        group.properties = cls._with_defaults(properties)
        return group._template([(new_member_name(), cls.member_definition(group.properties))])

    @classmethod
    def _with_defaults(cls, properties: Mapping[str, Any]) -> dict[str, Any]:
        return with_defaults(cls.properties_schema, properties)

    # -- update -----------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        """Rolling batches when ``resource`` changed, then a resize (always, as Heat's)."""
        self.properties = self._with_defaults(new_properties)
        planned: list[Apply | Pause] = []
        if RESOURCE in prop_diff and self.resource_id is not None:
            policy = self.properties[ROLLING_UPDATES] or {}
            planned.extend(self._rolling_steps(
                self.desired(), int(policy.get(MAX_BATCH_SIZE) or 1),
                int(policy.get(MIN_IN_SERVICE) or 0), float(policy.get(PAUSE_TIME) or 0)))
        planned.append(Apply(self._resized_template))
        return self._start(planned)

    # -- attributes -------------------------------------------------------------------
    def get_attribute(self, name: str) -> Any:
        if name == CURRENT_SIZE:
            return self.current_size()
        if name in (REFS, REFS_MAP):
            live = self._live()
            if name == REFS:
                return [m.reference_id for m in live]
            return {m.name: m.reference_id for m in live}
        if name.startswith(MEMBER_PREFIX):
            return self._member_at(name, ())
        if name == SHOW:
            return super().get_attribute(name)
        raise InvalidTemplateAttribute(self.name, name)

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        if not path or name in (CURRENT_SIZE, REFS, REFS_MAP):
            return self.get_attribute(name)
        if name in (OUTPUTS, OUTPUTS_LIST):
            attribute, rest = str(path[0]), tuple(path[1:])
            values = {n: select_path(self._member_attribute(n, attribute), rest)
                      for n in self._names()}
            return values if name == OUTPUTS else list(values.values())
        if name.startswith(MEMBER_PREFIX):
            return self._member_at(name, path)
        if name == SHOW:
            return select_path(self.get_attribute(name), path)
        raise InvalidTemplateAttribute(self.name, name)

    def _member_at(self, name: str, path: tuple[Any, ...]) -> Any:
        """``resource.<i>[.<attr>]`` and a path after it: by position, as Heat's group."""
        _, index, *attribute = name.split(".", 2)
        path = (*attribute, *path)
        live = self._live()
        try:
            member = live[int(index)]
        except (ValueError, IndexError):
            if self.resource_id is None:
                return None
            raise MemberNotFound(index, self.name) from None
        if not path:
            return member.reference_id
        return select_path(self._member_attribute(member.name, str(path[0])), tuple(path[1:]))

    def _resolve_attribute(self, name: str) -> Any:
        if name in (OUTPUTS, OUTPUTS_LIST):
            return None
        return self.get_attribute(name)
