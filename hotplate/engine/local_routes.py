"""Where this engine's own traversals' work goes instead of the worker topic.

A legacy stack's operation (engine/legacy/) runs every node of its traversal
in one thread of the engine holding the stack's lock. That thread claims the
stack here; each traversal then started for the stack in this engine is
routed to it (``started``), so a node made ready, a parked action due again,
or a stack action's walk lands in its queue rather than on any engine's
worker. A rollback started by a failure is a new traversal of the same stack:
claimed by the stack, it goes to the same thread.

Asked on every cast, ``to`` is one dict lookup: an engine with no legacy
stack running pays nothing more.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hotplate.model.ids import ResourceId, StackId, TraversalId
from hotplate.model.states import Action


@dataclass(frozen=True, slots=True)
class NodeDue:
    """A node of a routed traversal to check (what ``check_resource`` would carry)."""

    resource_id: ResourceId
    traversal_id: TraversalId
    is_update: bool
    inputs: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class WalkDue:
    """A suspend, resume, check or snapshot walk to run (what ``stack_action`` would)."""

    stack_id: StackId
    action: Action
    traversal_id: TraversalId


class Sink(Protocol):
    """Whoever runs a routed traversal's work (a legacy stack's runner)."""

    def put(self, item: NodeDue | WalkDue) -> None: ...


class LocalRoutes:
    """Traversal id -> the sink its work goes to, for the stacks claimed here."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_stack: dict[StackId, Sink] = {}
        self._by_traversal: dict[TraversalId, Sink] = {}

    def to(self, traversal_id: TraversalId) -> Sink | None:
        """The sink of ``traversal_id``; None: the work goes to the worker topic."""
        return self._by_traversal.get(traversal_id)

    def claim(self, stack_id: StackId, sink: Sink) -> None:
        """Route the stack's traversals started from now on to ``sink``."""
        with self._lock:
            self._by_stack[stack_id] = sink

    def started(self, stack_id: StackId, traversal_id: TraversalId) -> None:
        """A traversal of ``stack_id`` was just swapped in: routed if the stack is claimed."""
        if not self._by_stack:
            return
        with self._lock:
            sink = self._by_stack.get(stack_id)
            if sink is not None:
                self._by_traversal[traversal_id] = sink

    def drop(self, stack_id: StackId, sink: Sink) -> None:
        """Forget ``sink``'s stack and traversals (what comes later goes to the workers)."""
        with self._lock:
            if self._by_stack.get(stack_id) is sink:
                del self._by_stack[stack_id]
            for traversal in [t for t, s in self._by_traversal.items() if s is sink]:
                del self._by_traversal[traversal]

    def owns(self, sink: Sink, traversal_id: TraversalId) -> bool:
        return self._by_traversal.get(traversal_id) is sink

    def traversals_of(self, sink: Sink) -> list[TraversalId]:
        with self._lock:
            return [t for t, s in self._by_traversal.items() if s is sink]


class LegacyControl(Protocol):
    """What the worker side asks of the legacy engine (engine/legacy/stacks.py), given
    to it through ``EngineDeps.legacy`` so that it imports none of it."""

    def stop(self, stack_id: StackId) -> bool:
        """Stop this engine's thread for the stack (listener ``stop_stack``)."""
        ...

    def send(self, stack_id: StackId, message: str) -> bool:
        """Deliver ``cancel`` / ``cancel_with_rollback`` to that thread (listener ``send``)."""
        ...

    def reset_stale(self) -> int:
        """Reset the legacy stacks whose lock holder died (recovery; engine start)."""
        ...
