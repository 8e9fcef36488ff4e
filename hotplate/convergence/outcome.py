"""How a traversal ends: texts, and whether a failure rolls back.

Status reasons are Heat's (SPEC.md § 7), so clients and scripts that match
on them keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

from hotplate.model.states import Action

ROLLBACK_ACTIONS = frozenset({Action.CREATE, Action.ADOPT, Action.UPDATE, Action.RESTORE})


def started_reason(action: Action) -> str:
    return f"Stack {action} started"


def completed_reason(action: Action) -> str:
    return f"Stack {action} completed successfully"


def cancelled_reason(action: Action) -> str:
    return f"Stack {action} cancelled"


LEGACY_CANCELLED = "Operation cancelled"
"""The legacy engine's cancel (Heat's ForcedCancel, raised in the operation's task)."""
UPDATE_TASK_ACTIONS = frozenset({Action.UPDATE, Action.ROLLBACK, Action.RESTORE})
"""Actions Heat's legacy engine runs as an update, which fails with the cancel's own
text; the others fail as a resource of theirs would."""


def legacy_cancelled_reason(action: Action) -> str:
    """A legacy stack's text for a cancel without rollback: Heat's update task keeps the
    exception's text, its create (and other stack tasks) wrap it as a resource's."""
    if action in UPDATE_TASK_ACTIONS:
        return LEGACY_CANCELLED
    return resource_failed_reason(action, LEGACY_CANCELLED)


def resource_failed_reason(action: Action | str, error: str) -> str:
    return f"Resource {action} failed: {error}"


TIMED_OUT = "Timed out"
STATE_CHANGED = "state changed"


def worker_went_down(action: Action | str) -> str:
    return f"Worker went down during resource {action}"


def aborted(action: Action | str, why: str = "") -> str:
    return f"{action} aborted ({why})" if why else f"{action} aborted"


def task_timed_out(action: Action | str, class_name: str, name: str,
                   physical_id: str | None, stack_name: str, stack_id: str) -> str:
    """Heat's text for a resource action still running at the stack's deadline: its
    task (the resource's method for the action, on the resource as Heat prints it)
    followed by ``Timed out``; the resource's reason is ``aborted`` around it."""
    target = f'{class_name} "{name}"'
    if physical_id is not None:
        target += f" [{physical_id}]"
    return f'Task {str(action).lower()} from {target} Stack "{stack_name}" [{stack_id}] Timed out'


@dataclass(frozen=True, slots=True)
class FailureOutcome:
    """After a stack is marked FAILED: roll back, or tidy up and stop."""

    rollback: bool


def on_stack_failure(action: Action, disable_rollback: bool) -> FailureOutcome:
    return FailureOutcome(rollback=not disable_rollback and action in ROLLBACK_ACTIONS)
