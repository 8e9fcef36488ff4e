"""The worker's next step as a value: after each outcome, and for a lock conflict."""

from __future__ import annotations

import dataclasses

import pytest

from hotplate.convergence import outcome
from hotplate.convergence.steps import (
    Aborted,
    Completed,
    Conflict,
    Failed,
    Lost,
    Next,
    Paused,
    Replaced,
    TimedOut,
    after,
    failure_reason,
    resolve_conflict,
)
from hotplate.model.ids import EngineId, ResourceId, StackId, TemplateId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status

ME, OTHER = EngineId("me"), EngineId("other")
T1, T2 = TemplateId(1), TemplateId(2)


def row(**changes: object) -> ResourceRecord:
    base = ResourceRecord(
        id=ResourceId(7), uuid="u", stack_id=StackId("s"), name="r",
        resource_type="OS::Heat::None", action=Action.CREATE, status=Status.COMPLETE,
        status_reason="", physical_resource_id=None, properties_data={}, metadata={},
        engine_id=None, atomic_key=3, requires=(), replaces=None, replaced_by=None,
        current_template_id=T1, root_stack_id=None, attr_data=None, created_at=None,
        updated_at=None)
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize(("result", "step"), [
    (Completed(row()), Next.REPORT),
    (Failed("Resource CREATE failed: x"), Next.FAIL),
    (TimedOut(), Next.FAIL),
    (Aborted("cancelled"), Next.HAND_OVER),
    (Lost(), Next.RESOLVE),
    (Replaced(ResourceId(8)), Next.STOP),
    (Paused(), Next.STOP),
])
def test_each_outcome_names_its_next_step(result, step) -> None:
    assert after(result) is step


def test_failure_reasons() -> None:
    assert failure_reason(Failed("boom")) == "boom"
    assert failure_reason(TimedOut()) == outcome.TIMED_OUT


@pytest.mark.parametrize(("fresh", "alive", "decision"), [
    (None, False, Conflict.NOTHING),
    (row(engine_id=OTHER, current_template_id=T2), True, Conflict.STEP_ASIDE),
    (row(engine_id=OTHER, current_template_id=T1), True, Conflict.PREEMPT),
    (row(engine_id=ME, current_template_id=T2), False, Conflict.STEP_ASIDE),
    (row(engine_id=OTHER), False, Conflict.TAKE_OVER),
    (row(atomic_key=4), False, Conflict.RETRY),
    (row(current_template_id=T2, atomic_key=4), False, Conflict.NOTHING),
])
def test_who_goes_on_with_a_row_we_could_not_lock(fresh, alive, decision) -> None:
    assert resolve_conflict(fresh, me=ME, holder_alive=alive, template_id=T2,
                            planned=row()) is decision
