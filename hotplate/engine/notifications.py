"""Heat's notifications from a stack record: names, priorities and payloads (pure).

Heat sends one notification per stack state it writes (``stack.py``
``state_set`` through ``notification/stack.py``) and three per scaling
action of a group (``notification/autoscaling.py``). Consumers such as
Ceilometer key on these, so they are Heat's to the letter::

    status        event_type                                   priority
    IN_PROGRESS   orchestration.stack.<action>.start           INFO
    COMPLETE      orchestration.stack.<action>.end             INFO
    FAILED        orchestration.stack.<action>.error           ERROR
    (scaling)     orchestration.autoscaling.<start|end|error>  INFO, ERROR for error

``<action>`` is the stack's action in lower case (create, update, delete,
rollback, suspend, resume, check, adopt, ...). The payload is Heat's
``format_notification_body``: its quirks kept, ``user_id`` holds the user
*name* and ``user_identity`` the user id; times are ``%Y-%m-%dT%H:%M:%SZ``.
A scaling payload adds the group's fields to its stack's body.

Nothing here reads or sends; ``notify.py`` does, after the state is written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hotplate.model.notifications import Notification, Priority
from hotplate.model.records import StackRecord
from hotplate.model.states import Status
from hotplate.resources.scaling import Phase, ScalingNotice

__all__ = ["SERVICE", "context_of", "isotime", "scaling_notification", "stack_body",
           "stack_notification"]

SERVICE = "orchestration"
"""Heat's service name: the prefix of every event type and of the publisher id."""

_SUFFIXES = {Status.IN_PROGRESS: "start", Status.COMPLETE: "end"}


def isotime(moment: datetime | None) -> str | None:
    """Heat's ``timeutils.isotime``: to the second, with a literal ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment is not None else None


def stack_body(stack: StackRecord, description: str | None) -> dict[str, Any]:
    """Heat's ``format_notification_body``; ``description`` is the template's (None:
    left out, as Heat leaves it out of a stack without a template)."""
    body: dict[str, Any] = {
        "tenant_id": stack.project_id,
        "user_id": stack.username,
        "user_identity": stack.user_id,
        "username": stack.username,
        "stack_identity": str(stack.id),
        "stack_name": stack.name,
        "state": f"{stack.action}_{stack.status}",
        "state_reason": stack.status_reason,
        "create_at": isotime(stack.created_at),
        "tags": list(stack.tags),
        "updated_at": isotime(stack.updated_at),
    }
    if description is not None:
        body["description"] = description
    return body


def context_of(stack: StackRecord) -> dict[str, Any]:
    """The stack owner's request context, in oslo.context's key names (Heat sends the
    context of the request that changed the stack; the record keeps its owner's)."""
    return {"project_id": stack.project_id, "tenant": stack.project_id,
            "user_id": stack.user_id, "user": stack.user_id, "username": stack.username}


def stack_notification(stack: StackRecord, description: str | None) -> Notification:
    """The notification for the state ``stack`` is now in (Heat's ``notification.stack.send``)."""
    suffix = _SUFFIXES.get(stack.status, "error")
    priority = Priority.ERROR if suffix == "error" else Priority.INFO
    return Notification(
        event_type=f"{SERVICE}.stack.{str(stack.action).lower()}.{suffix}",
        priority=priority,
        payload=stack_body(stack, description),
        context=context_of(stack),
    )


def scaling_notification(stack: StackRecord, description: str | None,
                         notice: ScalingNotice) -> Notification:
    """A group's scaling notice, on the body of the stack the group is in (Heat's
    ``notification.autoscaling.send``)."""
    body = stack_body(stack, description)
    body.update(adjustment_type=notice.adjustment_type, adjustment=notice.adjustment,
                capacity=notice.capacity, groupname=notice.groupname, message=notice.message)
    return Notification(
        event_type=f"{SERVICE}.autoscaling.{notice.phase}",
        priority=Priority.ERROR if notice.phase is Phase.ERROR else Priority.INFO,
        payload=body,
        context=context_of(stack),
    )
