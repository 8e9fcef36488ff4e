"""Sending Heat's notifications once a state change has been written.

Each call site sits right after a compare-and-swap it won, so a notification
goes out after the write commits and once per transition: the loser of a
race wrote nothing and says nothing. With no notifier configured (the
embedded default) each call is one attribute test and nothing is built.

A notification is a courtesy to other systems: the stack's state is already
written, so a notifier that fails is logged and never fails the stack.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.notifications import scaling_notification, stack_notification
from hotplate.model.records import StackRecord
from hotplate.resources.scaling import ScalingNotice

__all__ = ["scaling_changed", "stack_changed"]

LOG = logging.getLogger(__name__)

_SHOWN = frozenset({"action", "status", "status_reason", "raw_template_id", "updated_at",
                    "deleted_at"})
"""The written values a notification's payload reflects."""


def stack_changed(deps: EngineDeps, stack: StackRecord, values: Mapping[str, Any]) -> None:
    """Tell of the state just written: ``stack`` as read before, ``values`` as written.

    The store stamps ``updated_at`` with its own now unless given; the
    engine's clock stands in for it (the payload shows whole seconds).
    """
    notifier = deps.notifier
    if notifier is None:
        return
    try:
        changed = {key: value for key, value in values.items() if key in _SHOWN}
        changed.setdefault("updated_at", deps.clock.now())
        now = replace(stack, **changed)
        notifier.send(stack_notification(now, _description(deps, now)))
    except Exception:
        LOG.exception("stack %s: could not send its %s_%s notification", stack.id,
                      values.get("action", stack.action), values.get("status"))


def scaling_changed(deps: EngineDeps, stack: StackRecord, notice: ScalingNotice) -> None:
    """Tell of a group's scaling action; ``stack`` is the stack the group is in."""
    notifier = deps.notifier
    if notifier is None:
        return
    try:
        notifier.send(scaling_notification(stack, _description(deps, stack), notice))
    except Exception:
        LOG.exception("stack %s: could not send group %s's autoscaling.%s notification",
                      stack.id, notice.groupname, notice.phase)


def _description(deps: EngineDeps, stack: StackRecord) -> str | None:
    """The template's description, as Heat's body carries it; None if it is gone."""
    try:
        return deps.caches.template(stack.raw_template_id).template.description
    except Exception:
        LOG.debug("stack %s: template %s not found for its notification", stack.id,
                  stack.raw_template_id, exc_info=True)
        return None
