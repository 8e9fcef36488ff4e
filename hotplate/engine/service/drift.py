"""``stack_drift``: each resource's live state against its template, on the engine topic.

Not one of Heat's calls: Heat's ``stack check`` asks each plugin's
``handle_check`` and stays exactly that (stack_actions.py). This one only reads:
for each current resource of the stack, its plugin's ``get_live_state`` (one
or two GETs of its cloud object), compared by ``convergence.drift`` with the
properties the template resolved to when the resource was last created or
updated (the row's stored properties: what the template says, as applied).

Nothing is written and no resource is locked, so a drift may run during an
action; it then reports what it saw. A resource whose live state cannot be
read is reported so (UNKNOWN, the reason naming it), the others still are.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.convergence.drift import (
    DriftStatus,
    ResourceDrift,
    compare_resource,
    drift_report,
)
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.row_plugins import row_class, row_instance
from hotplate.engine.service.lookups import StackLookups
from hotplate.model.errors import EntityNotFound
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

__all__ = ["DriftMethods", "resource_drift"]

LOG = logging.getLogger(__name__)


class DriftMethods(StackLookups):
    DRIFT_METHODS = frozenset({"stack_drift"})

    def stack_drift(self, ctxt: Mapping[str, Any], stack_identity: Any) -> dict[str, Any]:
        """Where the stack's resources differ from its template, property by property.

        Returns ``{"resources": [each resource's verdict], "differences":
        [{resource, type, property, expected, actual}]}`` (convergence/drift.py).

        Raises:
            EntityNotFound: no such stack (404).
        """
        stack = self._get_stack(ctxt, stack_identity)
        rows = self._current_rows(stack)
        return drift_report(resource_drift(self._deps, stack, row)
                            for _, row in sorted(rows.items()))


_NOT_MADE = frozenset({(Action.INIT, Status.COMPLETE), (Action.CREATE, Status.FAILED),
                       (Action.CREATE, Status.IN_PROGRESS), (Action.DELETE, Status.COMPLETE)})
"""Row states in which there is no cloud object to read (yet, or any more)."""


def resource_drift(deps: EngineDeps, stack: StackRecord, row: ResourceRecord) -> ResourceDrift:
    """One row's verdict (the statuses of convergence/drift.py)."""
    def verdict(status: DriftStatus, reason: str = "") -> ResourceDrift:
        return ResourceDrift(row.name, row.resource_type, row.physical_resource_id, status,
                             reason=reason)

    try:
        cls = row_class(deps, row)
    except Exception as exc:
        return verdict(DriftStatus.UNKNOWN, _unreadable(row, exc))
    if not cls.live_state:
        return verdict(DriftStatus.NOT_CHECKED, f"{row.resource_type} has no live state")
    if row.physical_resource_id is None or (row.action, row.status) in _NOT_MADE:
        return verdict(DriftStatus.NOT_CHECKED, "no physical resource")
    expected = row.properties_data or {}
    try:
        live = row_instance(deps, row, stack, cls).get_live_state(expected)
    except EntityNotFound:
        return verdict(DriftStatus.DELETED,
                       f"{row.resource_type} {row.physical_resource_id} no longer exists")
    except Exception as exc:
        LOG.info("stack %s: live state of %s not read", stack.id, row.name, exc_info=True)
        return verdict(DriftStatus.UNKNOWN, _unreadable(row, exc))
    return compare_resource(row.name, row.resource_type, row.physical_resource_id, expected,
                            live, cls.free_form_properties())


def _unreadable(row: ResourceRecord, exc: Exception) -> str:
    return f"The live state of resource {row.name} could not be read: {exc}"
