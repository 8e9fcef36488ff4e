"""Every engine_worker message, built in one place (``WorkerService`` is the other end).

A ``check_resource`` message carries keys only: the resource, the traversal,
update or cleanup. Its inputs (what each predecessor reported) are what the
node's sync point stored, so any engine can re-drive any node from the
database alone, and a message re-sent by recovery needs nothing the dead
sender knew. The sender usually has those inputs at hand (the sync that made
the node ready returned them): it leaves them in this engine's
``ReadyInputs``, and a worker of the same engine that takes the message uses
them instead of reading them again. Another engine reads them; the database
stays the record either way.

A local worker that makes a node ready may also keep it (``NextHere``) and run
it as soon as its own node is done, with no message at all: an update's
cleanup node follows its update node, and a chain's next link its last, on the
same thread. The node is ready in the database before it is kept, so if this
engine dies first it is one of the ready nodes nobody works on, which recovery
sends again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from hotplate.model.ids import EngineId, ResourceId, StackId, TraversalId
from hotplate.ports import Transport
from hotplate.rpc.topics import WORKER_TOPIC

NodeMessageKey = tuple[TraversalId, int, bool]

BATCH_SIZE = 16
"""Most nodes one ``check_resources`` message names: a wide fan-out crosses the broker
in a sixteenth of the messages, and still spreads over every engine (each message
goes to one engine, round-robin)."""

READY_INPUTS_KEPT = 8192
"""Inputs kept for messages this engine sent; the oldest go first (their messages
went to another engine, which reads its inputs from the database)."""


class ReadyInputs:
    """The inputs of nodes this engine made ready, until a worker here takes them."""

    def __init__(self, limit: int = READY_INPUTS_KEPT) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._found: OrderedDict[NodeMessageKey, dict[str, Any]] = OrderedDict()

    def put(self, key: NodeMessageKey, inputs: Mapping[str, Any]) -> None:
        with self._lock:
            self._found[key] = dict(inputs)
            if len(self._found) > self._limit:
                self._found.popitem(last=False)

    def take(self, key: NodeMessageKey) -> dict[str, Any] | None:
        with self._lock:
            return self._found.pop(key, None)


class KeptNode(NamedTuple):
    key: NodeMessageKey
    inputs: dict[str, Any] | None
    loaded: Any
    """The row and stack the node may start from (None: it reads them)."""


class NextHere:
    """The one node a local worker runs next, kept instead of sent.

    Only a thread inside ``following`` keeps one (a local worker running a
    node), and only one at a time: the rest of a fan-out still crosses the
    broker, to spread over every engine.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def following(self) -> Iterator[None]:
        """Let this thread keep the next node it makes ready (see ``offer``)."""
        self._local.kept = []
        try:
            yield
        finally:
            self._local.kept = None

    def offer(self, key: NodeMessageKey, inputs: Mapping[str, Any] | None,
              loaded: Any = None) -> bool:
        """Keep ``key`` for this thread; False when the thread keeps nothing or has
        a node kept already (the caller sends it). ``loaded``: the node's row and
        stack when the caller has them fresh (the row it has just written)."""
        kept = getattr(self._local, "kept", None)
        if kept is None or kept:
            return False
        kept.append(KeptNode(key, None if inputs is None else dict(inputs), loaded))
        return True

    def take(self) -> KeptNode | None:
        """The node kept, if any, forgotten as it is handed back."""
        kept = getattr(self._local, "kept", None)
        return kept.pop() if kept else None


class WorkerClient:
    def __init__(self, transport: Transport, ready: ReadyInputs) -> None:
        self._transport = transport
        self.ready = ready
        self.next_here = NextHere()

    def check_resource(self, resource_id: ResourceId, traversal_id: TraversalId,
                       is_update: bool, *, inputs: Mapping[str, Any] | None = None,
                       server: EngineId | None = None) -> None:
        """Send a node to a worker (any engine's, or ``server``'s). ``inputs``, when
        the caller has them, spare a worker of this engine reading them again."""
        if inputs is not None:
            self.ready.put((traversal_id, int(resource_id), bool(is_update)), inputs)
        self._transport.cast(
            {}, WORKER_TOPIC, "check_resource",
            {"resource_id": int(resource_id), "current_traversal": traversal_id,
             "is_update": bool(is_update)},
            server=server)

    def check_resources(self, traversal_id: TraversalId,
                        nodes: Sequence[tuple[ResourceId, bool, Mapping[str, Any] | None]],
                        ) -> None:
        """Send many nodes of one traversal, ``BATCH_SIZE`` to a message; the engine that
        takes a message runs its nodes side by side on its local workers."""
        for resource_id, is_update, inputs in nodes:
            if inputs is not None:
                self.ready.put((traversal_id, int(resource_id), bool(is_update)), inputs)
        for start in range(0, len(nodes), BATCH_SIZE):
            chunk = nodes[start:start + BATCH_SIZE]
            self._transport.cast(
                {}, WORKER_TOPIC, "check_resources",
                {"current_traversal": traversal_id,
                 "nodes": [[int(rid), bool(is_update)] for rid, is_update, _ in chunk]})

    def stack_action(self, stack_id: StackId, action: str, traversal_id: TraversalId, *,
                     again: bool = False) -> None:
        """Suspend, resume or check a whole stack, on any engine (``again``: recovery
        sends it once more, its first engine having died)."""
        kwargs: dict[str, Any] = {"stack_id": str(stack_id), "action": str(action),
                                  "traversal_id": traversal_id}
        if again:
            kwargs["again"] = True
        self._transport.cast({}, WORKER_TOPIC, "stack_action", kwargs)

    def delete_snapshot(self, snapshot_id: str) -> None:
        """Have any engine delete a snapshot (Heat's ``check_resource_delete_snapshot``;
        here one message does all of the snapshot's resources)."""
        self._transport.cast({}, WORKER_TOPIC, "check_resource_delete_snapshot",
                             {"snapshot_id": str(snapshot_id)})

    def cancel_check_resource(self, stack_id: StackId, server: EngineId) -> None:
        """Ask ``server`` to cancel its running workers of the stack."""
        self._transport.cast({}, WORKER_TOPIC, "cancel_check_resource",
                             {"stack_id": str(stack_id)}, server=server)

    def wake_parked(self, stack_id: StackId, server: EngineId) -> None:
        """Tell ``server`` that the child stack its parked action waits on ended."""
        self._transport.cast({}, WORKER_TOPIC, "wake_parked", {"stack_id": str(stack_id)},
                             server=server)
