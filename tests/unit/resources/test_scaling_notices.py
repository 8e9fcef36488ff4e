"""What an OS::Heat::AutoScalingGroup reports of a resize, as Heat's adjust does.

Heat sends ``autoscaling.start`` once the cooldown lets the resize go ahead,
then ``autoscaling.end`` with the new size or ``autoscaling.error`` with the
error's text and the size found; a signal the group ignores sends nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.resources.autoscaling_group import AutoScalingGroup
from hotplate.resources.scaling import Phase, ScalingNotice
from hotplate.resources.signals import NoActionRequired
from tests.unit.resources.test_scaling_group import _created, _ctx


def _noticed(group: AutoScalingGroup) -> list[ScalingNotice]:
    notices: list[ScalingNotice] = []
    _ctx(group).notify_scaling = notices.append  # type: ignore[attr-defined]
    return notices


def test_a_resize_sends_start_then_end() -> None:
    group, _ = _created({"cooldown": 0})
    notices = _noticed(group)
    work = group.adjust(2, "change_in_capacity")
    assert [n.phase for n in notices] == [Phase.START]
    assert work.check()
    work.finish(None)
    ref = group.get_reference_id()
    assert notices == [
        ScalingNotice(Phase.START, 2, "change_in_capacity", 3, ref,
                      f"Start resizing the group {ref}"),
        ScalingNotice(Phase.END, 2, "change_in_capacity", 5, ref,
                      f"End resizing the group {ref}"),
    ]


def test_a_resize_that_fails_later_sends_error_with_the_size_found() -> None:
    group, _ = _created({"cooldown": 0})
    notices = _noticed(group)
    work = group.adjust(1)
    work.finish(RuntimeError("child failed"))
    assert [(n.phase, n.capacity, n.message) for n in notices][1:] == [
        (Phase.ERROR, 4, "child failed")]  # the fake child took the new size at once


def test_a_resize_refused_at_once_sends_error(monkeypatch: pytest.MonkeyPatch) -> None:
    group, child = _created({"cooldown": 0})

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no room")

    monkeypatch.setattr(child, "update", refuse)
    notices = _noticed(group)
    with pytest.raises(RuntimeError, match="no room"):
        group.adjust(1)
    assert [(n.phase, n.capacity, n.message) for n in notices] == [
        (Phase.START, 3, f"Start resizing the group {group.get_reference_id()}"),
        (Phase.ERROR, 3, "no room")]


def test_an_ignored_signal_sends_nothing() -> None:
    group, _ = _created()  # in its 60 s cooldown
    notices = _noticed(group)
    with pytest.raises(NoActionRequired):
        group.adjust(1)
    with pytest.raises(NoActionRequired):
        group.adjust(0)  # no change in capacity
    assert notices == []


def test_without_a_notice_port_a_resize_still_works() -> None:
    group, child = _created({"cooldown": 0})
    assert getattr(_ctx(group), "notify_scaling", None) is None
    work = group.adjust(1)
    assert work.check()
    work.finish(None)
    assert len(child.current["resources"]) == 4
