"""A scaling group's ``scaling_deadline``: a scaling whose engine died stops blocking.

Pure: the metadata functions of resources/scaling.py, and the group's
``adjust`` over a fake signal that records what it was asked to write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

import pytest

from hotplate.resources import scaling
from hotplate.resources.base import Resource
from hotplate.resources.signals import NoActionRequired
from tests.unit.resources.test_scaling_group import _created, _ctx

NOW = datetime(2026, 1, 1, 12, 0, 0)
COOLED = {scaling.COOLDOWN_END: {"2026-01-01T11:00:00": "ExactCapacity : 3"}}


def test_a_scaling_blocks_until_its_deadline_and_grace_have_passed() -> None:
    started = scaling.scaling_started(COOLED, NOW + timedelta(minutes=60))
    assert started[scaling.SCALING_DEADLINE] == "2026-01-01T13:00:00"
    for later in (timedelta(0), timedelta(minutes=60) + scaling.STALE_GRACE):
        assert scaling.blocked_reason(started, 0, NOW + later) == scaling.SCALING_ACTIVITY
    after = NOW + timedelta(minutes=60) + scaling.STALE_GRACE + timedelta(seconds=1)
    assert scaling.abandoned(started, after)
    assert scaling.blocked_reason(started, 0, after) is None
    assert scaling.blocked_reason(started, 7200, after) is None  # its cooldown has passed


def test_without_a_deadline_a_scaling_blocks_as_in_heat() -> None:
    started = scaling.scaling_started(COOLED)
    assert scaling.SCALING_DEADLINE not in started
    assert scaling.blocked_reason(started, 0, NOW + timedelta(days=30)) == \
        scaling.SCALING_ACTIVITY
    garbled = {**started, scaling.SCALING_DEADLINE: "not a time"}
    assert not scaling.abandoned(garbled, NOW + timedelta(days=30))


def test_the_deadline_is_gone_once_the_scaling_ends_or_is_reset() -> None:
    started = scaling.scaling_started(COOLED, NOW)
    finished = scaling.scaling_finished(started, 60, "change_in_capacity : 1", NOW)
    assert set(finished) == {scaling.COOLDOWN_END, scaling.IN_PROGRESS}
    assert scaling.reset(started) == {**COOLED, scaling.IN_PROGRESS: False}
    restarted = scaling.scaling_started(started)
    assert scaling.SCALING_DEADLINE not in restarted


def test_an_abandoned_scaling_with_legacy_metadata_counts_the_old_cooldown() -> None:
    legacy = {"2026-01-01T11:59:30": "ChangeInCapacity : 1", scaling.IN_PROGRESS: True,
              scaling.SCALING_DEADLINE: "2026-01-01T10:00:00"}
    assert scaling.blocked_reason(legacy, 60, NOW) == "due to cooldown, cooldown 60"
    assert scaling.blocked_reason(legacy, 10, NOW) is None


class FakeSignal:
    """A SignalApplication writing into the group's fake metadata, as the engine's
    context writes the row and the applied mark together."""

    def __init__(self, deadline: datetime) -> None:
        self.signal_deadline = deadline
        self.written: list[str] = []

    def metadata_update_applying_signal(
            self, resource: Resource,
            change: Callable[[dict[str, Any], str], Mapping[str, Any]]) -> dict[str, Any]:
        ctx = _ctx(resource)  # type: ignore[arg-type]
        ctx.metadata = dict(change(dict(ctx.metadata), ctx.status))
        self.written.append(resource.name)
        return ctx.metadata


def test_adjust_starts_the_scaling_through_the_signal_with_its_deadline() -> None:
    group, child = _created({"cooldown": 0})
    signal = FakeSignal(datetime(2026, 1, 1, 1, 0, 0))
    work = group.adjust(1, signal=signal)
    assert signal.written == ["asg"]
    assert _ctx(group).metadata[scaling.SCALING_DEADLINE] == "2026-01-01T01:00:00"
    assert len(child.current["resources"]) == 4
    with pytest.raises(NoActionRequired, match="due to scaling activity"):
        group.adjust(1, signal=FakeSignal(datetime(2026, 1, 1, 1, 0, 0)))
    work.finish(None)
    assert _ctx(group).metadata[scaling.IN_PROGRESS] is False
    assert scaling.SCALING_DEADLINE not in _ctx(group).metadata


def test_a_refused_scaling_writes_nothing_through_the_signal() -> None:
    group, _child = _created()  # in its 60 s cooldown
    before = dict(_ctx(group).metadata)
    signal = FakeSignal(datetime(2026, 1, 1, 1, 0, 0))
    with pytest.raises(NoActionRequired, match="cooldown"):
        group.adjust(1, signal=signal)
    assert _ctx(group).metadata == before
    assert signal.written == []
