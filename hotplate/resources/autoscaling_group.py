"""OS::Heat::AutoScalingGroup: a group of ``resource`` members sized between two bounds.

The members live in a child stack under Heat's random 12-character names
(``scaling.short_id``). A create makes ``desired_capacity`` of them (else
``min_size``); an update first renews changed members in rolling batches
(``rolling_updates``, always on, as Heat's), then resizes the group to
``desired_capacity`` (else its current size) within the bounds; a scaling
policy's signal resizes it by ``adjust``.

Heat orders members failed ones first, then oldest first (``scaling.
member_order``): a shrinking group drops the oldest, a rolling update renews
them first, and ``resource.<i>`` is the i-th live member in that order, not
the member named ``i``. Attributes:

- ``current_size``, ``refs``, ``refs_map``: the live members (a path after
  them is ignored, as Heat's group ignores it);
- ``[outputs, attr, ...]``, ``[outputs_list, attr, ...]``: each member's
  ``attr`` (at the path), by name or as a list; without a path they fail;
- ``resource.<i>``, ``resource.<i>.<attr>``, ``[resource.<i>, attr, ...]``.

Every create, update and resize ends by recording the cooldown in the
group's metadata (``scaling.py``), which is what makes a policy's signal
wait for the cooldown after any of them, as in Heat. A resize by ``adjust``
is announced as Heat announces it: a start notice once the cooldown allows
it, then an end or an error notice (``scaling.ScalingNotice``).
"""

from __future__ import annotations

import copy
import functools
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources import scaling
from hotplate.resources.attributes import Attribute, InvalidTemplateAttribute
from hotplate.resources.base import select_path
from hotplate.resources.constraints import Range
from hotplate.resources.group_steps import Apply, Pause, Steps
from hotplate.resources.member_group import REFS, REFS_MAP, MemberGroup, MemberNotFound
from hotplate.resources.nested import ChildMember
from hotplate.resources.properties import PropertyPath, Schema, with_defaults
from hotplate.resources.rolling_update import member_definitions
from hotplate.resources.signals import NoActionRequired, SignalWork, row_metadata
from hotplate.resources.support import SupportStatus

__all__ = ["AutoScalingGroup"]

LOG = logging.getLogger(__name__)

RESOURCE, MAX_SIZE, MIN_SIZE = "resource", "max_size", "min_size"
COOLDOWN, DESIRED_CAPACITY, ROLLING_UPDATES = "cooldown", "desired_capacity", "rolling_updates"
MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = "min_in_service", "max_batch_size", "pause_time"
OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE = "outputs", "outputs_list", "current_size"
MEMBER_PREFIX, SHOW, FAILED = "resource.", "show", "FAILED"
DEFINITION_KEYS = ("type", "properties", "metadata", "depends_on", "deletion_policy",
                   "update_policy", "description", "condition", "external_id")
"""What a member's definition in the child template carries over from ``resource``."""

_MIN_ABOVE_MAX = "MinSize can not be greater than MaxSize"
_NEGATIVE = "The size of AutoScalingGroup can not be less than zero"
_DESIRED_OUT = "DesiredCapacity must be between MinSize and MaxSize"


def _new_name() -> str:
    return scaling.short_id(uuid.uuid4())


class AutoScalingGroup(MemberGroup):
    """An autoscaling group that can scale arbitrary resources.

    An autoscaling group allows the creation of a desired count of similar
    resources, which are defined with the resource property in HOT format.
    If there is a need to create many of the same resources (e.g. one
    hundred sets of Server, WaitCondition and WaitConditionHandle or even
    Neutron Nets), AutoScalingGroup is a convenient and easy way to do that.
    """

    heat_class_name = "AutoScalingResourceGroup"

    managed_metadata = frozenset({scaling.IN_PROGRESS, scaling.COOLDOWN_END,
                                  scaling.LEGACY_COOLDOWN, scaling.SCALING_DEADLINE})
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

    # -- members --------------------------------------------------------------------
    def _ordered(self) -> list[ChildMember]:
        """The child template's members in Heat's order, failed ones (first) included."""
        if self.resource_id is None:
            return []
        child = str(self.resource_id)
        names = set(self._stacks().template(child).get("resources") or {})
        members = [m for m in self._stacks().members(child) if m.name in names]
        return sorted(members, key=scaling.member_order)

    def _live(self) -> list[ChildMember]:
        return [m for m in self._ordered() if m.status != FAILED]

    def _names(self, size: int | None = None) -> list[str]:
        return [m.name for m in self._live()]

    def current_size(self) -> int:
        return len(self._live())

    # -- the child template ---------------------------------------------------------
    @classmethod
    def member_definition(cls, properties: Mapping[str, Any]) -> dict[str, Any]:
        """A member's snippet in the child template: ``resource`` as written."""
        given = properties[RESOURCE] or {}
        return {key: copy.deepcopy(given[key]) for key in DEFINITION_KEYS
                if given.get(key) is not None}

    def _sized_template(self, size: int, changes: int = 0) -> dict[str, Any]:
        """Heat's group template: ``size`` members, ``changes`` of them (new ones first)
        given the current definition, the others keeping theirs."""
        definition = self.member_definition(self.properties)
        current = self._stacks().template(str(self.resource_id)) if self.resource_id else {}
        resources = current.get("resources") or {}
        old = [(m.name, resources[m.name]) for m in self._ordered()]
        chosen = member_definitions(old, lambda _name: definition, int(size), changes,
                                    _new_name)
        return self._template(list(chosen))

    def child_template(self) -> dict[str, Any]:
        return self._sized_template(self.properties[DESIRED_CAPACITY]
                                    or self.properties[MIN_SIZE])

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        """One member, as Heat validates a group whatever its size."""
        group = cls.__new__(cls)
        group.properties = cls._with_defaults(properties)
        return group._template([(_new_name(), cls.member_definition(group.properties))])

    @classmethod
    def _with_defaults(cls, properties: Mapping[str, Any]) -> dict[str, Any]:
        return with_defaults(cls.properties_schema, properties)

    # -- create and update ----------------------------------------------------------
    def handle_create(self) -> Any:
        steps = Steps([Apply(self.child_template)])
        steps.advance(self)
        return steps

    def check_create_complete(self, data: Any) -> bool:
        return self._advance(data)

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        """Rolling batches when ``resource`` changed, then a resize (always, as Heat's)."""
        self.properties = self._with_defaults(new_properties)
        planned: list[Apply | Pause] = []
        if RESOURCE in prop_diff and self.resource_id is not None:
            planned.extend(self._rolling_steps())
        planned.append(Apply(self._resized_template))
        steps = Steps(planned)
        steps.advance(self)
        return steps

    def check_update_complete(self, data: Any) -> bool:
        return self._advance(data)

    def _advance(self, steps: Steps) -> bool:
        """One more poll of the action; once done, the cooldown starts (Heat's
        ``ExactCapacity : <size>``)."""
        if not steps.advance(self):
            return False
        reason = f"{scaling.CFN_EXACT_CAPACITY} : {self.current_size()}"
        self._finished_scaling(self.properties[COOLDOWN], reason)
        return True

    def _rolling_steps(self) -> list[Apply | Pause]:
        policy = self.properties[ROLLING_UPDATES] or {}
        capacity = len(self._ordered())
        target = min(self.properties[DESIRED_CAPACITY] or capacity, capacity)
        batch_size = int(policy.get(MAX_BATCH_SIZE) or 1)
        in_service = int(policy.get(MIN_IN_SERVICE) or 0)
        pause = float(policy.get(PAUSE_TIME) or 0)
        planned = list(scaling.rolling_batches(target, capacity, batch_size, in_service))
        steps: list[Apply | Pause] = []
        for index, (size, changes) in enumerate(planned):
            steps.append(Apply(functools.partial(self._sized_template, size, changes)))
            if index < len(planned) - 1 and pause > 0:
                steps.append(Pause(pause))
        return steps

    def _resized_template(self) -> dict[str, Any]:
        """The update's resize, built when it starts (after any rolling batches)."""
        capacity = self.current_size()
        desired = self.properties[DESIRED_CAPACITY] or capacity
        size = scaling.new_capacity(capacity, desired, scaling.CFN_EXACT_CAPACITY, None,
                                    self.properties[MIN_SIZE], self.properties[MAX_SIZE])
        return self._sized_template(int(size))

    # -- scaling ----------------------------------------------------------------------
    def adjust(self, adjustment: float, adjustment_type: str = scaling.CHANGE_IN_CAPACITY,
               min_adjustment_step: int | None = None, cooldown: float | None = None, *,
               signal: scaling.SignalApplication | None = None) -> SignalWork:
        """Start resizing the group by a policy's adjustment, if the cooldown permits.

        ``signal``: the policy's, marked applied with the write that starts the
        scaling (``scaling.SignalApplication``): however re-driven, it resizes once.

        Raises:
            NoActionRequired: the group is not COMPLETE, the size would not
                change, a scaling action is in progress, or it is in cooldown.
        """
        capacity = self.current_size()
        size = scaling.new_capacity(capacity, adjustment, adjustment_type, min_adjustment_step,
                                    self.properties[MIN_SIZE], self.properties[MAX_SIZE])
        if size == capacity:
            LOG.info("%s NOT performing scaling adjustment, as there is no change in "
                     "capacity.", self.name)
            raise NoActionRequired()
        if cooldown is None:
            cooldown = self.properties[COOLDOWN]
        self._check_scaling_allowed(cooldown, signal)
        reason = f"{adjustment_type} : {adjustment}"
        notify = self._scaling_notices()
        notice = None
        if notify is not None:  # Heat's start notice: after the cooldown check, before resizing
            notice = scaling.ScalingNotice.started(adjustment, adjustment_type, capacity,
                                                   self.get_reference_id())
            notify(notice)
        try:
            self._stacks().update(str(self.resource_id), self._sized_template(int(size)), {},
                                  outside_traversal=True)
        except BaseException as exc:
            self._finished_scaling(cooldown, reason, size_changed=False)
            self._scaling_failed(notice, exc)
            raise

        def finish(error: BaseException | None) -> None:
            self._finished_scaling(cooldown, reason, size_changed=error is None)
            if error is not None:
                self._scaling_failed(notice, error)
            elif notify is not None and notice is not None:
                notify(notice.ended(int(size)))

        return SignalWork(check=lambda: self.child_done("UPDATE"), finish=finish)

    def _scaling_notices(self) -> Callable[[scaling.ScalingNotice], None] | None:
        """The context's way to tell the world of a scaling action; None when it keeps
        no notifications (then none is even built)."""
        notify: Callable[[scaling.ScalingNotice], None] | None = getattr(
            self.ctx, "notify_scaling", None)
        return notify

    def _scaling_failed(self, notice: scaling.ScalingNotice | None,
                        error: BaseException) -> None:
        """Heat's error notice, with the size the group has now; reading that size must
        not hide the scaling error, so a failure here is only logged."""
        notify = self._scaling_notices()
        if notify is None or notice is None:
            return
        try:
            notify(notice.failed(self.current_size(), error))
        except Exception:
            LOG.exception("Failed sending error notification")

    def _check_scaling_allowed(self, cooldown: float | None,
                               signal: scaling.SignalApplication | None) -> None:
        """Mark the group as scaling, unless it may not scale now (compare-and-swap:
        of two signals at once, one scales and the other sees it scaling)."""
        now = self.ctx.clock.now()
        deadline = signal.signal_deadline if signal is not None else None

        def begin(metadata: dict[str, Any], status: str) -> dict[str, Any]:
            if status != "COMPLETE":
                LOG.info("%s NOT performing scaling adjustment, when status is not "
                         "COMPLETE", self.name)
                raise NoActionRequired()
            why = scaling.blocked_reason(metadata, cooldown, now)
            if why is not None:
                LOG.info("Can not perform scaling action: resource %s %s.", self.name, why)
                raise NoActionRequired(self.name, why)
            return scaling.scaling_started(metadata, deadline)

        written = (signal.metadata_update_applying_signal(self, begin) if signal is not None
                   else row_metadata(self).metadata_update(begin))
        if written is None:
            raise NoActionRequired(self.name, scaling.SCALING_ACTIVITY)

    def _finished_scaling(self, cooldown: float | None, reason: str, *,
                          size_changed: bool = True) -> None:
        now = self.ctx.clock.now()
        port = row_metadata(self)
        port.metadata_update(lambda metadata, _status: scaling.scaling_finished(
            metadata, cooldown, reason, now, size_changed=size_changed), force=True)
        port.clear_stored_attributes()

    @classmethod
    def reset_metadata(cls, metadata: Mapping[str, Any]) -> dict[str, Any] | None:
        """Heat's ``handle_metadata_reset``, when the group is marked healthy again."""
        return scaling.reset(metadata)

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
