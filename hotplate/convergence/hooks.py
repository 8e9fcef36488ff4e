"""Breakpoint hooks: which hook a resource action stops at, and the texts users see.

An environment's ``resource_registry`` can set hooks on resources by name
(``hooks: [pre-create, post-update]``); the resource then pauses there until
a signal ``{"unset_hook": "<hook>"}`` clears it. Heat's rules, which clients
such as ``openstack stack hook poll`` rely on:

* ``pre-create`` and ``post-create`` stop only while the *stack* is being
  created: a resource added by an update, or the new row of a replacement,
  goes straight through;
* ``pre-delete`` and ``post-delete`` likewise only during a stack delete, not
  when an update removes a resource;
* ``pre-update`` and ``post-update`` whenever the resource is updated,
  whether or not anything changes (and during a rollback too).
"""

from __future__ import annotations

from hotplate.model.states import Action
from hotplate.template.environment import HOOK_TYPES

__all__ = ["HOOK_TYPES", "WAIT_FAILED", "cleared_reason", "hook_for", "paused_reason"]

WAIT_FAILED = "Failure occurred while waiting."


def hook_for(stage: str, action: Action, stack_action: str) -> str | None:
    """The hook (``stage`` "pre" or "post") that ``action`` meets, or None."""
    if action is Action.UPDATE:
        return f"{stage}-update"
    if action in (Action.CREATE, Action.DELETE) and stack_action == action:
        return f"{stage}-{action.lower()}"
    return None


def paused_reason(action: Action | str, hook: str) -> str:
    return f"{action} paused until Hook {hook} is cleared"


def cleared_reason(hook: str) -> str:
    return f"Hook {hook} is cleared"
