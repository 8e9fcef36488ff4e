"""Pausing a resource at a hook until a signal clears it (rules: convergence/hooks.py).

A pending hook is the resource data key named after it with the value
"True", as Heat stores it, so clearing it is deleting that key. The paused
worker polls the key through the ActionRunner: a cancel (the stack being
deleted) or the stack's deadline still stops it, and it gives its work slot
back while it waits, so paused resources never hold up the rest.
"""

from __future__ import annotations

import threading

from hotplate.convergence.hooks import (
    HOOK_TYPES,
    WAIT_FAILED,
    cleared_reason,
    hook_for,
    paused_reason,
)
from hotplate.convergence.node_plan import stack_deadline
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.model.errors import InvalidBreakPointHook
from hotplate.model.ids import TemplateId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action

PENDING = "True"

class Breakpoints:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def hook_set(self, stack: StackRecord, template_id: TemplateId, name: str,
                 action: Action, stage: str) -> str | None:
        """The hook this action meets at ``stage`` if the environment sets it, else None."""
        hook = hook_for(stage, action, stack.action)
        if hook is None:
            return None
        env = self._deps.caches.template(template_id).env
        return hook if hook in env.hooks_for(name) else None

    def hold(self, stack: StackRecord, template_id: TemplateId, row: ResourceRecord,
             action: Action, stage: str, cancelled: threading.Event) -> None:
        """Wait here while the environment sets the ``stage`` hook on this action.

        Raises:
            CancelOperation, ActionTimeout: from the runner; the hook is
                dropped first, with Heat's "Failure occurred while waiting."
        """
        hook = self.hook_set(stack, template_id, row.name, action, stage)
        if hook is None:
            return
        store = self._deps.store
        if store.get_resource_data(row.id).get(hook) != PENDING:  # not a re-delivery
            reason = paused_reason(action, hook)
            event = resource_event(self._deps, row, row.action, row.status, reason)
            store.set_resource_data(row.id, hook, PENDING, event=event)

        def cleared(_: object) -> bool:
            return store.get_resource_data(row.id).get(hook) != PENDING

        try:
            with self._deps.slots.released():
                self._deps.runner.run(None, cleared, deadline=stack_deadline(stack),
                                      cancelled=cancelled)
        except BaseException:
            event = resource_event(self._deps, row, row.action, row.status, WAIT_FAILED)
            store.delete_resource_data(row.id, hook, event=event)
            raise


def clear_hook(deps: EngineDeps, stack: StackRecord, row: ResourceRecord,
               hook: object) -> None:
    """The ``unset_hook`` signal: let a paused resource go on.

    Raises:
        InvalidBreakPointHook: not a hook type, or no such hook is pending.
    """
    if not isinstance(hook, str) or hook not in HOOK_TYPES:
        raise InvalidBreakPointHook(
            f'Invalid hook type "{hook}" for {describe(deps, row, stack)}')
    reason = cleared_reason(hook)
    if not deps.store.delete_resource_data(
            row.id, hook, event=resource_event(deps, row, row.action, row.status, reason)):
        raise InvalidBreakPointHook(
            f'The "{hook}" hook is not defined on {describe(deps, row, stack)}')


def describe(deps: EngineDeps, row: ResourceRecord, stack: StackRecord) -> str:
    """A resource as Heat's messages name it: plugin class, name, physical id, stack."""
    try:
        kind = deps.types.get(row.resource_type).__name__
    except Exception:  # a type no longer installed: its name still says what it was
        kind = row.resource_type
    physical = f" [{row.physical_resource_id}]" if row.physical_resource_id else ""
    return f'{kind} "{row.name}"{physical} Stack "{stack.name}" [{stack.id}]'
