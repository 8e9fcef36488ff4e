"""Actions an environment forbids a resource: ``restricted_actions`` in its registry.

::

    resource_registry:
      resources:
        db: {restricted_actions: [update, replace]}

An update of ``db`` that would change it in place fails when ``update`` is
restricted; one that needs a new resource (a property that cannot be
updated, a new implementation, a failed or deleted row) fails when
``replace`` is. Either way, as in Heat, the resource keeps its state: only
an UPDATE_FAILED event with ``<action> is restricted for resource.`` is
written, and the stack's update fails.
"""

from __future__ import annotations

from collections.abc import Collection

from hotplate.convergence.update_diff import UpdateKind

UPDATE = "update"
REPLACE = "replace"

_BLOCKING = {UpdateKind.IN_PLACE: UPDATE, UpdateKind.REPLACE: REPLACE}


def restricted_text(action: str) -> str:
    """Heat's ResourceActionRestricted message, the text of the event."""
    return f"{action} is restricted for resource."


def blocked_action(kind: UpdateKind, restricted: Collection[str]) -> str | None:
    """The restricted action an update of ``kind`` would need, or None if it may go on."""
    action = _BLOCKING.get(kind)
    return action if action is not None and action in restricted else None
