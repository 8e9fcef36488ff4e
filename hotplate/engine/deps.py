"""Everything an engine's services share, built once by app.py."""

from __future__ import annotations

import _thread
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from hotplate.cloud import Clouds
from hotplate.engine.busy_rows import BusyRows
from hotplate.engine.cache import EngineCaches
from hotplate.engine.event_sinks import EventSinks, Sinks
from hotplate.engine.global_env import GlobalEnvironment
from hotplate.engine.lifecycle import LifecyclePlugins
from hotplate.engine.local_routes import LegacyControl, LocalRoutes, NodeDue, WalkDue
from hotplate.engine.options import EngineOptions
from hotplate.engine.retry_later import RetryLater
from hotplate.engine.row_memory import RowMemory
from hotplate.engine.runner import ActionRunner
from hotplate.engine.stack_credentials import StackCredentials
from hotplate.engine.template_types import TemplateTypes
from hotplate.engine.worker_client import ReadyInputs, WorkerClient
from hotplate.model.errors import ResourceTypeUnavailable
from hotplate.model.ids import EngineId, ResourceId, StackId, TraversalId
from hotplate.model.states import Action
from hotplate.ports import Clock, Ids, Notifier, Store, Transport, WriteBatching
from hotplate.resources.base import Resource
from hotplate.rpc.errors import MessagingTimeout
from hotplate.rpc.topics import LISTENER_TOPIC
from hotplate.template import Environment
from hotplate.template.environment import TEMPLATE_SUFFIXES

if TYPE_CHECKING:
    from hotplate.engine.worker.parking import Parked, ParkedActions


class CancelRegistry:
    """The cancel flags of this engine's running check_resource calls, per stack."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flags: dict[StackId, set[threading.Event]] = defaultdict(set)

    @contextmanager
    def running(self, stack_id: StackId) -> Iterator[threading.Event]:
        flag = threading.Event()
        with self._lock:
            self._flags[stack_id].add(flag)
        try:
            yield flag
        finally:
            with self._lock:
                flags = self._flags.get(stack_id)
                if flags is not None:
                    flags.discard(flag)
                    if not flags:
                        del self._flags[stack_id]

    def cancel(self, stack_id: StackId) -> int:
        with self._lock:
            flags = list(self._flags.get(stack_id, ()))
        for flag in flags:
            flag.set()
        return len(flags)


GIVE_WAY_SECS = 0.05
"""How long a worker waits at most for those coming back to a slot before it asks
for one itself: enough for a woken thread to be scheduled."""


class Slots:
    """How many workers may do the engine's own work at once; None: no limit.

    On SQLite the database takes one writer at a time and the interpreter runs
    one thread at a time, so workers that all do bookkeeping at once only
    queue behind each other, and each hand-over costs time. A worker holds a
    slot for its bookkeeping and gives it back whenever it waits: while a
    plugin runs, and while it asks another engine whether it is alive.
    """

    def __init__(self, count: int | None, batching: WriteBatching | None = None) -> None:
        # One slot (SQLite's case) is a plain lock: the interpreter's Semaphore wakes a
        # waiter through a Condition written in Python, a cost paid at every hand-over.
        self._semaphore: threading.Semaphore | _thread.LockType | None = (
            None if not count else threading.Lock() if count == 1
            else threading.Semaphore(count))
        self._batching = batching if count == 1 else None
        """With one slot, its holder's writes share a transaction, committed before
        the slot is given up (db/write_batch.py)."""
        self._local = threading.local()
        self._waiting = 0  # threads asking for a slot back
        self._waiting_lock = threading.Lock()
        self._came_back = threading.Condition(self._waiting_lock)
        """Notified as each of those gets its slot back."""

    @property
    def limited(self) -> bool:
        return self._semaphore is not None

    def contended(self) -> bool:
        """Someone waits to get a slot back (a plugin finished): a drainer should yield."""
        return self._waiting > 0

    @contextmanager
    def held(self) -> Iterator[None]:
        semaphore = self._semaphore
        if semaphore is None or getattr(self._local, "held", False):
            yield
            return
        self._give_way()
        with semaphore:
            self._local.held = True
            if self._batching is not None:
                self._batching.begin_write_batch()
            try:
                yield
            finally:
                if self._batching is not None:
                    self._batching.end_write_batch()
                self._local.held = False

    def _give_way(self) -> None:
        """Let the workers coming back from a wait take their slots first.

        A drainer gives its slot up when one waits to come back (``contended``),
        but the lock is not fair: the drainer, still running, would take it
        again at once, drain one message, see the same waiter, give it up
        again, and so on. Each such round commits a write batch of one write.
        """
        if not self._waiting:
            return
        with self._came_back:
            self._came_back.wait_for(lambda: not self._waiting, timeout=GIVE_WAY_SECS)

    @contextmanager
    def released(self) -> Iterator[None]:
        semaphore = self._semaphore
        if semaphore is None or not getattr(self._local, "held", False):
            yield
            return
        if self._batching is not None:
            self._batching.end_write_batch()
        self._local.held = False
        semaphore.release()
        try:
            yield
        finally:
            with self._waiting_lock:
                self._waiting += 1
            semaphore.acquire()
            with self._waiting_lock:
                self._waiting -= 1
                self._came_back.notify_all()
            self._local.held = True
            if self._batching is not None:
                self._batching.begin_write_batch()


class ResourceTypes:
    """Resource type lookups, with the template's type names as keys."""

    def __init__(self, registry: Any, global_env: GlobalEnvironment | None = None) -> None:
        self._registry = registry
        self._templates = TemplateTypes()
        self.global_env = global_env or GlobalEnvironment()

    def get(self, type_name: str) -> type[Resource]:
        cls: type[Resource] = self._registry.get(type_name)
        return cls

    def names(self) -> list[str]:
        """Every registered type name, sorted (for resource-type listings)."""
        names: list[str] = self._registry.types()
        return names

    def exists(self, type_name: str) -> bool:
        try:
            self._registry.get(type_name)
        except ResourceTypeUnavailable:
            return False
        return True

    def for_resource(self, env: Environment | None, name: str, type_name: str,
                     files: Mapping[str, Any] | None = None) -> type[Resource]:
        """The plugin for a resource, after the environment's resource_registry mappings.

        A type that is (or maps to) a template file is a template resource,
        built from that file in the request's ``files``.
        """
        if env is not None:
            type_name = env.resource_registry.resolve_type(name, type_name,
                                                           is_known=self.exists)
        type_name = self.global_env.resolve_type(name, type_name, self.exists)
        if type_name.endswith(TEMPLATE_SUFFIXES):
            known = {**self.global_env.files, **(files or {})}
            defaults = env.parameter_defaults if env is not None else None
            return self._templates.for_file(type_name, known, defaults)
        return self.get(type_name)


@dataclass
class EngineDeps:
    engine_id: EngineId
    store: Store
    transport: Transport
    clock: Clock
    ids: Ids
    types: ResourceTypes
    caches: EngineCaches
    runner: ActionRunner
    host: str = "hotplate"
    engine_life_check_timeout: float = 2.0
    cancels: CancelRegistry = field(default_factory=CancelRegistry)
    slots: Slots = field(default_factory=lambda: Slots(None))
    options: EngineOptions = field(default_factory=EngineOptions)
    parked: ParkedActions | None = None
    """Actions waiting without a thread (parking.py); None: plugins wait in their thread."""
    local_workers: int = 0
    """Threads that run the nodes of a batch this engine takes (check_resources); 0:
    no batches, every node its own message (the in-process transport's casts are
    local already)."""
    notifier: Notifier | None = None
    """Where Heat's notifications go (notify.py); None, the embedded default: none are built."""
    lifecycle: LifecyclePlugins = field(default_factory=LifecyclePlugins)
    """The stack lifecycle plugins called around stack actions (lifecycle.py); none by default."""
    event_sinks: EventSinks | None = None
    """Where events go besides the event table (event_sinks.py); None: nowhere."""
    clouds: Clouds = field(default_factory=Clouds)
    """The client layer: a request's or a stack's view of the cloud (hotplate.cloud)."""
    busy: BusyRows = field(default_factory=BusyRows)
    """The rows and stacks this engine's threads work on now (busy_rows.py)."""
    retry_later: RetryLater = field(default_factory=RetryLater)
    """Database work that failed with the database away, tried again each periodic
    round (retry_later.py): a node handed on when its database was lost."""
    routes: LocalRoutes = field(default_factory=LocalRoutes)
    """Traversals whose work runs in a thread of this engine, not on the worker topic:
    legacy stacks' (local_routes.py)."""
    legacy: LegacyControl | None = None
    """The legacy engine's threads of this engine (engine/legacy/); None: not built."""
    row_memory: RowMemory = field(default_factory=RowMemory)
    """The rows and stacks this engine has just had in hand, kept for the node that
    starts from them next, so that node reads nothing (row_memory.py)."""

    def __post_init__(self) -> None:
        self.worker_client = WorkerClient(self.transport, ReadyInputs())
        """Every engine_worker message this engine sends (worker_client.py)."""
        self.credentials = StackCredentials(self.store, self.clouds)
        """Stacks' trusts and stack domain projects (Keystone mode; stack_credentials.py)."""
        if self.clouds.stack_credentials is None:
            self.clouds.stack_credentials = self.credentials.credentials_of
        if self.event_sinks is not None:
            self.event_sinks.bind(self._sinks_of)

    def _sinks_of(self, stack_id: str) -> Sinks:
        """The event sinks of a stack's current template (none once the stack is gone)."""
        stack = self.store.get_stack(StackId(stack_id), include_deleted=True)
        if stack is None:
            return ()
        return self.caches.template(stack.raw_template_id).env.event_sinks

    def cast_check_resource(
        self,
        resource_id: ResourceId,
        traversal_id: TraversalId,
        is_update: bool,
        *,
        inputs: Mapping[str, Any] | None = None,
        server: EngineId | None = None,
    ) -> None:
        """Hand a node to any engine's worker (round-robin across engines), or to
        ``server``'s; a routed traversal's node to its thread here (local_routes.py)."""
        sink = self.routes.to(traversal_id)
        if sink is not None:
            sink.put(NodeDue(resource_id, traversal_id, is_update, inputs))
            return
        self.worker_client.check_resource(resource_id, traversal_id, is_update, inputs=inputs,
                                          server=server)

    def cast_check_resources(
        self,
        traversal_id: TraversalId,
        nodes: Sequence[tuple[ResourceId, bool, Mapping[str, Any] | None]],
        *,
        loaded: Mapping[ResourceId, Any] | None = None,
    ) -> None:
        """Hand many nodes of one traversal over: in batches when this engine runs
        nodes on local workers (``local_workers``), else one message each. A local
        worker keeps the first for itself, to run next with no message
        (worker_client.NextHere), starting from its row and stack in ``loaded``
        when the caller has them fresh."""
        sink = self.routes.to(traversal_id)
        if sink is not None:
            for resource_id, is_update, inputs in nodes:
                sink.put(NodeDue(resource_id, traversal_id, is_update, inputs))
            return
        if self.local_workers and nodes:
            first_id, first_update, first_inputs = nodes[0]
            if self.worker_client.next_here.offer(
                    (traversal_id, int(first_id), bool(first_update)), first_inputs,
                    (loaded or {}).get(first_id)):
                nodes = nodes[1:]
        if self.local_workers and len(nodes) > 1:
            self.worker_client.check_resources(traversal_id, nodes)
            return
        for resource_id, is_update, inputs in nodes:
            self.cast_check_resource(resource_id, traversal_id, is_update, inputs=inputs)

    def redrive(self, parked: Parked) -> None:
        """Hand a parked action back to this engine's own workers (it holds the action),
        or to the thread of its routed traversal."""
        self.cast_check_resource(parked.row.id, parked.work.traversal_id,
                                 parked.work.is_update, server=self.engine_id)

    def cast_stack_action(self, stack_id: StackId, action: Action,
                          traversal_id: TraversalId) -> None:
        """Have any engine walk a suspend, resume, check or snapshot, or the thread of
        its routed traversal here."""
        sink = self.routes.to(traversal_id)
        if sink is not None:
            sink.put(WalkDue(stack_id, action, traversal_id))
            return
        self.worker_client.stack_action(stack_id, action, traversal_id)

    def _reports_fresh(self, engine_id: EngineId) -> bool:
        now = self.clock.now()
        return any(service.engine_id == engine_id and now - (
            service.updated_at or service.created_at) <= timedelta(
                seconds=2 * service.report_interval)
            for service in self.store.list_services())

    def wake_waiters(self, stack: Any) -> None:
        """A stack's traversal ended: re-check at once the parked action waiting on it
        (here, or on the engine holding its parent resource)."""
        if self.parked is not None and self.parked.wake(str(stack.id)):
            return
        if stack.owner_id is None or stack.parent_resource_name is None:
            return
        for row in self.store.list_resources(stack.owner_id):
            if (row.physical_resource_id == str(stack.id) and row.engine_id is not None
                    and row.engine_id != self.engine_id):
                self.worker_client.wake_parked(stack.id, row.engine_id)

    def is_engine_alive(self, engine_id: EngineId) -> bool:
        """Alive while its service row is fresh (reported within two of its intervals),
        else Heat's liveness rule: it answers ``listening`` in time, or it is gone.

        The row comes first so that no engine is taken for dead while its lease may
        still hold (engine/lease.py): an engine cut off from the broker fails the probe
        at once, yet it may still be working, and writing, until its lease runs out.
        """
        if engine_id == self.engine_id or self._reports_fresh(engine_id):
            return True
        try:
            with self.slots.released():
                return bool(
                    self.transport.call(
                        {}, LISTENER_TOPIC, "listening", {}, server=engine_id,
                        timeout=self.engine_life_check_timeout,
                    )
                )
        except MessagingTimeout:
            return False
