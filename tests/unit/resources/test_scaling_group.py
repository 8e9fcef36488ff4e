"""OS::Heat::AutoScalingGroup and OS::Heat::ScalingPolicy over a fake child stack.

The child "converges" as soon as it is given a template, each new member
made at the fake clock's time, so the tests see what Heat's group decides:
which members a resize keeps, which a rolling update renews, what each
attribute answers by position, and what the metadata says about cooldown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import InvalidTemplateAttribute
from hotplate.resources.autoscaling_group import AutoScalingGroup
from hotplate.resources.base import Resource
from hotplate.resources.member_group import MemberNotFound
from hotplate.resources.nested import ChildMember, ChildState
from hotplate.resources.scaling_policy import ScalingGroupNotFound, ScalingPolicy
from hotplate.resources.signals import NoActionRequired, SignalWork
from tests.unit.resources.fakes import FakeClock, FakeContext

CHILD = "child-stack-id"
MEMBER = {"type": "OS::Heat::RandomString", "properties": {"length": 8}}


@dataclass
class FakeChild:
    """NestedStacks over one child that converges at once."""

    clock: FakeClock
    current: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, ChildMember] = field(default_factory=dict)
    applied: list[dict[str, Any]] = field(default_factory=list)
    action: str = "CREATE"

    def _converge(self, template: Mapping[str, Any]) -> None:
        self.current = dict(template)
        self.applied.append(self.current)
        wanted = template.get("resources") or {}
        self.rows = {name: self.rows.get(name) or ChildMember(
            name, defn["type"], "CREATE", "COMPLETE", f"ref-{name}", self.clock.now())
            for name, defn in wanted.items()}

    def create(self, name: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any], *, owned: bool = True) -> str:
        assert isinstance(template, Mapping)
        self._converge(template)
        return CHILD

    def update(self, stack_id: str, template: Mapping[str, Any] | str,
               parameters: Mapping[str, Any], *, outside_traversal: bool = False) -> None:
        assert isinstance(template, Mapping)
        self.action = "UPDATE"
        self._converge(template)

    def state(self, stack_id: str) -> ChildState:
        return ChildState(self.action, "COMPLETE", "")

    def template(self, stack_id: str) -> dict[str, Any]:
        return self.current

    def template_of(self, name: str) -> Any:
        return self.current["resources"][name]

    def members(self, stack_id: str) -> list[ChildMember]:
        return list(self.rows.values())

    def member_attribute(self, stack_id: str, name: str, attribute: str) -> Any:
        return {"value": f"value-{name}", "deep": {"key": name}}.get(attribute)

    def fail(self, name: str) -> None:
        row = self.rows[name]
        self.rows[name] = ChildMember(row.name, row.type, row.action, "FAILED",
                                      row.reference_id, row.created_at)


class ScalingContext(FakeContext):
    """A plugin context with a child stack, row metadata and peers."""

    def __init__(self, child: FakeChild, **kwargs: Any) -> None:
        super().__init__(clock=child.clock, **kwargs)
        self.child = child
        self.metadata: dict[str, Any] = {}
        self.status = "COMPLETE"
        self.cleared = 0
        self.peer: Resource | None = None

    def nested_stacks(self) -> FakeChild:
        return self.child

    def metadata_get(self) -> dict[str, Any]:
        return dict(self.metadata)

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None:
        self.metadata = dict(change(dict(self.metadata), self.status))
        return self.metadata

    def clear_stored_attributes(self) -> None:
        self.cleared += 1

    def resource_by_reference(self, reference: str) -> Resource | None:
        return self.peer if reference == CHILD else None


def _group(props: Mapping[str, Any] | None = None, *, clock: FakeClock | None = None
           ) -> tuple[AutoScalingGroup, FakeChild]:
    child = FakeChild(clock or FakeClock())
    raw = {"min_size": 1, "max_size": 5, "desired_capacity": 3, "cooldown": 60,
           "resource": MEMBER, **(props or {})}
    props = AutoScalingGroup.validate(raw, ("resources", "asg", "properties"))
    group = AutoScalingGroup("asg", props, ScalingContext(child, resource_name="asg"))
    return group, child


def _created(props: Mapping[str, Any] | None = None) -> tuple[AutoScalingGroup, FakeChild]:
    group, child = _group(props)
    steps = group.handle_create()
    assert group.check_create_complete(steps)
    return group, child


def _ctx(group: AutoScalingGroup) -> ScalingContext:
    assert isinstance(group.ctx, ScalingContext)
    return group.ctx


def _scale(group: AutoScalingGroup, adjustment: int, kind: str = "change_in_capacity",
           cooldown: float | None = None) -> None:
    work = group.adjust(adjustment, kind, None, cooldown)
    assert work.check()
    work.finish(None)


# -- validation ---------------------------------------------------------------------------
@pytest.mark.parametrize(("props", "message"), [
    ({"min_size": 3, "max_size": 2, "desired_capacity": None},
     "MinSize can not be greater than MaxSize"),
    ({"desired_capacity": 9}, "DesiredCapacity must be between MinSize and MaxSize"),
    ({"desired_capacity": 0}, "DesiredCapacity must be between MinSize and MaxSize"),
    ({"min_size": -1}, "resources.asg.properties.min_size: -1 is out of range"),
])
def test_sizes_are_checked_as_heat(props: dict[str, Any], message: str) -> None:
    with pytest.raises(StackValidationFailed) as caught:
        _group(props)
    assert str(caught.value).startswith(message)


def test_min_adjustment_step_only_with_a_percentage() -> None:
    raw = {"auto_scaling_group_id": "g", "scaling_adjustment": 1,
           "adjustment_type": "change_in_capacity", "min_adjustment_step": 1}
    with pytest.raises(StackValidationFailed) as caught:
        ScalingPolicy.validate(raw, ("resources", "p", "properties"))
    assert str(caught.value) == ("min_adjustment_step property should only be specified for "
                                 "adjustment_type with value percent_change_in_capacity.")
    raw["adjustment_type"] = "percent_change_in_capacity"
    assert ScalingPolicy.validate(raw, ("resources", "p", "properties"))[
        "min_adjustment_step"] == 1


def test_a_group_validates_with_one_member_whatever_its_size() -> None:
    template = AutoScalingGroup.validation_template(
        {"min_size": 0, "max_size": 0, "resource": MEMBER})
    assert template is not None
    (name, definition), = template["resources"].items()
    assert len(name) == 12 and definition == MEMBER


# -- create and resize ------------------------------------------------------------------
def test_create_makes_desired_capacity_members_and_starts_the_cooldown() -> None:
    group, child = _created()
    names = list(child.current["resources"])
    assert len(names) == 3 and all(len(n) == 12 for n in names)
    assert all(child.template_of(n) == MEMBER for n in names)
    end = "2026-01-01T00:01:00"
    assert _ctx(group).metadata == {"cooldown_end": {end: "ExactCapacity : 3"},
                                    "scaling_in_progress": False}


def test_create_without_desired_capacity_makes_min_size() -> None:
    _, child = _created({"desired_capacity": None, "min_size": 2})
    assert len(child.current["resources"]) == 2


def test_adjust_keeps_the_members_and_drops_the_oldest() -> None:
    group, child = _created({"cooldown": 0})
    first = sorted(child.current["resources"])
    child.clock.advance(5)
    _scale(group, 2)
    assert len(child.current["resources"]) == 5
    newer = set(child.current["resources"]) - set(first)
    child.clock.advance(5)
    _scale(group, -2)
    assert set(child.current["resources"]) == {*first[2:], *newer}  # the oldest two gone
    assert _ctx(group).metadata["cooldown_end"] == {"2026-01-01T00:00:10":
                                                    "change_in_capacity : -2"}
    assert _ctx(group).cleared == 3  # the create, and each resize


def test_a_resize_stays_within_the_bounds_or_is_not_done() -> None:
    group, child = _created({"cooldown": 0})
    _scale(group, 10)
    assert len(child.current["resources"]) == 5
    before = dict(_ctx(group).metadata)
    with pytest.raises(NoActionRequired):
        group.adjust(1, "change_in_capacity")
    assert _ctx(group).metadata == before
    _scale(group, -50, "percent_change_in_capacity")
    assert len(child.current["resources"]) == 3  # -2.5 rounds towards zero


def test_cooldown_and_scaling_in_progress_refuse_a_resize() -> None:
    group, child = _created()
    with pytest.raises(NoActionRequired, match="asg could not perform scaling action: due "
                                               "to cooldown, cooldown 60"):
        group.adjust(1)
    child.clock.advance(61)
    work = group.adjust(1)
    assert _ctx(group).metadata["scaling_in_progress"] is True
    with pytest.raises(NoActionRequired, match="due to scaling activity"):
        group.adjust(1)
    assert work.check()
    work.finish(None)
    assert _ctx(group).metadata["scaling_in_progress"] is False


def test_a_policy_cooldown_replaces_the_groups() -> None:
    group, child = _created()
    child.clock.advance(61)
    _scale(group, 1, cooldown=5)
    assert list(_ctx(group).metadata["cooldown_end"]) == ["2026-01-01T00:01:06"]


def test_a_group_not_complete_does_not_scale() -> None:
    group, child = _created({"cooldown": 0})
    _ctx(group).status = "FAILED"
    with pytest.raises(NoActionRequired):
        group.adjust(1)
    assert len(child.current["resources"]) == 3


def test_a_failed_resize_starts_no_cooldown() -> None:
    group, child = _created({"cooldown": 0})
    child.clock.advance(30)
    work = group.adjust(1)
    work.finish(RuntimeError("child failed"))
    assert _ctx(group).metadata == {"cooldown_end": {"2026-01-01T00:00:00":
                                                     "ExactCapacity : 3"},
                                    "scaling_in_progress": False}


def test_an_update_resizes_to_desired_capacity_within_the_bounds() -> None:
    group, child = _created({"cooldown": 0})
    names = set(child.current["resources"])
    new = {**group.properties, "desired_capacity": 4}
    steps = group.handle_update(new, {"desired_capacity": 4})
    assert group.check_update_complete(steps)
    assert names < set(child.current["resources"]) and len(child.current["resources"]) == 4
    new = {**new, "desired_capacity": None, "max_size": 2}
    steps = group.handle_update(new, {"desired_capacity": None, "max_size": 2})
    assert group.check_update_complete(steps)
    assert len(child.current["resources"]) == 2
    assert _ctx(group).metadata["cooldown_end"] == {"2026-01-01T00:00:00": "ExactCapacity : 2"}


def test_a_changed_member_rolls_through_the_oldest_first() -> None:
    clock = FakeClock()
    group, child = _group({"cooldown": 0,
                           "rolling_updates": {"max_batch_size": 2, "pause_time": 1}},
                          clock=clock)
    steps = group.handle_create()
    assert group.check_create_complete(steps)
    _oldest, b, c = sorted(child.current["resources"])
    clock.advance(2)
    child.update(CHILD, {"resources": {**child.current["resources"], "extra": MEMBER}}, {})
    changed = {"type": "OS::Heat::RandomString", "properties": {"length": 9}}
    new = {**group.properties, "resource": changed}
    steps = group.handle_update(new, {"resource": changed})
    while not group.check_update_complete(steps):
        clock.advance(1)
    # Heat's batches from 4 members to 3: (3, 2), (3, 1), then the resize (3).
    renewed = [sorted(n for n, d in t["resources"].items() if d == changed)
               for t in child.applied[-3:]]
    assert renewed == [[b, c], sorted([b, c, "extra"]), sorted([b, c, "extra"])]
    assert set(child.current["resources"]) == {b, c, "extra"}  # the oldest went first


# -- attributes -----------------------------------------------------------------------
def test_attributes_read_live_members_by_position() -> None:
    group, child = _created()
    names = sorted(child.current["resources"])  # made together: by name
    child.fail(names[0])
    live = names[1:]
    assert group.get_attribute("current_size") == 2
    assert group.get_attribute_path("current_size", ("ignored",)) == 2
    assert group.get_attribute("refs") == [f"ref-{n}" for n in live]
    assert group.get_attribute("refs_map") == {n: f"ref-{n}" for n in live}
    assert group.get_attribute_path("refs", (0,)) == [f"ref-{n}" for n in live]
    assert group.get_attribute("resource.0") == f"ref-{live[0]}"
    assert group.get_attribute("resource.1.value") == f"value-{live[1]}"
    assert group.get_attribute_path("resource.1", ("deep", "key")) == live[1]
    assert group.get_attribute_path("resource.0.deep", ("key",)) == live[0]
    assert group.get_attribute_path("outputs", ("value",)) == {
        n: f"value-{n}" for n in live}
    assert group.get_attribute_path("outputs_list", ("deep", "key")) == live


@pytest.mark.parametrize("name", ["outputs", "outputs_list", "value"])
def test_outputs_need_a_path_and_unknown_names_fail(name: str) -> None:
    group, _ = _created()
    with pytest.raises(InvalidTemplateAttribute):
        group.get_attribute(name)


def test_a_position_past_the_members_is_heats_error() -> None:
    group, _ = _created()
    with pytest.raises(MemberNotFound, match=re.escape(
            "Member '3' not found in group resource 'asg'.")):
        group.get_attribute("resource.3")
    before, _ = _group()
    assert before.get_attribute("resource.0") is None


# -- the policy -----------------------------------------------------------------------
def _policy(group: AutoScalingGroup | None, **props: Any) -> ScalingPolicy:
    raw = {"auto_scaling_group_id": CHILD, "scaling_adjustment": 1,
           "adjustment_type": "change_in_capacity", **props}
    checked = ScalingPolicy.validate(raw, ("resources", "policy", "properties"))
    ctx = ScalingContext(FakeChild(FakeClock()), resource_name="policy")
    ctx.peer = group
    return ScalingPolicy("policy", checked, ctx)


def test_a_policy_signal_adjusts_its_group() -> None:
    group, child = _created({"cooldown": 0})
    work = _policy(group, scaling_adjustment=2).handle_signal(None)
    assert isinstance(work, SignalWork) and work.check()
    work.finish(None)
    assert len(child.current["resources"]) == 5
    assert _ctx(group).metadata["cooldown_end"] == {"2026-01-01T00:00:00":
                                                    "change_in_capacity : 2"}


def test_a_policy_without_its_group_fails() -> None:
    with pytest.raises(ScalingGroupNotFound,
                       match='Alarm policy could not find scaling group named "child'):
        _policy(None).handle_signal({"current": "ALARM"})
    assert _policy(None).get_attribute("alarm_url") is None

