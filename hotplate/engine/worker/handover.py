"""Handing a node over to the stack's newer traversal.

A node of a superseded traversal (a newer request swapped the stack's traversal
id) does not act: it pokes the node of the same row in the current traversal,
which runs once its own predecessors reported (its sync point READY).
"""

from __future__ import annotations

import logging

from hotplate.convergence.propagation import retrigger_key
from hotplate.engine.deps import EngineDeps
from hotplate.model.ids import NO_TRAVERSAL, ResourceId, TraversalId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import ResourceRecord, StackRecord, SyncOutcome
from hotplate.model.states import Action

LOG = logging.getLogger(__name__)


def retrigger_replaced(deps: EngineDeps, row: ResourceRecord, stack: StackRecord,
                       is_update: bool) -> None:
    """A message of a superseded traversal: poke our node in the current one."""
    if stack.current_traversal == NO_TRAVERSAL:
        return
    graph = deps.caches.graph(stack.id, stack.current_traversal).graph
    resource_id = row.id
    if NodeKey(row.id, is_update) not in graph.nodes and row.replaces is not None:
        # A replacement the new traversal does not want: let purge remove it,
        # and poke the row it replaced instead.
        deps.store.update_resource_if_unlocked(
            row.id, row.atomic_key, {"action": Action.DELETE}
        )
        resource_id = row.replaces
    retrigger(deps, stack, resource_id, is_update)


def retrigger_new_traversal(deps: EngineDeps, stack: StackRecord, traversal_id: TraversalId,
                            resource_id: ResourceId, is_update: bool) -> None:
    """Poke the node in the stack's current traversal, if one newer than ours runs."""
    latest = deps.store.get_stack(stack.id)
    if latest is not None and latest.current_traversal not in (traversal_id, NO_TRAVERSAL):
        retrigger(deps, latest, resource_id, is_update)


def retrigger(deps: EngineDeps, stack: StackRecord, resource_id: ResourceId,
              is_update: bool) -> None:
    """Send the row's node of ``stack``'s current traversal again, if it is ready."""
    if stack.current_traversal == NO_TRAVERSAL:
        return
    graph = deps.caches.graph(stack.id, stack.current_traversal).graph
    key = retrigger_key(graph, resource_id, is_update)
    if key not in graph.nodes:
        return
    state = deps.store.sync_state(
        stack.current_traversal, str(key.resource_id), key.is_update
    )
    if state.outcome is SyncOutcome.READY:
        LOG.info("re-trigger %s in traversal %s", key, stack.current_traversal)
        deps.cast_check_resource(key.resource_id, stack.current_traversal,
                                 key.is_update, inputs=state.inputs)
