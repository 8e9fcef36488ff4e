"""Which rows a node may start from without reading, and which it leaves for the next.

The rules of row_memory.py applied to a node: a held row serves only a node whose
plugin touches nothing outside the database, and a node that settled a row keeps
it for the row's next node (an update's cleanup), now or later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.worker.node_work import NodeWork
from hotplate.model.ids import ResourceId, TraversalId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Status

Loaded = tuple[ResourceRecord, StackRecord]


def start_from(deps: EngineDeps, resource_id: ResourceId, traversal_id: TraversalId,
               is_update: bool, loaded: Loaded | None) -> Loaded | None:
    """What the node starts from without reading: ``loaded`` (read with its batch),
    else the row and stack held for it if its plugin is ``local_only``; None to read.
    What is held for the node is used up either way."""
    held = deps.row_memory.take(resource_id, traversal_id, is_update)
    if loaded is not None or held is None:
        return loaded
    return held if local_only(deps, *held) else None


def local_only(deps: EngineDeps, row: ResourceRecord, stack: StackRecord) -> bool:
    """Whether the node's plugin touches nothing outside the database (``local_only``):
    a decision from a held row that another engine made stale then costs only
    database writes that its compare-and-swap or its sync point refuses, never a
    cloud call of a traversal that was superseded meanwhile."""
    try:
        loaded = deps.caches.template(stack.raw_template_id)
        defn = loaded.template.resources.get(row.name)
        type_name = defn.type if defn is not None else row.resource_type
        cls = deps.types.for_resource(loaded.env, row.name, type_name, loaded.files)
    except Exception:  # read, and let the node decide as it would have
        return False
    return bool(getattr(cls, "local_only", False))


def keep_for_next(deps: EngineDeps, work: NodeWork, row: ResourceRecord,
                  ready: Sequence[tuple[ResourceId, bool, Mapping[str, Any] | None]]) -> None:
    """The row as this node just wrote it is the fresh start of the row's next node
    (an update's cleanup), made ready now or later: kept for it, so it reads nothing."""
    kept = [(row, is_update) for rid, is_update, _ in ready if rid == row.id]
    if _cleanup_follows(deps, work, row):
        kept.append((row, False))
    deps.row_memory.remember(work.traversal_id, kept, work.stack)


def _cleanup_follows(deps: EngineDeps, work: NodeWork, row: ResourceRecord) -> bool:
    """Whether the row's cleanup node is still to come in the traversal and will
    only find the row as its update node left it: at the traversal's template."""
    if not work.is_update or row.replaced_by is not None or row.replaces is not None:
        return False
    if row.current_template_id != work.template_id or row.status is not Status.COMPLETE:
        return False
    graph = deps.caches.graph(work.stack.id, work.traversal_id).graph
    return NodeKey(row.id, False) in graph.nodes
