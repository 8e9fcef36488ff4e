"""When the engine calls a plugin's replacement hooks (Heat's names and moments).

In convergence a replacement is created before the row it replaces is
deleted, so two physical resources stand side by side for a while. Some
types must hand something over between them (a port its fixed IPs, a server
its ports, a key pair its unique name)::

    moment                                          hook, on the OLD row's plugin
    ──────────────────────────────────────────────  ─────────────────────────────────
    an update finds the row needs a new resource    prepare_for_replace()
      (a property that cannot be updated, a FAILED    just before the replacement row
      row, handle_update raising UpdateReplace)       is made
    the row's type now has another implementation   (none: Heat replaces at once)
    the row is DELETE_COMPLETE                      (none: nothing is left to hand over)
    a ROLLBACK traversal takes back a replaced row  restore_prev_rsrc(convergence=True)
      (stack ROLLBACK_IN_PROGRESS)                    before ``replaced_by`` is cleared
    any other traversal takes a replaced row back   (none)

Either hook failing fails the old row (UPDATE_FAILED, Heat's
``<Error>: resources.<name>: <message>``) and so the traversal; a plugin
that keeps Heat's do-nothing defaults costs the engine nothing (the engine
calls a hook only where the type overrides it, as Heat does).
"""

from __future__ import annotations

from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status

__all__ = ["prepares_for_replace", "restores_previous"]


def prepares_for_replace(action: Action, status: Status, *,
                         implementation_changed: bool) -> bool:
    """Whether a row being replaced is asked to ``prepare_for_replace`` first."""
    if implementation_changed:
        return False
    return (action, status) != (Action.DELETE, Status.COMPLETE)


def restores_previous(stack: StackRecord) -> bool:
    """Whether taking back a replaced row asks it to ``restore_prev_rsrc``: only while
    the stack rolls back (Heat's ``ROLLBACK`` / ``IN_PROGRESS`` test)."""
    return stack.action is Action.ROLLBACK and stack.status is Status.IN_PROGRESS
