"""Heat's notification names, priorities and payloads, from a stack record."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from hotplate.engine.notifications import (
    context_of,
    isotime,
    scaling_notification,
    stack_body,
    stack_notification,
)
from hotplate.model.ids import NO_TRAVERSAL, StackId, TemplateId
from hotplate.model.notifications import Priority
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.resources.scaling import ScalingNotice

STACK = StackRecord(
    id=StackId("5f1b6e0e-0000-4000-8000-000000000001"), name="web", project_id="demo",
    raw_template_id=TemplateId(1), action=Action.CREATE, status=Status.IN_PROGRESS,
    status_reason="Stack CREATE started", current_traversal=NO_TRAVERSAL,
    created_at=datetime(2026, 1, 2, 3, 4, 5, 678901), user_id="u-1", username="alice",
    tags=("a", "b"),
)


def test_the_body_has_heats_keys_and_quirks() -> None:
    body = stack_body(replace(STACK, updated_at=datetime(2026, 1, 2, 3, 5, 0)), "A web tier")
    assert body == {
        "tenant_id": "demo",
        "user_id": "alice",  # Heat puts the user *name* here
        "user_identity": "u-1",
        "username": "alice",
        "stack_identity": "5f1b6e0e-0000-4000-8000-000000000001",
        "stack_name": "web",
        "state": "CREATE_IN_PROGRESS",
        "state_reason": "Stack CREATE started",
        "create_at": "2026-01-02T03:04:05Z",
        "tags": ["a", "b"],
        "updated_at": "2026-01-02T03:05:00Z",
        "description": "A web tier",
    }


def test_no_description_and_no_update_time() -> None:
    body = stack_body(replace(STACK, tags=()), None)
    assert "description" not in body
    assert body["updated_at"] is None
    assert body["tags"] == []


@pytest.mark.parametrize(("action", "status", "event_type", "priority"), [
    (Action.CREATE, Status.IN_PROGRESS, "orchestration.stack.create.start", Priority.INFO),
    (Action.CREATE, Status.COMPLETE, "orchestration.stack.create.end", Priority.INFO),
    (Action.CREATE, Status.FAILED, "orchestration.stack.create.error", Priority.ERROR),
    (Action.UPDATE, Status.IN_PROGRESS, "orchestration.stack.update.start", Priority.INFO),
    (Action.ROLLBACK, Status.COMPLETE, "orchestration.stack.rollback.end", Priority.INFO),
    (Action.DELETE, Status.FAILED, "orchestration.stack.delete.error", Priority.ERROR),
    (Action.SUSPEND, Status.COMPLETE, "orchestration.stack.suspend.end", Priority.INFO),
    (Action.RESUME, Status.IN_PROGRESS, "orchestration.stack.resume.start", Priority.INFO),
    (Action.CHECK, Status.FAILED, "orchestration.stack.check.error", Priority.ERROR),
    (Action.ADOPT, Status.COMPLETE, "orchestration.stack.adopt.end", Priority.INFO),
])
def test_event_type_and_priority_follow_the_state(action: Action, status: Status,
                                                  event_type: str, priority: Priority) -> None:
    notification = stack_notification(replace(STACK, action=action, status=status), "d")
    assert (notification.event_type, notification.priority) == (event_type, priority)
    assert notification.payload["state"] == f"{action}_{status}"


def test_the_context_is_the_stack_owners() -> None:
    assert stack_notification(STACK, None).context == context_of(STACK) == {
        "project_id": "demo", "tenant": "demo", "user_id": "u-1", "user": "u-1",
        "username": "alice"}


def test_a_scaling_notice_adds_the_groups_fields_to_its_stacks_body() -> None:
    start = ScalingNotice.started(2, "change_in_capacity", 3, "group-ref")
    notification = scaling_notification(STACK, "d", start)
    assert notification.event_type == "orchestration.autoscaling.start"
    assert notification.priority is Priority.INFO
    assert notification.payload == {
        **stack_body(STACK, "d"), "adjustment_type": "change_in_capacity", "adjustment": 2,
        "capacity": 3, "groupname": "group-ref",
        "message": "Start resizing the group group-ref"}
    end = scaling_notification(STACK, "d", start.ended(5))
    assert end.event_type == "orchestration.autoscaling.end"
    assert (end.payload["capacity"], end.payload["message"]) == (
        5, "End resizing the group group-ref")
    error = scaling_notification(STACK, "d", start.failed(4, RuntimeError("child failed")))
    assert (error.event_type, error.priority) == ("orchestration.autoscaling.error",
                                                  Priority.ERROR)
    assert (error.payload["capacity"], error.payload["message"]) == (4, "child failed")


def test_isotime_is_heats() -> None:
    assert isotime(None) is None
    assert isotime(datetime(2026, 12, 31, 23, 59, 59, 999999)) == "2026-12-31T23:59:59Z"
