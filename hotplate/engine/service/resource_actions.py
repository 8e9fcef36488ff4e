"""What a user may do to one resource outside a traversal: mark it (un)healthy, signal it.

Mark unhealthy (Heat's ``resource_mark_unhealthy``)::

    mark_unhealthy  current state      result
    true            DELETE_*           nothing
    true            anything else      CHECK_FAILED, the reason, an event
    false           CHECK_FAILED       CHECK_COMPLETE, the reason, an event
    false           anything else      nothing

The change is a compare-and-swap on the unlocked row: a resource a worker
holds (an action in progress) answers 409, as Heat's resource lock does.

Marking a resource healthy again also resets what its type keeps in its
metadata about work in progress (Heat's ``handle_metadata_reset``: a
scaling group whose engine died while it scaled would otherwise never scale
again), in the same write.

Signals (SPEC.md 5.2): a resource in SUSPEND or DELETE refuses them (with
an event, as Heat records one). ``{"unset_hook": "<hook>"}`` clears a hook
the resource is paused at (``breakpoints.clear_hook``: the paused node is
woken, wherever it is parked), at once and even while a worker holds the resource. Any
other signal goes to the plugin's ``handle_signal``; a plugin without one
answers Heat's 400. What happens to it then, stored before the caller is
answered, applied once and re-driven if its engine dies, is
engine/worker/signal_delivery.py. The handler runs in the stack's own
context (its project, its resources), never the caller's: a signal token
may do nothing but signal.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.errors import (
    Invalid,
    PhysicalResourceIDAmbiguity,
    ResourceActionNotSupported,
    ResourceNotFound,
)
from hotplate.engine.events import resource_event
from hotplate.engine.hosting.row_plugins import row_class
from hotplate.engine.worker.breakpoints import clear_hook
from hotplate.engine.worker.signal_delivery import (
    NO_SIGNAL_ACTIONS,
    deliver,
    signal_reason,
)
from hotplate.model.errors import ActionInProgress, NotSupported
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

LOG = logging.getLogger(__name__)

__all__ = ["find_resource", "mark_unhealthy", "signal", "signal_reason"]

DEFAULT_HEALTH_REASON = "state changed by resource_mark_unhealthy api"


def find_resource(rows: Mapping[str, ResourceRecord], name_or_physical_id: str,
                  stack: StackRecord) -> ResourceRecord:
    """A resource of the stack by name, else by physical id (Heat's lookup).

    Raises:
        ResourceNotFound: neither matches.
        PhysicalResourceIDAmbiguity: several resources share that physical id.
    """
    row = rows.get(name_or_physical_id)
    if row is not None:
        return row
    matches = [r for r in rows.values() if r.physical_resource_id == name_or_physical_id]
    if len(matches) > 1:
        raise PhysicalResourceIDAmbiguity(name_or_physical_id)
    if matches:
        return matches[0]
    raise ResourceNotFound(name_or_physical_id, stack.name)


def mark_unhealthy(deps: EngineDeps, stack: StackRecord, row: ResourceRecord,
                   mark: Any, reason: str | None) -> None:
    """Heat's health switch (see the module's table).

    Raises:
        Invalid: ``mark`` is not a boolean.
        ActionInProgress: a worker holds the resource (409).
    """
    if not isinstance(mark, bool):
        raise Invalid("mark_unhealthy is not a boolean")
    reason = reason or DEFAULT_HEALTH_REASON
    if row.engine_id is not None:
        raise ActionInProgress(stack.name, str(stack.action))
    state = (row.action, row.status)
    if mark and row.action is not Action.DELETE:
        target = (Action.CHECK, Status.FAILED)
    elif not mark and state == (Action.CHECK, Status.FAILED):
        target = (Action.CHECK, Status.COMPLETE)
    else:
        return
    action, status = target
    event = None if target == state else resource_event(deps, row, action, status, reason)
    values: dict[str, Any] = {"action": action, "status": status, "status_reason": reason}
    if target == (Action.CHECK, Status.COMPLETE):
        reset = _metadata_reset(deps, row)
        if reset is not None:
            values["metadata"] = reset
    if deps.store.update_resource_if_unlocked(row.id, row.atomic_key, values, event) is None:
        raise ActionInProgress(stack.name, str(stack.action))


def _metadata_reset(deps: EngineDeps, row: ResourceRecord) -> dict[str, Any] | None:
    """The row's metadata with its type's work-in-progress marks cleared; None: unchanged."""
    try:
        reset = getattr(row_class(deps, row), "reset_metadata", None)
    except Exception:  # its type is gone: nothing of its own to reset
        return None
    return reset(row.metadata or {}) if callable(reset) else None


def signal(deps: EngineDeps, stack: StackRecord, row: ResourceRecord, details: Any, *,
           sync_call: bool = False) -> None:
    """Deliver a signal to a resource (see the module's docstring).

    The checks answer at once; the handler runs in a thread of this engine,
    or before returning with ``sync_call``.

    Raises:
        NotSupported: the resource is being suspended or deleted.
        InvalidBreakPointHook: ``unset_hook`` names a hook that is unknown or
            not pending on this resource.
        ResourceActionNotSupported: the plugin takes no signals.
        Invalid: with ``sync_call``, the handler refused the details.
        ResourceFailure: with ``sync_call``, the handler failed otherwise.
    """
    if row.action in NO_SIGNAL_ACTIONS:
        deps.store.add_event(resource_event(deps, row, str(row.action), str(row.status),
                                       f"Cannot signal resource during {row.action}"))
        raise NotSupported(f"Signal resource during {row.action} is not supported.")
    if isinstance(details, Mapping) and "unset_hook" in details:
        clear_hook(deps, stack, row, details["unset_hook"])
        return
    loaded = deps.caches.template(stack.raw_template_id)
    cls = deps.types.for_resource(loaded.env, row.name, row.resource_type, loaded.files)
    if not callable(getattr(cls, "handle_signal", None)):
        raise ResourceActionNotSupported("signal")
    deliver(deps, stack, row, cls, details, sync=sync_call)
