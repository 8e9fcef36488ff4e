"""``StatusBoard``: one per engine, the cloud objects its checks wait on, asked in batches.

A waiting check registers its object (``watch``) and then reads (``look``) what
the board last heard; per (service, endpoint, project) and tick, one list call
(a ``StatusLister``) answers every object waited on there, instead of one GET
per object per poll. The bookkeeping is ``status_board.KeyState`` (pure); here
are the lock, the clock and the calls.

Ticks are lazy: no thread of its own. The first check to look once a tick is
due runs it, in its own worker thread; a check that looks while the tick is in
flight waits for it (up to ``IN_FLIGHT_WAIT``); the others read at once and are
told when the next tick is due, which their ``CheckAgain(after)`` honours, so
parked actions come back together with the ticks and no check makes its own
GET. With nobody looking, nothing is asked.

Where the engine can wake a parked check (``wake_with``: its parked actions'
``wake``), news is pushed instead: only the driver's check comes back with
each tick, and a tick wakes the checks it has news for, each parked under
``wake_key_of(service, id)`` (``status_board``, "News is pushed").

The key's project is the credentials' project (two stacks of one project share
their ticks); the tick runs with the credentials of the check that runs it.
When the board cannot serve (no credentials, no project), ``watch`` answers
None and the plugin asks the cloud itself.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from hotplate.cloud.errors import CloudError
from hotplate.cloud.status_board import KeyState
from hotplate.resources.openstack.status_listing import Sighting, StatusLister, wake_key_of

__all__ = ["IN_FLIGHT_WAIT", "StatusBoard"]

LOG = logging.getLogger(__name__)

IN_FLIGHT_WAIT = 10.0
"""How long a check that finds a tick in flight waits for its answer."""
MAX_KEYS = 256
"""Keys kept (least recently used dropped first), so the board stays bounded."""

Key = tuple[str, str, str]


class StatusBoard:
    """The engine's batched view of what its checks wait on (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._states: OrderedDict[Key, KeyState] = OrderedDict()
        self._lock = threading.Condition()
        self._wake: Callable[[str], Any] | None = None
        self._keys: weakref.WeakKeyDictionary[Any, dict[str, Key]] = (
            weakref.WeakKeyDictionary())

    def wake_with(self, wake: Callable[[str], Any]) -> None:
        """Push news: ``wake(wake_key_of(service, id))`` re-checks at once the action
        parked on that object (the engine's ``ParkedActions.wake``)."""
        self._wake = wake

    def _key(self, cloud: Any, lister: StatusLister) -> Key | None:
        """The key of ``cloud``'s waits on ``lister``'s objects, found once per cloud
        object (a catalog lookup is no small part of a check's cost)."""
        with self._lock:
            try:
                known = self._keys.get(cloud)
            except TypeError:  # a cloud that takes no weakref: looked up each time
                known = None
            if known is not None and lister.service in known:
                return known[lister.service]
        try:
            project = cloud.project_identity()
            endpoint = lister.endpoint(cloud) if project else None
        except CloudError:
            return None
        if not project or not endpoint:
            return None
        key = (lister.service, str(endpoint), str(project))
        with self._lock, contextlib.suppress(TypeError):  # a cloud that takes no weakref
            self._keys.setdefault(cloud, {})[lister.service] = key
        return key

    def _state(self, key: Key) -> KeyState:
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = KeyState()
            while len(self._states) > MAX_KEYS:
                self._states.popitem(last=False)
        self._states.move_to_end(key)
        return state

    def watch(self, cloud: Any, lister: StatusLister, ident: str, *,
              until_gone: bool = False, patient: bool = False) -> int | None:
        """Wait on ``ident`` through the board; the ticket to read with, or None when the
        board cannot serve this cloud (the plugin then asks the cloud itself)."""
        key = self._key(cloud, lister)
        if key is None:
            return None
        with self._lock:
            return self._state(key).register(ident, self._clock(), until_gone=until_gone,
                                             patient=patient)

    def look(self, cloud: Any, lister: StatusLister, ident: str, ticket: int,
             ) -> Sighting | None:
        """What the board knows of ``ident`` for the check holding ``ticket``, running
        the tick first if one is due; None when the board cannot serve now (the check
        asks the cloud itself)."""
        key = self._key(cloud, lister)
        if key is None:
            return None
        with self._lock:
            state = self._state(key)
            if ident not in state.watches:  # expired, or the key was dropped
                ticket = state.register(ident, self._clock())
            if state.tick_due(self._clock()):
                number, plan = state.begin_tick(self._clock())
            else:
                number = 0
                if state.in_flight and state.completed <= ticket:
                    self._lock.wait_for(lambda: not state.in_flight, IN_FLIGHT_WAIT)
        if number:
            # its own object too: another check may wait on it (this one reads it below,
            # and finds nothing new when woken)
            self._push(lister, self._run_tick(cloud, lister, state, number, plan))
        with self._lock:
            if not state.serving:
                return None
            return state.read(ident, ticket, self._clock(), pushed=self._wake is not None)

    def forget(self, cloud: Any, lister: StatusLister, ident: str) -> None:
        """Stop waiting on ``ident`` (its check is done)."""
        key = self._key(cloud, lister)
        with self._lock:
            state = self._states.get(key) if key is not None else None
            successor = state.forget(ident) if state is not None else None
        self._push(lister, [successor] if successor is not None else [])

    def _push(self, lister: StatusLister, idents: list[str]) -> None:
        """Wake the checks parked on ``idents`` (news is pushed only with ``wake_with``)."""
        wake = self._wake
        if wake is None:
            return
        for ident in idents:
            try:
                wake(wake_key_of(lister.service, ident))
            except Exception:  # a wake-up lost costs a wait its safety net, no more
                LOG.exception("could not wake the check waiting on %s", ident)

    def _run_tick(self, cloud: Any, lister: StatusLister, state: KeyState, number: int,
                  plan: Any) -> list[str]:
        """One tick's call and its bookkeeping; the waits it has news for."""
        try:
            listing = lister.list(cloud, plan)
        except Exception as exc:  # any failure of the batch call: no news this tick
            LOG.warning("listing %s for waiting checks failed (%s); asking again later",
                        lister.service, exc, exc_info=not isinstance(exc, CloudError))
            with self._lock:
                woken = state.fail_tick(self._clock())
                self._lock.notify_all()
            return woken
        with self._lock:
            state.end_tick(number, listing, self._clock())
            self._lock.notify_all()
            return state.woken()
