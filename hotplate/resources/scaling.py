"""A scaling group's arithmetic and cooldown bookkeeping, as Heat's (pure: no clock, no ids).

Capacity (Heat's ``scalingutil.calculate_new_capacity``): a change, an exact
size or a percentage of the current size, kept within ``[minimum,
maximum]``. A percentage rounds away from zero below one whole member
(so any non-zero percentage moves at least one), and towards zero above
it; ``min_adjustment_step`` then raises a smaller step to itself.

Cooldown (Heat's ``CooldownMixin``) lives in the group's metadata, so
``openstack stack resource metadata`` shows what Heat's shows::

    {"cooldown_end": {"2026-01-01T00:01:00.000123": "change_in_capacity : 1"},
     "scaling_in_progress": false}

A scaling action may start when nothing is in progress and ``cooldown_end``
has passed; it sets ``scaling_in_progress``; when it ends, the flag drops
and (if the size changed) ``cooldown_end`` moves to ``now + cooldown``,
never earlier than it was. Metadata written by older Heat releases (a
``cooldown`` key, or a bare timestamp key) still counts as Heat counts it.
Timestamps are Heat's: naive UTC in ISO format.

A flag that never drops (its engine died mid-resize) would block the group
for ever in Heat, until a stack update or a "mark healthy" resets it. A
scaling action started by a signal therefore also records
``scaling_deadline``: the moment the engine stops waiting for the resize
(the stack's timeout). Past it, and ``STALE_GRACE`` more for the engine's
own ending to land, the flag is taken as abandoned and the next signal may
scale. The key is there only while a scaling runs; at rest the metadata is
Heat's own.

A scaling action also tells the world, as Heat's ``autoscaling.send`` does:
a ``ScalingNotice`` when it starts, and one when it ends or fails, which
the engine turns into ``orchestration.autoscaling.<phase>`` (the group
hands it to its context's ``notify_scaling``, absent when notifications
are off).
"""

from __future__ import annotations

import base64
import math
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from hotplate.resources.nested import ChildMember
from hotplate.resources.rolling_update import Batch, needs_update, next_batch

if TYPE_CHECKING:
    from hotplate.resources.base import Resource

__all__ = [
    "ADJUSTMENT_TYPES", "CHANGE_IN_CAPACITY", "COOLDOWN_END", "EXACT_CAPACITY",
    "IN_PROGRESS", "PERCENT_CHANGE_IN_CAPACITY", "Phase", "SCALING_DEADLINE", "STALE_GRACE",
    "ScalingNotice", "SignalApplication", "abandoned", "blocked_reason", "member_order",
    "new_capacity", "reset", "rolling_batches", "scaling_finished", "scaling_started",
    "short_id", "timestamp",
]

EXACT_CAPACITY, CHANGE_IN_CAPACITY, PERCENT_CHANGE_IN_CAPACITY = (
    "exact_capacity", "change_in_capacity", "percent_change_in_capacity")
ADJUSTMENT_TYPES = (EXACT_CAPACITY, CHANGE_IN_CAPACITY, PERCENT_CHANGE_IN_CAPACITY)
CFN_EXACT_CAPACITY, CFN_CHANGE_IN_CAPACITY = "ExactCapacity", "ChangeInCapacity"
"""The AWS spellings, which Heat's arithmetic accepts too (and its reasons use)."""

IN_PROGRESS, COOLDOWN_END, LEGACY_COOLDOWN = "scaling_in_progress", "cooldown_end", "cooldown"
SCALING_DEADLINE = "scaling_deadline"
SCALING_ACTIVITY = "due to scaling activity"
STALE_GRACE = timedelta(minutes=1)
"""After a scaling's deadline, how long its engine still has to record its end before the
flag counts as abandoned (the engine gives up at the deadline, then writes)."""

Number = int | float


# -- notices ----------------------------------------------------------------------------
class Phase(StrEnum):
    """Where a scaling action is: the suffix of Heat's ``autoscaling.<phase>`` event."""

    START = "start"
    END = "end"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class ScalingNotice:
    """What Heat's group reports of one scaling action, with Heat's field names.

    ``capacity`` is the size before the action at its start, the new size at
    its end and the size found after a failure; ``groupname`` is the group's
    reference id; ``message`` is Heat's text (the error's, on failure).
    """

    phase: Phase
    adjustment: Number
    adjustment_type: str
    capacity: Number
    groupname: str
    message: str

    @classmethod
    def started(cls, adjustment: Number, adjustment_type: str, capacity: Number,
                groupname: str) -> ScalingNotice:
        return cls(Phase.START, adjustment, adjustment_type, capacity, groupname,
                   f"Start resizing the group {groupname}")

    def ended(self, capacity: Number) -> ScalingNotice:
        return ScalingNotice(Phase.END, self.adjustment, self.adjustment_type, capacity,
                             self.groupname, f"End resizing the group {self.groupname}")

    def failed(self, capacity: Number, error: BaseException) -> ScalingNotice:
        return ScalingNotice(Phase.ERROR, self.adjustment, self.adjustment_type, capacity,
                             self.groupname, str(error))


class SignalApplication(Protocol):
    """The signal a scaling action answers, as the engine's signal context offers it.

    A group starts scaling by writing ``scaling_in_progress`` to its metadata.
    Written through ``metadata_update_applying_signal``, that write and the
    signal's applied mark are one transaction: a signal re-driven after its
    engine died (or applied by two engines at once) finds itself applied and
    resizes nothing. The price: an engine that dies between that write and the
    resize loses the signal (an alarm signals again), and the group stays
    marked as scaling until ``signal_deadline`` (``abandoned``).
    """

    signal_deadline: datetime
    """When the engine stops waiting for the signal's background work."""

    def metadata_update_applying_signal(
            self, resource: Resource,
            change: Callable[[dict[str, Any], str], Mapping[str, Any]]) -> dict[str, Any] | None:
        """``change(metadata, status)`` of ``resource``'s row (a resource of the
        signalled one's stack), written with the applied mark; ``change`` may
        raise to refuse. Raises the engine's own exceptions when the signal was
        applied already or the row is gone (its handler then stops)."""
        ...


# -- capacity ---------------------------------------------------------------------------
def new_capacity(current: int, adjustment: Number, adjustment_type: str,
                 min_adjustment_step: int | None, minimum: int, maximum: int) -> Number:
    """The group's size after ``adjustment`` of ``adjustment_type``, within the bounds."""
    if adjustment_type in (CHANGE_IN_CAPACITY, CFN_CHANGE_IN_CAPACITY):
        wanted: Number = current + adjustment
    elif adjustment_type in (EXACT_CAPACITY, CFN_EXACT_CAPACITY):
        wanted = adjustment
    else:
        wanted = current + _percent_step(current, adjustment, min_adjustment_step)
    if wanted > maximum:
        return maximum
    if wanted < minimum:
        return minimum
    return wanted


def _percent_step(current: int, percent: Number, min_step: int | None) -> int:
    delta = current * percent / 100.0
    if math.fabs(delta) < 1.0:
        step = int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
    else:
        step = int(math.floor(delta) if delta > 0.0 else math.ceil(delta))
    if min_step and min_step > abs(step):
        step = min_step if step > 0 else -min_step
    return step


def rolling_batches(target: int, capacity: int, batch_size: int,
                    min_in_service: int) -> Iterator[Batch]:
    """A scaling group's rolling update: (size, new definitions) per batch.

    Heat's InstanceGroup counts every new definition of a batch as done,
    where ResourceGroup discounts the members added only to keep
    ``min_in_service`` (``rolling_update.batches``); the batches differ, so
    the group keeps Heat's own count.
    """
    updated = 0
    while needs_update(target, capacity, updated):
        capacity, changes = next_batch(target, capacity, updated, batch_size, min_in_service)
        yield capacity, changes
        updated += changes


# -- members ----------------------------------------------------------------------------
def member_order(member: ChildMember) -> tuple[bool, datetime | None, str]:
    """Heat's order of a group's members: failed ones first, then oldest first.

    Heat compares creation times as its API shows them, to the second, so
    members made together are ordered by name.
    """
    created = member.created_at.replace(microsecond=0) if member.created_at else None
    return member.status != "FAILED", created, member.name


def short_id(source: uuid.UUID) -> str:
    """Heat's 12-character member name from a random (version 4) UUID: the 60 random
    bits of its time field, base32-encoded, lowercase."""
    if source.version != 4:
        raise ValueError(f"Invalid UUID version ({source.version})")
    padded = source.time << 4  # 60 bits, padded on the right to a whole byte
    return base64.b32encode(padded.to_bytes(8, "big"))[:12].decode("ascii").lower()


# -- cooldown ---------------------------------------------------------------------------
def timestamp(moment: datetime) -> str:
    """Heat's metadata timestamp: naive UTC, ISO format."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat()


def sanitize_cooldown(cooldown: Number | None) -> Number:
    return 0 if cooldown is None else max(0, cooldown)


def blocked_reason(metadata: Mapping[str, Any], cooldown: Number | None,
                   now: datetime) -> str | None:
    """Why a scaling action may not start now (Heat's reason), or None if it may."""
    if metadata.get(IN_PROGRESS) and not abandoned(metadata, now):
        return SCALING_ACTIVITY
    cooldown = sanitize_cooldown(cooldown)
    in_cooldown = f"due to cooldown, cooldown {cooldown}"
    if COOLDOWN_END in metadata:
        end = _parse(_first_key(metadata[COOLDOWN_END]))
        return in_cooldown if end is not None and _naive(now) < end else None
    if cooldown == 0:
        return None
    if LEGACY_COOLDOWN in metadata:
        last = _parse(_first_key(metadata[LEGACY_COOLDOWN]))
    else:
        rest = [key for key in metadata if key not in (IN_PROGRESS, SCALING_DEADLINE)]
        last = _parse(rest[0]) if rest else None
    if last is not None and _naive(now) - last <= timedelta(seconds=cooldown):
        return in_cooldown
    return None


def abandoned(metadata: Mapping[str, Any], now: datetime) -> bool:
    """Whether a scaling in progress is past its deadline and grace: its engine died.

    Without a deadline (Heat's own metadata, or a scaling not started by a
    signal) it never is, as in Heat.
    """
    deadline = _parse(str(metadata.get(SCALING_DEADLINE) or ""))
    return deadline is not None and _naive(now) > deadline + STALE_GRACE


def scaling_started(metadata: Mapping[str, Any],
                    deadline: datetime | None = None) -> dict[str, Any]:
    """The metadata of a group that starts scaling; ``deadline``: when its engine
    stops waiting for the resize (see ``abandoned``)."""
    started = {**metadata, IN_PROGRESS: True}
    started.pop(SCALING_DEADLINE, None)
    if deadline is not None:
        started[SCALING_DEADLINE] = timestamp(deadline)
    return started


def scaling_finished(metadata: Mapping[str, Any], cooldown: Number | None, reason: str,
                     now: datetime, *, size_changed: bool = True) -> dict[str, Any]:
    """The metadata once a scaling action (or a create or update) has ended."""
    done = dict(metadata)
    if size_changed:
        end = timestamp(_naive(now) + timedelta(seconds=sanitize_cooldown(cooldown)))
        if COOLDOWN_END in done:
            end = _later(_first_key(done[COOLDOWN_END]), end)
        done[COOLDOWN_END] = {end: reason}
    done[IN_PROGRESS] = False
    done.pop(SCALING_DEADLINE, None)
    return done


def reset(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """Heat's metadata reset (a resource marked healthy again): a scaling action that
    never finished (its engine died) no longer blocks the next. None: nothing to reset."""
    if IN_PROGRESS not in metadata:
        return None
    done = {**metadata, IN_PROGRESS: False}
    done.pop(SCALING_DEADLINE, None)
    return done


def _first_key(value: Any) -> str:
    if isinstance(value, Mapping) and value:
        return str(next(iter(value)))
    return ""


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _parse(text: str) -> datetime | None:
    """A stored timestamp; None for one that is not (nothing to wait for)."""
    try:
        return _naive(datetime.fromisoformat(text))
    except ValueError:
        return None


def _later(stored: str, new: str) -> str:
    old = _parse(stored)
    fresh = _parse(new)
    if old is None or fresh is None:
        return max(stored, new)
    return stored if old > fresh else new
