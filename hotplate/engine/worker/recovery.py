"""No stuck stacks: dead engines' work taken over, lost messages sent again, and
stack timeouts enforced with no message left (rules: convergence/recovery.py).

Every engine runs ``Recovery.run_once`` each ``periodic_interval``, and looks for dead
engines alone (``take_over_dead``) halfway between two rounds:

1. **Dead engines.** An engine is dead when its service row's last report is
   older than twice its report interval (or it has no row) and it does not
   answer ``listening`` within ``engine_life_check_timeout`` (the silent ones
   are all asked at once, so a round waits one timeout however many there
   are). Its database sessions are ended (a session cut off inside
   a transaction may hold row locks that the server keeps), then each lock it
   holds is taken over by a compare-and-swap on the lock itself (``engine_id
   = the dead one``), so exactly one live engine wins each row, and a dead
   engine that was only paused finds, when it wakes, that every write it
   tries under its old lock matches no row. The interrupted action goes on
   in a new worker (plan RESUME), told that it is a retry. The first engine
   to claim the takeover (``takeover:<engine>`` in engine_claim) also sends
   again, at once, every ready node nobody works on: the dead engine may
   have taken their messages off the queue before it died. Nodes paused at
   a hook are sent too: they hold no lock that says who parked them, and the
   dead engine may have; each waits again here, at its hook still pending
   (breakpoints.py), and one that a live engine holds as well just waits twice. What recovery
   sends again goes to this engine's own worker queue: the broker may still
   count a dead or cut-off engine's consumers as live, and a node sent to the
   shared queue could land on one of them.
   A legacy stack (``convergence`` false) is not taken over node by node: its
   lock holder ran the whole operation, so a dead holder's stack is reset
   FAILED (engine/legacy/reset.py) by whichever live engine looks first.
2. **The sweep**, by one engine at a time (the ``sweep`` claim): signals
   stored but not applied within ``stalled_traversal_timeout`` are applied
   again (signal_delivery.py); in every
   traversal in progress, nodes that stalled longer than
   ``stalled_traversal_timeout`` are sent again, a traversal whose own sync
   point is complete is marked complete (a crash between the last report
   and the stack's write), a traversal with no sync point at all, quiet for
   as long, is started again (a crash while starting it), and a stack past
   its timeout is failed ``Timed out`` even when no message is left to
   notice it.
"""

from __future__ import annotations

import itertools
import logging
import weakref
from datetime import datetime, timedelta

from hotplate.convergence import outcome
from hotplate.convergence.node_plan import has_timed_out
from hotplate.convergence.propagation import graph_key_for, retrigger_key
from hotplate.convergence.recovery import (
    GRAPH_ACTIONS,
    Takeover,
    never_built,
    point_key,
    stalled_nodes,
    takeover_for,
)
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.periodic import PeriodicTimer
from hotplate.engine.worker import traversal as trav
from hotplate.engine.worker.liveness_probes import probe_all
from hotplate.engine.worker.signal_delivery import redrive_signals
from hotplate.engine.worker.stack_actions import STACK_ACTIONS
from hotplate.model.ids import NO_TRAVERSAL, EngineId, ResourceId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import (
    PointState,
    ResourceRecord,
    ServiceRecord,
    StackRecord,
    SyncOutcome,
)
from hotplate.model.states import Status

LOG = logging.getLogger(__name__)

SWEEP_CLAIM = "sweep"
ORPHAN_CREDS_AGE = timedelta(hours=1)
"""How old credentials no stack holds must be before the sweep deletes them: a create
holds its new trust for the moments between making it and writing its stack."""
ORPHAN_CREDS_EVERY = timedelta(minutes=5)
"""How often the sweeping engine looks for them."""
STACK_ACTION_CLAIM = "stack-action:"
TAKEOVER_CLAIM = "takeover:"
TAKEOVER_CLAIM_SECS = 7 * 24 * 3600.0
"""A takeover claim stays a week: an engine id is never reused, so it only has to
outlive every engine that could still read the dead engine's row."""


def takeover_reason(row: ResourceRecord, dead: EngineId, live: EngineId) -> str:
    """The event a takeover leaves on the resource, naming both engines."""
    return (f"{outcome.worker_went_down(row.action)}: engine {dead} stopped answering; "
            f"engine {live} took over")


def handover_reason(row: ResourceRecord, engine: EngineId) -> str:
    """The event a stopping engine leaves on a resource it could not finish."""
    return (f"{outcome.worker_went_down(row.action)}: engine {engine} stopped gracefully "
            "and handed it over")


def database_lost_reason(row: ResourceRecord, engine: EngineId) -> str:
    """The event an engine leaves on a resource whose operation lost the database."""
    return (f"{outcome.worker_went_down(row.action)}: engine {engine} lost its database "
            "connection and handed it over")


def take_over_row(deps: EngineDeps, row: ResourceRecord, dead: EngineId, *,
                  reason: str | None = None) -> bool:
    """Take the row's lock from a dead engine and set its node going again.

    False when another engine took it first (or the dead one finished after all).
    ``reason``: the event's text when the row goes on (default: a takeover's).
    """
    store = deps.store
    stack = store.get_stack(row.stack_id)
    if stack is not None and not stack.convergence and dead != deps.engine_id:
        return False  # the dead lock holder's whole stack is reset (reset_legacy)
    decision = takeover_for(row, stack)
    if decision is Takeover.RESUME:
        reason = reason or takeover_reason(row, dead, deps.engine_id)
        values: dict[str, object] = {}
        event = resource_event(deps, row, row.action, Status.IN_PROGRESS, reason)
    else:
        reason = outcome.worker_went_down(row.action)
        values = {"status": Status.FAILED, "status_reason": reason}
        # Heat's own path (a newer traversal met a dead engine's lock): Heat's text.
        event = resource_event(deps, row, row.action, Status.FAILED, reason)
    deps.row_memory.forget(row.id)  # its node goes on from the row as taken over
    if not store.steal_resource_lock(row.id, dead, values, event):
        return False
    LOG.warning("resource %s (%s): took over from dead engine %s (%s)", row.name, row.id,
                dead, decision)
    if stack is not None:
        # Taken from another engine: run it here. The broker may still count the dead
        # (or cut-off) engine's consumers as live for a while, and a node sent to the
        # shared queue could land on one of them. Handed over by this engine itself
        # (it is stopping, or lost its database): to any live engine.
        redrive_row(deps, row, stack, here=dead != deps.engine_id)
    return True


def redrive_row(deps: EngineDeps, row: ResourceRecord, stack: StackRecord, *,
                here: bool = False) -> bool:
    """Cast the row's node of the stack's current traversal, if that node is ready
    (``here``: to this engine's own worker queue, else to any engine's)."""
    traversal = stack.current_traversal
    if traversal == NO_TRAVERSAL or stack.status is not Status.IN_PROGRESS:
        return False
    graph = deps.caches.graph(stack.id, traversal).graph
    is_update = row.action is not None and str(row.action) != "DELETE"
    key = graph_key_for(row, is_update, graph)
    if key not in graph.nodes:
        key = retrigger_key(graph, row.id, is_update)
        if key not in graph.nodes:
            return False
    state = deps.store.sync_state(traversal, str(key.resource_id), key.is_update)
    if state.outcome is not SyncOutcome.READY:
        return False
    target = row.id if key.resource_id in (row.id, row.replaces) else key.resource_id
    deps.cast_check_resource(target, traversal, key.is_update, inputs=state.inputs,
                             server=deps.engine_id if here else None)
    return True


def hand_over(deps: EngineDeps) -> int:
    """A stopping engine gives up every lock it still holds: each action goes on in
    a live engine (sent to the worker topic, which this engine no longer serves).
    What this engine's own threads still write under those locks is refused."""
    me = deps.engine_id
    return sum(take_over_row(deps, row, me, reason=handover_reason(row, me))
               for row in deps.store.resources_locked_by(me))


class Recovery:
    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._taken_over: set[EngineId] = set()
        """Dead engines this engine has seen taken over (probed no more unless they
        hold locks again)."""
        self._timer: PeriodicTimer | None = None
        self._orphans_due: datetime | None = None
        self._idle: dict[ResourceId, int] = {}
        """This engine's locked rows no work of its own stood behind at the last round."""

    @classmethod
    def start(cls, deps: EngineDeps) -> Recovery:
        """Run every ``periodic_interval`` on a timer of its own (a look for dead engines
        alone in between), until ``stop``.

        The timer holds the recovery weakly, as the heartbeat does: an engine
        dropped without ``stop`` ends its timer when it is collected.
        """
        recovery = cls(deps)
        ref = weakref.ref(recovery)
        ticks = itertools.count()

        def tick() -> bool:
            found = ref()
            if found is None:
                return False
            # A dead engine's row turns stale at any moment of a round: looking twice
            # as often takes its work over up to half an interval sooner, without
            # running the rest of the round (the sweep's claims, its queries) more.
            if next(ticks) % 2:
                return found.take_over_dead()
            return found.run_once()

        timer = PeriodicTimer(f"hotplate-recovery-{deps.engine_id[:8]}",
                              deps.options.periodic_interval / 2, tick)
        weakref.finalize(recovery, timer.cancel)
        recovery._timer = timer
        timer.start()
        return recovery

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def run_once(self) -> bool:
        """One round (the periodic task): take over the dead, then sweep if ours."""
        deps = self._deps
        options = deps.options
        deps.retry_later.run()  # this engine's own work the database refused before
        self.reclaim_forgotten()
        self.reset_legacy()
        self.take_over_dead()
        if deps.store.claim(SWEEP_CLAIM, deps.engine_id, 3.0 * options.periodic_interval):
            now = deps.clock.now()
            self.sweep(now - timedelta(seconds=options.stalled_traversal_timeout))
            self._redrive_signals()
            deps.store.forget_requests(now - timedelta(seconds=options.request_retention))
            self._forget_orphan_credentials(now)
            deps.store.release_claims(TAKEOVER_CLAIM, TAKEOVER_CLAIM_SECS)
            deps.store.release_claims(STACK_ACTION_CLAIM, TAKEOVER_CLAIM_SECS)
        return True

    def reset_legacy(self) -> int:
        """Legacy stacks whose lock holder died reset FAILED (engine/legacy/reset.py),
        as Heat does only when an engine starts; how many."""
        if self._deps.legacy is None:
            return 0
        try:
            return self._deps.legacy.reset_stale()
        except Exception:  # the next round tries again; the rest of this one goes on
            LOG.exception("recovery: resetting legacy stacks failed")
            return 0

    def take_over_dead(self) -> bool:
        """Every dead engine's locks taken over (step 1 of a round)."""
        for dead in self.dead_engines():
            self.take_over(dead)
        return True

    def _forget_orphan_credentials(self, now: datetime) -> None:
        """Trusts of creates whose engine died before writing their stack (stack_credentials)."""
        if self._orphans_due is not None and now < self._orphans_due:
            return
        self._orphans_due = now + ORPHAN_CREDS_EVERY
        try:
            self._deps.credentials.forget_orphans(now - ORPHAN_CREDS_AGE)
        except Exception:  # the next round tries again
            LOG.exception("recovery: deleting credentials no stack holds failed")

    def reclaim_forgotten(self) -> int:
        """This engine's locks that no work of its own stands behind (busy_rows.py): seen
        so, under the same atomic key, at this round and the one before, they are
        handed on as a dead engine's are. How many."""
        deps = self._deps
        mine = deps.store.resources_locked_by(deps.engine_id)
        busy_rows, busy_stacks = deps.busy.snapshot()  # after the read: see busy_rows.py
        parked = deps.parked.resource_ids() if deps.parked is not None else frozenset()
        idle = {row.id: row.atomic_key for row in mine
                if int(row.id) not in busy_rows and int(row.id) not in parked
                and str(row.stack_id) not in busy_stacks}
        before, self._idle = self._idle, idle
        handed = 0
        for row in mine:
            if row.id in idle and before.get(row.id) == row.atomic_key:
                LOG.warning("resource %s (%s): locked by this engine, which no longer works "
                            "on it; handing it on", row.name, row.id)
                handed += take_over_row(deps, row, deps.engine_id,
                                        reason=database_lost_reason(row, deps.engine_id))
        return handed

    def _redrive_signals(self) -> None:
        """Signals stored but not applied in time are applied again (signal_delivery.py)."""
        try:
            redrive_signals(self._deps)
        except Exception:  # the signals wait for the next round; the rest goes on
            LOG.exception("recovery: re-driving signals failed")

    # -- dead engines -------------------------------------------------------------
    def dead_engines(self) -> list[EngineId]:
        """Engines holding locks, or registered, whose reports stopped and that do not
        answer: the candidates are few, and each costs one probe at most."""
        deps = self._deps
        now = deps.clock.now()
        services = deps.store.list_services()
        fresh = {s.engine_id for s in services if _reported_since(s, now)}
        holders = deps.store.lock_holders()
        silent = {s.engine_id for s in services} - fresh - self._taken_over
        candidates = [EngineId(e) for e in sorted((holders - fresh) | silent)
                      if e != deps.engine_id]
        answers = probe_all(deps.is_engine_alive, candidates)
        return [e for e, alive in zip(candidates, answers, strict=True) if not alive]

    def take_over(self, dead: EngineId) -> int:
        """Every lock of ``dead``; the first engine here also re-sends ready nodes.

        The dead engine's database sessions are ended first: one cut off inside a
        transaction may still hold row locks that no timeout of the server's frees
        (db/session_limits.py), and every steal below would wait on them.
        """
        deps = self._deps
        try:
            ended = deps.store.end_sessions_of(dead)
        except Exception:  # not allowed to (another database role): the steals may wait
            LOG.exception("engine %s is dead: ending its database sessions failed", dead)
        else:
            if ended:
                LOG.warning("engine %s is dead: ended %d of its database sessions", dead, ended)
        first = deps.store.claim(f"{TAKEOVER_CLAIM}{dead}", deps.engine_id,
                                 TAKEOVER_CLAIM_SECS)
        taken = sum(take_over_row(deps, row, dead)
                    for row in deps.store.resources_locked_by(dead))
        if first:
            LOG.warning("engine %s is dead: took over %d resources; re-sending ready nodes",
                        dead, taken)
            self.sweep(None, paused_too=True)
        self._taken_over.add(dead)
        return taken

    # -- the sweep ----------------------------------------------------------------
    def sweep(self, cast_before: datetime | None, *, paused_too: bool = False) -> int:
        """Every traversal in progress: re-send what stalled (cast before
        ``cast_before``; None: any ready node nobody works on), finish what is
        finished, time out what is late. Returns how many nodes were sent.
        ``paused_too``: nodes paused at a hook count as stalled (a takeover)."""
        sent = 0
        for stack in self._deps.store.stacks_in_progress():
            try:
                sent += self._sweep_stack(stack, cast_before, paused_too)
            except Exception:  # one stack's trouble must not stop the others' recovery
                LOG.exception("stack %s: recovery sweep failed", stack.id)
        return sent

    def _sweep_stack(self, stack: StackRecord, cast_before: datetime | None,
                     paused_too: bool = False) -> int:
        deps = self._deps
        traversal = stack.current_traversal
        if traversal == NO_TRAVERSAL or not stack.convergence:
            return 0  # a legacy stack's nodes are its lock holder's (reset_legacy)
        if stack.action in STACK_ACTIONS:
            return self._sweep_stack_action(stack, cast_before)
        if stack.action not in GRAPH_ACTIONS:
            return 0
        grace = timedelta(seconds=deps.options.periodic_interval)
        if has_timed_out(stack, deps.clock.now() - grace):
            # Workers notice a timeout when they run; with none left to run, this does.
            LOG.warning("stack %s: timed out with no worker to notice", stack.id)
            trav.mark_failed(deps, stack, traversal, outcome.TIMED_OUT)
            return 0
        if cast_before is not None and stack.updated_at is not None \
                and stack.updated_at >= cast_before:
            # Its traversal was written since: every sync point is younger than that, so
            # none can have stalled yet. A tree of a thousand nested stacks in progress
            # is then not read a thousand times a round (a takeover sweeps with None).
            return 0
        points, reported = deps.store.traversal_points(stack.id, traversal)
        if not points:
            self._restart_if_never_built(stack, points)
            return 0
        nodes: dict[NodeKey, PointState] = {}
        for point in points:
            key = point_key(point)
            if key is None:
                if point.remaining <= 0:  # every root reported: only the stack's write is due
                    trav.mark_complete(deps, stack, traversal)
                    return 0
                continue
            nodes[key] = point
        graph = deps.caches.graph(stack.id, traversal).graph
        if not graph.nodes:
            return 0
        rows = {row.id: row for row in deps.store.list_resources(stack.id)}
        busy = _Busy(deps, rows, set() if paused_too else deps.store.paused_at_hooks(stack.id))
        stalled = list(stalled_nodes(graph, nodes, reported, busy, cast_before=cast_before))
        for key in stalled:
            state = deps.store.sync_state(traversal, str(key.resource_id), key.is_update)
            if state.outcome is not SyncOutcome.READY:
                continue
            LOG.info("stack %s: re-sending %s of traversal %s", stack.id, key, traversal)
            deps.row_memory.forget(_working_row(key, rows))  # stalled: read it afresh
            # To this engine, which is alive (it runs this sweep): the node's first
            # message may sit with an engine the broker still thinks is.
            deps.worker_client.check_resource(_working_row(key, rows), traversal,
                                              key.is_update, inputs=state.inputs,
                                              server=deps.engine_id)
        deps.store.touch_sync_points(traversal, [(str(k.resource_id), k.is_update)
                                                 for k in stalled])
        return len(stalled)

    def _restart_if_never_built(self, stack: StackRecord, points: list[PointState]) -> bool:
        """Start the stack's action again when its traversal was never built (its engine
        died starting it: convergence/recovery.py ``never_built``); True if restarted."""
        deps = self._deps
        timeout = timedelta(seconds=deps.options.stalled_traversal_timeout)
        if not never_built(stack, points, deps.clock.now() - timeout):
            return False
        LOG.warning("stack %s: traversal %s of %s was never built; starting it again",
                    stack.id, stack.current_traversal, stack.action)
        started = trav.converge_stack(deps, stack, stack.raw_template_id, stack.action,
                                      prev_template_id=stack.prev_raw_template_id)
        return started is not None


    def _sweep_stack_action(self, stack: StackRecord, cast_before: datetime | None) -> int:
        """Suspend, resume or check run as one message on one engine: sent again when
        no live engine holds a lock of the stack and it has shown no progress (no
        event) for a whole stalled_traversal_timeout, at most once per timeout."""
        deps = self._deps
        timeout = deps.options.stalled_traversal_timeout
        quiet_since = deps.clock.now() - timedelta(seconds=timeout)
        last = deps.store.latest_event_at(stack.id)
        if last is not None and last > quiet_since:
            return 0
        rows = {row.id: row for row in deps.store.list_resources(stack.id)}
        busy = _Busy(deps, rows, set())
        if any(busy.holds(row) for row in rows.values()):
            return 0
        traversal = stack.current_traversal
        if not deps.store.claim(f"{STACK_ACTION_CLAIM}{traversal}", deps.engine_id, timeout):
            return 0
        LOG.warning("stack %s: %s shows no progress; sending it again", stack.id,
                    stack.action)
        deps.worker_client.stack_action(stack.id, stack.action, traversal, again=True)
        return 1


class _Busy:
    """Whether someone works on a node: its row (or the row replacing it) is locked by
    a live engine, or waits at a hook. A lock of a dead engine is taken over here,
    which sends the node itself."""

    def __init__(self, deps: EngineDeps, rows: dict[ResourceId, ResourceRecord],
                 hooked: set[ResourceId]) -> None:
        self._deps = deps
        self._rows = rows
        self._hooked = hooked
        self._alive: dict[EngineId, bool] = {}

    def __call__(self, key: NodeKey) -> bool:
        row = self._rows.get(key.resource_id)
        if row is None:
            return False
        candidates = [row]
        replacement = self._rows.get(row.replaced_by) if row.replaced_by is not None else None
        if replacement is not None and replacement.replaces == row.id:
            candidates.append(replacement)
        return any(self.holds(candidate) for candidate in candidates)

    def holds(self, row: ResourceRecord) -> bool:
        """Someone works on this row (a dead holder's lock is taken over here)."""
        if row.id in self._hooked:
            return True
        holder = row.engine_id
        if holder is None:
            return False
        if not self._is_alive(holder):
            take_over_row(self._deps, row, holder)
        return True

    def _is_alive(self, engine_id: EngineId) -> bool:
        alive = self._alive.get(engine_id)
        if alive is None:
            alive = self._alive[engine_id] = self._deps.is_engine_alive(engine_id)
        return alive


def _working_row(key: NodeKey, rows: dict[ResourceId, ResourceRecord]) -> ResourceId:
    """The row a node's message should name: the replacement when one stands for it."""
    row = rows.get(key.resource_id)
    if key.is_update and row is not None and row.replaced_by is not None:
        replacement = rows.get(row.replaced_by)
        if replacement is not None and replacement.replaces == row.id:
            return replacement.id
    return key.resource_id


def _reported_since(service: ServiceRecord, now: datetime) -> bool:
    """Heat's ``up``: the last report (or the start) at most two intervals old."""
    last = service.updated_at or service.created_at
    return now - last <= timedelta(seconds=2 * service.report_interval)

