"""What Heat's scaling groups share: members under random names, resized and renewed in batches.

Three types keep their members this way: ``OS::Heat::AutoScalingGroup``,
``OS::Heat::InstanceGroup`` and ``AWS::AutoScaling::AutoScalingGroup``. Their
members live in a child stack under Heat's random 12-character names
(``scaling.short_id``), and Heat orders them failed ones first, then oldest
first (``scaling.member_order``): a shrinking group drops the oldest, a
rolling update renews them first. Every new or renewed member gets the
definition the group gives now (``new_definition``).

Two layers, as Heat has them::

    ScaledGroup        members, sized templates, rolling batches  (InstanceGroup)
      ScalingGroup     + bounds, cooldown and a policy's adjust    (both AutoScalingGroups)

A scaling group ends every create, update and resize by recording the
cooldown in its metadata (``scaling.py``), which is what makes a policy's
signal wait for the cooldown after any of them, as in Heat. A resize by
``adjust`` is announced as Heat announces it: a start notice once the
cooldown allows it, then an end or an error notice (``scaling.ScalingNotice``).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from hotplate.resources import scaling
from hotplate.resources.group_steps import Apply, Pause, Steps
from hotplate.resources.member_group import CHILD_VERSION, MemberGroup
from hotplate.resources.nested import ChildMember
from hotplate.resources.rolling_update import member_definitions
from hotplate.resources.signals import NoActionRequired, SignalWork, row_metadata

__all__ = ["ScaledGroup", "ScalingGroup", "new_member_name"]

LOG = logging.getLogger(__name__)

FAILED = "FAILED"


def new_member_name() -> str:
    return scaling.short_id(uuid.uuid4())


class ScaledGroup(MemberGroup):
    """A group whose members Heat names at random and orders by age."""

    child_format: ClassVar[tuple[str, str, str]] = (
        "heat_template_version", CHILD_VERSION, "resources")
    """(version key, version, resources key) of the child template Heat builds."""

    # -- what subclasses supply -----------------------------------------------------
    def new_definition(self) -> dict[str, Any]:
        """The snippet a new or renewed member gets in the child template."""
        raise NotImplementedError

    def initial_size(self) -> int:
        """How many members a create makes."""
        raise NotImplementedError

    # -- members --------------------------------------------------------------------
    def _child_resources(self) -> Mapping[str, Any]:
        if self.resource_id is None:
            return {}
        current = self._stacks().template(str(self.resource_id))
        found = current.get(self.child_format[2])
        return found if isinstance(found, Mapping) else {}

    def _ordered(self) -> list[ChildMember]:
        """The child template's members in Heat's order, failed ones (first) included."""
        if self.resource_id is None:
            return []
        names = set(self._child_resources())
        members = [m for m in self._stacks().members(str(self.resource_id)) if m.name in names]
        return sorted(members, key=scaling.member_order)

    def _live(self) -> list[ChildMember]:
        return [m for m in self._ordered() if m.status != FAILED]

    def _names(self, size: int | None = None) -> list[str]:
        return [m.name for m in self._live()]

    def current_size(self) -> int:
        return len(self._live())

    # -- the child template ---------------------------------------------------------
    def _template(self, members: list[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
        version_key, version, resources_key = self.child_format
        return {version_key: version,
                resources_key: {name: dict(defn) for name, defn in members}}

    def _sized_template(self, size: int, changes: int = 0) -> dict[str, Any]:
        """Heat's group template: ``size`` members, ``changes`` of them (new ones first)
        given the current definition, the others keeping theirs."""
        definition = self.new_definition()
        resources = self._child_resources()
        old = [(m.name, resources[m.name]) for m in self._ordered()]
        chosen = member_definitions(old, lambda _name: definition, int(size), changes,
                                    new_member_name)
        return self._template(list(chosen))

    def child_template(self) -> dict[str, Any]:
        return self._sized_template(self.initial_size())

    def _rolling_steps(self, desired: int | None, batch_size: int, min_in_service: int,
                       pause: float) -> list[Apply | Pause]:
        """The batches that renew every member (failed ones counted), ``pause`` seconds
        apart; the group shrinks to ``desired`` on the way if that is smaller."""
        capacity = len(self._ordered())
        target = min(desired or capacity, capacity)
        planned = list(scaling.rolling_batches(target, capacity, batch_size, min_in_service))
        steps: list[Apply | Pause] = []
        for index, (size, changes) in enumerate(planned):
            steps.append(Apply(functools.partial(self._sized_template, size, changes)))
            if index < len(planned) - 1 and pause > 0:
                steps.append(Pause(pause))
        return steps

    # -- the engine's loop ----------------------------------------------------------
    def handle_create(self) -> Any:
        steps = Steps([Apply(self.child_template)])
        steps.advance(self)
        return steps

    def check_create_complete(self, data: Any) -> bool:
        return self._advance(data)

    def check_update_complete(self, data: Any) -> bool:
        return self._advance(data)

    def _advance(self, steps: Steps) -> bool:
        """One more poll of the action's steps."""
        return steps.advance(self)

    def _start(self, planned: list[Apply | Pause]) -> Steps:
        steps = Steps(planned)
        steps.advance(self)
        return steps


class ScalingGroup(ScaledGroup):
    """A scaled group with bounds, a cooldown, and a policy's ``adjust``."""

    managed_metadata = frozenset({scaling.IN_PROGRESS, scaling.COOLDOWN_END,
                                  scaling.LEGACY_COOLDOWN, scaling.SCALING_DEADLINE})

    # -- what subclasses supply -----------------------------------------------------
    def bounds(self) -> tuple[int, int]:
        """(minimum, maximum) size."""
        raise NotImplementedError

    def desired(self) -> int | None:
        """The desired capacity, if set."""
        raise NotImplementedError

    def cooldown(self) -> float | None:
        """The group's own cooldown, in seconds."""
        raise NotImplementedError

    def initial_size(self) -> int:
        return self.desired() or self.bounds()[0]

    # -- create and update ----------------------------------------------------------
    def _advance(self, steps: Steps) -> bool:
        """One more poll of the action; once done, the cooldown starts (Heat's
        ``ExactCapacity : <size>``)."""
        if not steps.advance(self):
            return False
        reason = f"{scaling.CFN_EXACT_CAPACITY} : {self.current_size()}"
        self._finished_scaling(self.cooldown(), reason)
        return True

    def _resized_template(self) -> dict[str, Any]:
        """An update's resize, built when it starts (after any rolling batches): to the
        desired capacity (else the current size) within the bounds."""
        capacity = self.current_size()
        low, high = self.bounds()
        size = scaling.new_capacity(capacity, self.desired() or capacity,
                                    scaling.CFN_EXACT_CAPACITY, None, low, high)
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
        low, high = self.bounds()
        size = scaling.new_capacity(capacity, adjustment, adjustment_type, min_adjustment_step,
                                    low, high)
        if size == capacity:
            LOG.info("%s NOT performing scaling adjustment, as there is no change in "
                     "capacity.", self.name)
            raise NoActionRequired()
        if cooldown is None:
            cooldown = self.cooldown()
        self._check_scaling_allowed(cooldown, signal)
        reason = f"{adjustment_type} : {adjustment}"
        notify = self._scaling_notices()
        notice = None
        if notify is not None:  # Heat's start notice: after the cooldown check, before resizing
            notice = scaling.ScalingNotice.started(adjustment, adjustment_type, capacity,
                                                   self.get_reference_id())
            notify(notice)
        try:
            self._stacks().update(str(self.resource_id), self._sized_template(int(size)),
                                  self.child_parameters(), outside_traversal=True,
                                  **self._registry_argument())
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
