"""Signals delivered to their plugin: stored first, applied once, re-driven if lost.

``deliver`` is what ``resource_signal`` does once the signal passed Heat's
checks (engine/service/resource_actions.py):

1. the signal is stored (``resource_signal`` table) under its id: the
   plugin's ``signal_id_keys`` in the details (a wait condition's ``id``),
   else one made here. A signal whose id is stored already is a repeat and
   goes no further, whichever engine has it;
2. the plugin's ``handle_signal`` runs in a thread of this engine (the caller
   has its answer already), or at once with ``sync``;
3. the signal is marked applied. A handler that writes metadata, its own
   row's (a wait condition handle) or another resource's (a scaling policy
   starting its group's scaling), does it through ``SignalledContext``
   (signalled_context.py), which writes the metadata and the applied mark in
   one transaction, a compare-and-swap on the unlocked row's atomic_key: so
   the write is serialised with convergence writes on the row, and a signal
   applied twice (its engine died after the write, and the sweep re-drove it)
   changes the metadata once, and scales a group once.

Signals of one resource are applied one at a time in an engine (a lock per
resource), so fifty at once queue rather than fight over the row.

Afterwards the stack's resources whose attributes read signal data (a wait
condition's ``data``) forget their stored attributes, so outputs and views
resolve them afresh (Heat refreshes their node data), those whose metadata
follows their template resolve it again (metadata_refresh.py; after a
SignalWork, once it ends), and actions parked on
the stack's signals (a wait condition waiting for its handle) are checked
at once, here or on the engine holding them.

The handler's outcomes::

    returns a result          applied; SIGNAL event "Signal: <result>" (or the details' text)
    returns a SignalWork      applied; polled to its end in the background, then the event
    raises NoActionRequired   applied; logged, no event (Heat's)
    raises anything else      applied (it would fail again); logged, and for ``sync``
                              raised (a ValueError, bad signal data, as Invalid: a 400)
    the row stays locked      not applied: left to the recovery sweep
    the database is lost      not applied: left to the recovery sweep

``redrive_signals`` is the sweep's part (engine/worker/recovery.py): every
signal stored longer than ``stalled_traversal_timeout`` ago and not applied
is claimed by one engine (a compare-and-swap on its attempt time, so at most
once per timeout) and applied again.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, cast

from hotplate.convergence.node_plan import DEFAULT_TIMEOUT_MINS
from hotplate.engine.deps import EngineDeps
from hotplate.engine.errors import Invalid
from hotplate.engine.events import resource_event
from hotplate.engine.hosting.row_plugins import row_context
from hotplate.engine.worker.metadata_refresh import refresh_metadata
from hotplate.engine.worker.signalled_context import (
    SignalAlreadyApplied,
    SignalDeferred,
    SignalDropped,
    SignalledContext,
)
from hotplate.model.errors import ResourceFailure
from hotplate.model.ids import ResourceId, StackId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.signals import StoredSignal
from hotplate.model.states import Action
from hotplate.ports import StoreUnavailable
from hotplate.resources.base import Resource, ResourceContext
from hotplate.resources.signals import (
    NoActionRequired,
    SignalWork,
    signal_id,
    signal_wake_key,
)

LOG = logging.getLogger(__name__)

NO_SIGNAL_ACTIONS = (Action.SUSPEND, Action.DELETE)
MAX_SIGNAL_ID = 255
REDRIVE_BATCH = 100


# -- one at a time per resource ----------------------------------------------------------
_guard = threading.Lock()
_locks: dict[ResourceId, tuple[threading.Lock, int]] = {}


@contextmanager
def _one_at_a_time(resource_id: ResourceId) -> Iterator[None]:
    with _guard:
        lock, users = _locks.get(resource_id, (threading.Lock(), 0))
        _locks[resource_id] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with _guard:
            lock, users = _locks[resource_id]
            if users <= 1:
                del _locks[resource_id]
            else:
                _locks[resource_id] = (lock, users - 1)


# -- delivery ----------------------------------------------------------------------------
def stored_signal_id(cls: type[Resource], details: Any, deps: EngineDeps) -> str:
    """The id a signal is stored under: the sender's (hashed when too long), else new."""
    given = signal_id(cls, details)
    if given is None:
        return f"auto:{deps.ids.new_uuid()}"
    if len(given) > MAX_SIGNAL_ID:
        return "sha256:" + hashlib.sha256(given.encode()).hexdigest()
    return given


def deliver(deps: EngineDeps, stack: StackRecord, row: ResourceRecord, cls: type[Resource],
            details: Any, *, sync: bool = False) -> None:
    """Store the signal, then apply it in a thread (``sync``: before returning).

    Raises:
        Invalid: with ``sync``, the handler refused the details (a ValueError).
        ResourceFailure: with ``sync``, the handler failed otherwise.
    """
    stored = deps.store.record_signal(stack.id, row.id, stored_signal_id(cls, details, deps),
                                      details)
    if stored is None:
        LOG.info("signal to %s of stack %s: a repeat of an id already stored; ignored",
                 row.name, stack.id)
        return
    if sync:
        apply(deps, stored, raise_failure=True)
        return
    threading.Thread(target=apply, args=(deps, stored), daemon=True,
                     name=f"hotplate-signal-{row.name}").start()


def apply(deps: EngineDeps, signal: StoredSignal, *, raise_failure: bool = False) -> bool:
    """Run the plugin's handler for a stored signal; True once it is applied.

    Raises:
        ResourceFailure: with ``raise_failure``, the handler failed.
    """
    store = deps.store
    with _one_at_a_time(signal.resource_id):
        try:
            row = store.get_resource(signal.resource_id)
            stack = store.get_stack(row.stack_id) if row is not None else None
            if row is None or stack is None or stack.deleted_at is not None:
                store.mark_signal_applied(signal.id)
                return True
            if row.action in NO_SIGNAL_ACTIONS:
                LOG.info("signal to %s of stack %s dropped: resource in %s", row.name,
                         stack.id, row.action)
                store.mark_signal_applied(signal.id)
                return True
            return _run_handler(deps, stack, row, signal, raise_failure)
        except StoreUnavailable:
            if raise_failure:
                raise
            LOG.warning("signal %s to resource %s: database lost; left to the sweep",
                        signal.signal_id, signal.resource_id, exc_info=True)
            return False


def _run_handler(deps: EngineDeps, stack: StackRecord, row: ResourceRecord,
                 signal: StoredSignal, raise_failure: bool) -> bool:
    loaded = deps.caches.template(stack.raw_template_id)
    cls = deps.types.for_resource(loaded.env, row.name, row.resource_type, loaded.files)
    ctx = row_context(deps, row, stack)
    deadline = _work_deadline(deps, stack)
    signalled = SignalledContext(ctx, deps, signal, deadline)
    instance = cls(row.name, row.properties_data or {}, cast(ResourceContext, signalled),
                   resource_id=row.physical_resource_id)
    store = deps.store
    try:
        result = instance.handle_signal(signal.details)  # type: ignore[attr-defined]
        ctx.flush()
    except SignalAlreadyApplied:
        LOG.info("signal %s to %s: applied by another engine", signal.signal_id, row.name)
        return True
    except SignalDeferred:
        LOG.warning("signal %s to %s: the resource stays locked; left to the sweep",
                    signal.signal_id, row.name)
        return False
    except SignalDropped:
        store.mark_signal_applied(signal.id)
        return True
    except NoActionRequired as exc:
        store.mark_signal_applied(signal.id)
        LOG.info("signal to %s of stack %s ignored: %s", row.name, stack.id, exc)
        return True
    except StoreUnavailable:
        raise
    except Exception as exc:
        store.mark_signal_applied(signal.id)
        LOG.info("signal to %s of stack %s failed", row.name, stack.id, exc_info=True)
        if raise_failure:
            if isinstance(exc, ValueError):  # the signal itself is wrong: the caller's 400
                raise Invalid(str(exc)) from exc
            raise ResourceFailure(exc, "SIGNAL") from exc
        return True
    store.mark_signal_applied(signal.id)
    refresh = getattr(cls, "signal_needs_metadata_updates", False)
    if isinstance(result, SignalWork):
        threading.Thread(target=_finish,
                         args=(deps, stack, row, result, signal.details, deadline, refresh),
                         name=f"hotplate-signal-{row.name}", daemon=True).start()
    else:
        _signalled(deps, row, result, signal.details)
        if refresh:
            refresh_metadata(deps, stack, row)
    if refresh:
        _refresh_readers(deps, stack, row)
    _wake_waiters(deps, stack)
    return True


def _signalled(deps: EngineDeps, row: ResourceRecord, result: Any, details: Any) -> None:
    reason = f"Signal: {result}" if result else signal_reason(details)
    deps.store.add_event(resource_event(deps, row, "SIGNAL", str(row.status), reason))


def _work_deadline(deps: EngineDeps, stack: StackRecord) -> datetime:
    """When a signal's background work is given up: Heat's handler would have waited
    so long (the stack's timeout) before answering."""
    return deps.clock.now() + timedelta(minutes=stack.timeout_mins or DEFAULT_TIMEOUT_MINS)


def _finish(deps: EngineDeps, stack: StackRecord, row: ResourceRecord, work: SignalWork,
            details: Any, deadline: datetime, refresh: bool) -> None:
    """A signal's background work, to its end (``deadline`` at most), then its event
    and, if the type asks for it, the other resources' metadata: when Heat's handler
    would have returned."""
    error: BaseException | None = None
    try:
        deps.runner.run(None, lambda _: work.check(), deadline=deadline, cancelled=None)
    except Exception as exc:
        error = exc
        LOG.info("signal to %s of stack %s failed: %s", row.name, stack.id, exc,
                 exc_info=True)
    try:
        work.finish(error)
        if error is None:
            _signalled(deps, row, None, details)
        if refresh:
            refresh_metadata(deps, stack, row)
    except Exception:
        LOG.exception("signal to %s of stack %s could not finish", row.name, stack.id)


def _refresh_readers(deps: EngineDeps, stack: StackRecord, signalled: ResourceRecord) -> None:
    """Created resources whose attributes read signal data forget what they stored,
    so views and outputs resolve it afresh (Heat's node data refresh). A row a
    worker holds is left alone: it stores its attributes when it completes."""
    loaded = deps.caches.template(stack.raw_template_id)
    for row in deps.store.list_resources(stack.id):
        if (row.id == signalled.id or row.action is Action.INIT or not row.attr_data
                or row.engine_id is not None):
            continue
        try:
            cls = deps.types.for_resource(loaded.env, row.name, row.resource_type,
                                          loaded.files)
        except Exception:  # its type is gone: nothing to refresh
            continue
        if getattr(cls, "refreshed_by_signals", False):
            deps.store.update_resource_if_unlocked(row.id, row.atomic_key, {"attr_data": {}})


def _wake_waiters(deps: EngineDeps, stack: StackRecord) -> None:
    """Check at once the actions parked on the stack's signals, wherever they are."""
    key = signal_wake_key(str(stack.id))
    if deps.parked is not None:
        deps.parked.wake(key)
    holders = {row.engine_id for row in deps.store.list_resources(stack.id)
               if row.engine_id is not None and row.engine_id != deps.engine_id}
    for engine in sorted(holders):
        try:
            deps.worker_client.wake_parked(StackId(key), engine)
        except Exception:  # the holder is gone: its back-off, or the takeover, checks
            LOG.debug("could not wake engine %s for %s", engine, key, exc_info=True)


def signal_reason(details: Any) -> str:
    """Heat's event text for a signal's details."""
    if details is None:
        return "No signal details provided"
    if isinstance(details, str):
        return details
    if isinstance(details, Mapping):
        if all(key in details for key in ("previous", "current", "reason")):
            return (f"alarm state changed from {details['previous']} to "
                    f"{details['current']} ({details['reason']})")
        if "state" in details:
            return f"alarm state changed to {details['state']}"
    return "Unknown"


# -- the sweep's part --------------------------------------------------------------------
def redrive_signals(deps: EngineDeps) -> int:
    """Apply again the signals stored over ``stalled_traversal_timeout`` ago and not
    applied (their engine died, or their row stayed locked); returns how many."""
    store = deps.store
    store.delete_orphan_signals()
    before = deps.clock.now() - timedelta(seconds=deps.options.stalled_traversal_timeout)
    applied = 0
    for signal in store.signals_to_redrive(before, REDRIVE_BATCH):
        claimed = store.claim_signal(signal)
        if claimed is None:
            continue
        LOG.warning("signal %s to resource %s was not applied; applying it again",
                    signal.signal_id, signal.resource_id)
        try:
            applied += apply(deps, claimed)
        except Exception:  # one signal's trouble must not stop the others'
            LOG.exception("signal %s to resource %s: re-drive failed", signal.signal_id,
                          signal.resource_id)
    return applied

