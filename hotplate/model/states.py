"""Actions and statuses of stacks and resources, and the legal transitions.

A state is an (action, status) pair, shown to users as ``<ACTION>_<STATUS>``
(``CREATE_IN_PROGRESS``). Heat accepts any transition; we refuse illegal ones,
as a bug (IllegalTransition), never a user's error:

- resources: every state write an operation makes goes through the row
  bookkeeping (engine/worker/row_bookkeeping.py: take the lock, settle, release),
  which checks ``check_resource_transition`` against the row it holds (its
  lock, or the compare-and-swap on its key, makes that row the stored one);
- stacks: the store's traversal compare-and-swap settles only a stack that is
  IN_PROGRESS, in the action it names (db/stacks.py), so a traversal ends once
  even when two engines see it finish; ``check_stack_transition`` states the
  same rule for tests and readers.

Every transition Heat's behaviour needs is allowed below: a takeover leaves a
row IN_PROGRESS for its new holder, a stealer marks it FAILED, an update of a
FAILED row starts a new action, and a new traversal supersedes a running one.

Resource transitions (``*`` = any action)::

    INIT_COMPLETE ──► <A>_IN_PROGRESS ──► <A>_COMPLETE
          ▲                 │  ▲                │
          │                 ▼  │                │
          │            <A>_FAILED ──────────────┘ (a new operation may start
          │                                        from any settled state)
    (a row is born INIT_COMPLETE; DELETE_COMPLETE rows are purged, never reused)

Stack transitions: any settled state (COMPLETE or FAILED) may start a new
action IN_PROGRESS; an IN_PROGRESS state may be replaced by another action's
IN_PROGRESS (a new update, a rollback or a delete supersedes the running
traversal), or settle to COMPLETE/FAILED of the same action.
"""

from enum import StrEnum


class Action(StrEnum):
    INIT = "INIT"
    CREATE = "CREATE"
    DELETE = "DELETE"
    UPDATE = "UPDATE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    ADOPT = "ADOPT"
    SNAPSHOT = "SNAPSHOT"
    CHECK = "CHECK"
    RESTORE = "RESTORE"


class Status(StrEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


ALL_ATTRIBUTES_ACTIONS = frozenset({Action.CREATE, Action.ADOPT, Action.SUSPEND, Action.RESUME,
                                    Action.UPDATE, Action.CHECK, Action.SNAPSHOT})


def answers_all_attributes(action: Action | str, status: Status | str) -> bool:
    """Whether ``get_attr: [name]`` reads the resource's attributes in this state; in any
    other (failed, deleted, never made, rolled back) Heat answers null."""
    return (str(status) in (Status.IN_PROGRESS, Status.COMPLETE)
            and str(action) in ALL_ATTRIBUTES_ACTIONS)


class IllegalTransition(ValueError):
    """A state change that no correct engine would make: a bug, never user error."""


def state_name(action: Action, status: Status) -> str:
    return f"{action}_{status}"


def check_resource_transition(
    old: tuple[Action, Status], new: tuple[Action, Status]
) -> None:
    """Refuse a resource state change that cannot happen.

    - Nothing leaves DELETE_COMPLETE: the row is about to be purged.
    - Nothing goes back to INIT: a row is born INIT_COMPLETE exactly once.
    - An IN_PROGRESS may only settle into the same action (the lock holder
      finishes what it started), or be marked FAILED by a stealer.
    """
    old_action, old_status = old
    new_action, new_status = new
    if old == (Action.DELETE, Status.COMPLETE):
        raise IllegalTransition(f"{state_name(*old)} -> {state_name(*new)}: row is deleted")
    if new_action is Action.INIT:
        raise IllegalTransition(f"{state_name(*old)} -> {state_name(*new)}: INIT is a birth state")
    if (
        old_status is Status.IN_PROGRESS
        and new_status is Status.COMPLETE
        and new_action is not old_action
    ):
        raise IllegalTransition(
            f"{state_name(*old)} -> {state_name(*new)}: completes another action"
        )


def check_stack_transition(old: tuple[Action, Status], new: tuple[Action, Status]) -> None:
    """Refuse a stack state change that cannot happen.

    - A settled status (COMPLETE/FAILED) may only be followed by IN_PROGRESS.
    - An IN_PROGRESS action settles into the same action, or is superseded by
      another IN_PROGRESS (update during update, rollback, delete, cancel).
    - Nothing leaves DELETE_COMPLETE.
    """
    old_action, old_status = old
    new_action, new_status = new
    if old == (Action.DELETE, Status.COMPLETE):
        raise IllegalTransition(f"stack {state_name(*old)} -> {state_name(*new)}")
    if old_status is not Status.IN_PROGRESS and new_status is not Status.IN_PROGRESS:
        raise IllegalTransition(
            f"stack {state_name(*old)} -> {state_name(*new)}: settled twice"
        )
    if (
        old_status is Status.IN_PROGRESS
        and new_status is not Status.IN_PROGRESS
        and new_action is not old_action
    ):
        raise IllegalTransition(
            f"stack {state_name(*old)} -> {state_name(*new)}: settles another action"
        )
