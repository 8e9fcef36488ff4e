"""Recovery's decisions: what becomes of a dead engine's lock, which nodes stalled,
and the token that makes a retried action the same action.

The shell (engine/worker/recovery.py) reads the rows, the sync points and who is
alive; these functions say what to do with them, so the rules can be tested
without engines, threads or a database.

A node has stalled when it is ready (every predecessor reported: its sync
point's ``remaining`` is 0), it has not reported onward itself, nobody works
on it (its row is not locked by a live engine, and it does not wait at a
hook), and it was cast long enough ago. Its message was lost, or taken by an
engine that died before locking the row, or is still queued behind a backlog:
the three look the same, which is why a node is sent again at most once per
``stalled_traversal_timeout`` and why sending twice must be harmless (it is:
the second message finds the row locked, or done, and steps aside).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from enum import StrEnum

from hotplate.graph import Graph
from hotplate.model.ids import ResourceId, TraversalId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import PointState, ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

GRAPH_ACTIONS = frozenset({Action.CREATE, Action.UPDATE, Action.DELETE, Action.ROLLBACK,
                           Action.ADOPT, Action.RESTORE})
"""Stack actions that run as a traversal of the graph (check_resource messages);
suspend, resume and check run as one stack_action message instead."""


class Takeover(StrEnum):
    RESUME = "RESUME"
    """The interrupted action belongs to the running traversal: it goes on."""
    FAIL = "FAIL"
    """Heat's rule: the row is FAILED "Worker went down during resource <ACTION>", and
    whichever traversal runs now decides what to do with a failed row."""


def takeover_for(row: ResourceRecord, stack: StackRecord | None) -> Takeover:
    """What a live engine does with a row a dead engine held locked.

    A delete goes on whatever its template (cleanup nodes do not move the row to
    the traversal's template). A create or update goes on when it was started
    for the template the stack is converging to; otherwise a newer traversal has
    replaced the one that took the lock, and the row fails as Heat fails it.
    """
    if stack is None or stack.status is not Status.IN_PROGRESS:
        return Takeover.FAIL
    if row.action is Action.DELETE:
        return Takeover.RESUME
    if row.current_template_id == stack.raw_template_id and row.action in (
            Action.CREATE, Action.UPDATE, Action.ADOPT):
        return Takeover.RESUME
    return Takeover.FAIL


def never_built(stack: StackRecord, points: Sequence[PointState],
                quiet_since: datetime) -> bool:
    """Whether the stack's traversal was started but will never run: it is in progress,
    has no sync point at all, and its stack row was last written before ``quiet_since``.

    Starting a traversal takes several commits (the stack swapped to the new
    traversal, the new rows, the graph, the sync points, then the casts); an
    engine that dies between the first and the sync points leaves a traversal
    nothing will ever cast for, and no node to find stalled. Nothing of it ran
    (no node is cast before its sync points exist), so the same action can be
    started again as a new traversal, by compare-and-swap on this one: an engine
    that was only slow loses its next write to the stack and stops there.
    """
    return (not points and stack.status is Status.IN_PROGRESS
            and stack.action in GRAPH_ACTIONS
            and (stack.updated_at or stack.created_at) < quiet_since)


def is_interrupted(row: ResourceRecord) -> bool:
    """IN_PROGRESS with nobody holding it: only a takeover leaves a row so (every
    operation keeps the lock from IN_PROGRESS to its outcome)."""
    return row.status is Status.IN_PROGRESS and row.engine_id is None


def point_key(point: PointState) -> NodeKey | None:
    """The node a sync point belongs to; None for the stack's own point."""
    if not point.entity_id.isdigit():
        return None
    return NodeKey(ResourceId(int(point.entity_id)), point.is_update)


def stalled_nodes(
    graph: Graph[NodeKey],
    points: Mapping[NodeKey, PointState],
    reported: frozenset[str] | set[str],
    busy: Callable[[NodeKey], bool],
    *,
    cast_before: datetime | None,
) -> Iterator[NodeKey]:
    """The graph's nodes that are ready, unreported, idle, and cast before ``cast_before``
    (None: however recently), in the graph's order (leaves first)."""
    for key in sorted(graph.nodes, key=lambda n: (n.is_update, n)):
        point = points.get(key)
        if point is None or point.remaining > 0:
            continue
        if key.encode() in reported:
            continue
        if cast_before is not None and point.touched >= cast_before:
            continue
        if busy(key):
            continue
        yield key


_TOKENS = uuid.UUID("6f1c9a52-3f0e-4c55-9a0e-2f4a3c1b7d10")
_TOKENS_BYTES = _TOKENS.bytes
"""The namespace of idempotency tokens (any fixed UUID: tokens only need to be stable)."""


def idempotency_token(resource_uuid: str, action: Action | str,
                      traversal_id: TraversalId) -> str:
    """The same for every try of one action on one resource in one traversal.

    An engine that resumes a dead engine's action hands the plugin the token
    the first try had, to pass to a cloud API that deduplicates on it (a client
    token), so the cloud makes one thing however many engines tried.
    """
    # uuid.uuid5's value, formatted without building a UUID object (its checks cost
    # more than the hash, once per resource action).
    name = f"{resource_uuid}/{action}/{traversal_id}".encode()
    digest = bytearray(hashlib.sha1(_TOKENS_BYTES + name, usedforsecurity=False).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
