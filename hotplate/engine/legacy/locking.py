"""Taking a legacy stack's lock, Heat's rules (stack_lock.py ``acquire``).

    the lock is                  then
    ---------------------------  ---------------------------------------------------
    free                         taken (one INSERT: the first engine wins)
    this engine's, no thread     let go, then taken: ours with nothing behind it
    held by a live engine        ActionInProgress (409); a delete (``preempt``) asks
                                 the holder to stop its thread, then takes it
    held by a dead engine        stolen (UPDATE ... WHERE engine_id = <dead>), once;
                                 released meanwhile: taken again, once

"Dead" is the rule every takeover follows (deps.is_engine_alive): its service
row is stale *and* it does not answer ``listening``; so no holder loses its
lock while its lease may still hold (engine/lease.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hotplate.engine.deps import EngineDeps
from hotplate.model.errors import ActionInProgress, StopActionFailed
from hotplate.model.ids import EngineId
from hotplate.model.records import StackRecord
from hotplate.rpc.errors import MessagingTimeout
from hotplate.rpc.topics import LISTENER_TOPIC

LOG = logging.getLogger(__name__)

STOP_STACK_TIMEOUT = 30.0
"""Seconds a holder has to stop its thread for a delete (Heat's STOP_STACK_TIMEOUT)."""


def take_lock(deps: EngineDeps, stack: StackRecord, *, running_here: Callable[[], bool],
              stop_here: Callable[[], object], preempt: bool = False) -> None:
    """Take ``stack``'s lock for this engine, or raise.

    ``running_here``: whether a thread of this engine works on the stack now;
    ``stop_here``: stop it and wait (a delete preempting it).

    Raises:
        ActionInProgress: a live engine (this one too) runs an operation of the stack.
        StopActionFailed: a delete could not stop the holder's thread.
    """
    store, me = deps.store, deps.engine_id
    for _ in range(3):  # again when the holder let it go as we looked
        holder = store.acquire_stack_lock(stack.id, me)
        if holder is None:
            return
        if holder == me:
            if not running_here():  # a thread that just ended, or a lock left behind
                LOG.info("stack %s: locked by this engine with no thread behind it", stack.id)
                store.release_stack_lock(stack.id, me)
                continue
            if not preempt:
                raise ActionInProgress(stack.name, str(stack.action))
            stop_here()
            continue
        if deps.is_engine_alive(holder):
            if not preempt:
                raise ActionInProgress(stack.name, str(stack.action))
            stop_remote(deps, stack, holder)
            continue
        LOG.info("stack %s: stale lock of engine %s; engine %s steals it", stack.id, holder,
                 me)
        if store.steal_stack_lock(stack.id, holder, me):
            return
    raise ActionInProgress(stack.name, str(stack.action))


def stop_remote(deps: EngineDeps, stack: StackRecord, holder: EngineId) -> None:
    """Ask ``holder`` to stop its thread of the stack (listener ``stop_stack``) and wait."""
    try:
        with deps.slots.released():
            stopped = deps.transport.call({}, LISTENER_TOPIC, "stop_stack",
                                          {"stack_identity": {"stack_id": str(stack.id)}},
                                          server=holder, timeout=STOP_STACK_TIMEOUT)
    except MessagingTimeout:
        stopped = False
    if not stopped:
        raise StopActionFailed(stack.name, holder)
