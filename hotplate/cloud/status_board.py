"""The bookkeeping of batched waits for one (service, endpoint, project): pure.

Checks register the ids they wait on; per tick the board asks the service once
(``ListPlan``) and absorbs what it learns (``Listing``); each check then reads
its object's latest record (``Sighting``). No I/O and no clock here: times come
in as arguments (the engine's monotonic seconds for scheduling, the cloud's own
timestamps for the watermark); ``batched_waits`` does the calls and the locking.

Rules, each with its why:

- **Watermark from the cloud's clock.** The next tick asks for changes since the
  newest change time the cloud reported, minus ``MARGIN`` (changes committed out
  of order, timestamps in whole seconds). The engine's clock never enters it, so
  a skewed engine loses nothing. It never moves back.
- **Fresh news only.** A check registers with a ticket (the number of ticks
  started so far) and is told something only once a tick that started after it
  has answered: the record then reflects whatever the check's own action did (a
  rebuild's stale ACTIVE is never read as done). Records unchanged since are
  still current, because the watermark's windows overlap.
- **Not listed for long.** An id no tick has listed for ``UNSEEN_TICKS`` fresh
  ticks in a row (an object last changed before the watermark, a resumed wait) is
  looked at once by itself (``probe``), at most ``PROBES_PER_TICK`` a tick. A
  patient wait (its check has just made the object, or asked it to change) waits
  ``PATIENT_UNSEEN_TICKS``: what it waits for is a change, which the changes list
  will show; a new volume Cinder has not touched yet is not listed until then,
  and probing it early would cost one call per object for nothing. An object
  already heard of is probed after ``STALE_RECORD_TICKS``: a change can escape
  every changes list (one committed more than ``MARGIN`` after the time it
  carries, on a loaded cloud; Nova never lists a server deleted before it was
  scheduled), and the last record heard (BUILD) would be read for ever; an object
  that just sits in BUILD on a busy cloud costs a probe that often. With many
  waits, both counts for a patient or a stale wait grow with their number, so
  that such probes average ``STALE_PROBES_PER_TICK`` a tick (500 servers queued
  in BUILD cost 2 GETs a second, not 8 to 25). A listing restarts each count.
- **Exact answers for deletes.** A wait until gone asks for an exact answer
  (listed, or gone): services whose changes lists omit deleted objects cannot
  tell "unchanged" from "gone".
- **Back-off when nothing moves.** The interval between ticks grows from
  ``FIRST_INTERVAL`` by ``GROWTH`` up to ``MAX_INTERVAL`` while no watched object
  changes, and is reset when one does, or when a new wait registers.
- **No news on failure.** A failed tick changes nothing but the interval; checks
  keep waiting (a batch call failing never fails a resource). After
  ``FAILURES_TO_FALL_BACK`` failures in a row the checks ask the cloud themselves
  (a list the policy refuses must not stall every wait) until a tick answers.
- **Forgotten waits expire.** A wait no check has read for ``WATCH_TTL`` is
  dropped, so a check that never came back costs nothing for long.
- **News is pushed** (``read(pushed=True)``, where the engine can wake a parked
  check): one wait, the *driver*, is told to come back with each tick and so runs
  it; the others are told ``PUSHED_RECHECK`` (longer with many waits), a safety
  net, and each tick names the waits it has news for (``woken``: what they would
  read now differs from what they read last), whose checks the engine wakes. A
  thousand servers building cost one check a tick, not a thousand. A driver that
  stops reading hands over: done, ``forget`` names a successor to wake (the wait
  read last); silent for ``DRIVER_SILENT`` (its stack cancelled), the next reader
  replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hotplate.resources.openstack.status_listing import (
    MARGIN,
    Listing,
    ListPlan,
    Sighting,
    changed_at,
)

__all__ = ["DRIVER_SILENT", "FIRST_INTERVAL", "MAX_INTERVAL", "PATIENT_UNSEEN_TICKS",
           "PUSHED_RECHECK", "PUSHED_RECHECKS_PER_SECOND", "STALE_PROBES_PER_TICK",
           "STALE_RECORD_TICKS", "KeyState", "Watch", "back_off", "next_watermark"]

FIRST_INTERVAL = 1.0
MAX_INTERVAL = 5.0
GROWTH = 1.5
UNSEEN_TICKS = 3
PATIENT_UNSEEN_TICKS = 20
STALE_RECORD_TICKS = 60
"""Unlisted ticks after which an object already heard of is looked at by itself."""
STALE_PROBES_PER_TICK = 2
"""About how many probes of patient or stale waits a tick makes on average when many
objects are waited on."""
PROBES_PER_TICK = 25
FAILURES_TO_FALL_BACK = 3
WATCH_TTL = 300.0
"""Seconds a wait is kept without a check reading it."""
SLACK = 0.05
"""A check is asked back this long after the tick is due, so it finds the tick due."""
PUSHED_RECHECK = 20.0
"""Seconds a wait that is not the driver sleeps when news is pushed: a safety net only
(a wake-up lost with an engine's message, a tick that never ran)..."""
PUSHED_RECHECKS_PER_SECOND = 5.0
"""... and with many waits, longer: about this many such checks a second in all (500
servers queued in BUILD: each every 100 s)."""
DRIVER_SILENT = 3 * MAX_INTERVAL
"""A driver that has not read for this long is replaced by the next wait that reads."""
_PENDING = object()
"""What a wait reads before any news (its ``told`` starts there)."""
_GONE = object()


def next_watermark(previous: datetime | None, newest: datetime | None) -> datetime | None:
    """The next tick's ``since``: the newest change seen minus ``MARGIN``, never going back."""
    if newest is None:
        return previous
    candidate = newest - MARGIN
    return candidate if previous is None or candidate > previous else previous


def back_off(interval: float, moved: bool) -> float:
    """The next interval between ticks: reset when something moved, else grown."""
    return FIRST_INTERVAL if moved else min(MAX_INTERVAL, interval * GROWTH)


def _same(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    return old is not None and (old.get("status"), changed_at(old)) == (
        new.get("status"), changed_at(new))


@dataclass
class Watch:
    """One id waited on."""

    ticket: int
    """Ticks started when the wait registered (news must come from a later one)."""
    read_at: float
    until_gone: bool = False
    unseen: int = 0
    """Fresh ticks since registering that did not list the object."""
    patient: bool = False
    """The check has just acted on the object: its change will be listed."""
    told: object = _PENDING
    """What its check read last (the record, or no news, or gone): a tick wakes the
    check when that is no longer what it would read."""

    def probe_due(self, heard: bool, crowd: int = 0) -> bool:
        """Whether to look at the object by itself, ``heard`` of it already or not, with
        ``crowd`` the ticks that spread such probes over this many waits."""
        if heard:
            return self.unseen >= max(STALE_RECORD_TICKS, crowd)
        if self.patient:
            return self.unseen >= max(PATIENT_UNSEEN_TICKS, crowd)
        return self.unseen >= UNSEEN_TICKS


@dataclass
class KeyState:
    """Everything the board knows for one (service, endpoint, project)."""

    watches: dict[str, Watch] = field(default_factory=dict)
    records: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    watermark: datetime | None = None
    started: int = 0
    completed: int = 0
    """The number of the last tick that answered (ticks are numbered from 1)."""
    in_flight: bool = False
    failures: int = 0
    """Ticks failed in a row (``serving`` says whether checks should ask the cloud
    themselves meanwhile)."""
    interval: float = FIRST_INTERVAL
    due: float = 0.0
    """When the next tick is due (engine seconds)."""
    driver: str | None = None
    """The wait whose check comes back with every tick, and so runs it, when news is
    pushed; the other checks sleep until a tick wakes them."""

    # -- waits ------------------------------------------------------------------------
    def register(self, ident: str, now: float, *, until_gone: bool = False,
                 patient: bool = False) -> int:
        """Wait on ``ident`` from now on; the ticket that later reads must present."""
        self.watches[ident] = Watch(self.started, now, until_gone, patient=patient)
        self.gone.discard(ident)
        self.interval = FIRST_INTERVAL
        self.due = min(self.due, now + FIRST_INTERVAL) if self.completed else now
        return self.started

    def forget(self, ident: str) -> str | None:
        """Stop waiting on ``ident``; the wait to wake as the next driver when it was
        the driver (None: nobody needs waking)."""
        self.watches.pop(ident, None)
        self.records.pop(ident, None)
        self.gone.discard(ident)
        if self.driver != ident:
            return None
        self.driver = None
        # the wait read last: the likeliest to have a check still coming back
        return max(self.watches, key=lambda i: self.watches[i].read_at, default=None)

    def read(self, ident: str, ticket: int, now: float, *, pushed: bool = False
             ) -> Sighting:
        """What the board can tell the check holding ``ticket`` about ``ident``, and
        when to come back: with the next tick, or (``pushed``, not the driver) only
        on the safety net, since a tick with news for it wakes it."""
        watch = self.watches.get(ident)
        # while a tick is in flight the next is due an interval after it ends
        after = (self.interval if self.in_flight else max(self.due - now, 0.0)) + SLACK
        if watch is not None and pushed and not self._drives(ident, now):
            crowd = len(self.watches) / PUSHED_RECHECKS_PER_SECOND
            after = min(max(PUSHED_RECHECK, crowd), WATCH_TTL / 2)  # read before it expires
        if watch is not None:
            watch.read_at = now
        if self.completed <= ticket:
            seen = Sighting(None, False, after)
        elif ident in self.gone:
            seen = Sighting(None, True, after)
        else:
            seen = Sighting(self.records.get(ident), False, after)
        if watch is not None:
            watch.told = self._readable(ident, watch)
        return seen

    def woken(self) -> list[str]:
        """The waits whose checks would now read something other than they read last
        (after ``end_tick``: the ones to wake when news is pushed)."""
        return [ident for ident, watch in self.watches.items()
                if self._readable(ident, watch) != watch.told]

    def _readable(self, ident: str, watch: Watch) -> object:
        if self.completed <= watch.ticket:
            return _PENDING
        if ident in self.gone:
            return _GONE
        record = self.records.get(ident)
        return _PENDING if record is None else record

    def _drives(self, ident: str, now: float) -> bool:
        """Whether ``ident``'s check is (or now becomes) the driver."""
        current = self.watches.get(self.driver) if self.driver is not None else None
        if current is None or self.driver == ident or now - current.read_at > DRIVER_SILENT:
            self.driver = ident
            return True
        return False

    def tick_due(self, now: float) -> bool:
        return bool(self.watches) and not self.in_flight and now >= self.due

    # -- a tick -----------------------------------------------------------------------
    def begin_tick(self, now: float) -> tuple[int, ListPlan]:
        """Start a tick: its number and what to ask."""
        self._expire(now)
        self.in_flight = True
        self.started += 1
        waiting = {i: w for i, w in self.watches.items() if i not in self.gone}
        crowd = len(waiting) // STALE_PROBES_PER_TICK
        probe = sorted(i for i, w in waiting.items() if w.probe_due(i in self.records, crowd))
        exact = frozenset(i for i, w in waiting.items() if w.until_gone)
        return self.started, ListPlan(self.watermark, exact,
                                      frozenset(probe[:PROBES_PER_TICK]),
                                      frozenset(waiting))

    def end_tick(self, number: int, listing: Listing, now: float) -> bool:
        """Absorb a tick's answer; whether a watched object moved."""
        moved = False
        for ident, record in listing.records.items():
            if ident in self.watches:
                moved = moved or not _same(self.records.get(ident), record)
                self.records[ident] = record
        for ident in listing.gone & self.watches.keys():
            moved = moved or ident not in self.gone
            self.gone.add(ident)
            self.records.pop(ident, None)
        for ident, watch in self.watches.items():
            if ident in listing.records:
                watch.unseen = 0
            elif watch.ticket < number:
                watch.unseen += 1
        newest = max((t for t in (changed_at(r) for r in listing.records.values()) if t),
                     default=None)
        if listing.newest is not None and (newest is None or listing.newest > newest):
            newest = listing.newest
        self.watermark = next_watermark(self.watermark, newest)
        self.completed = number
        self.failures = 0
        self._schedule(now, moved)
        return moved

    def fail_tick(self, now: float) -> list[str]:
        """A tick whose call failed: no news; the next one after the grown interval.
        The waits to wake: all of them, when this failure stops the board serving
        (their checks then ask the cloud themselves)."""
        self.failures += 1
        self._schedule(now, False)
        return list(self.watches) if self.failures == FAILURES_TO_FALL_BACK else []

    @property
    def serving(self) -> bool:
        """False once ``FAILURES_TO_FALL_BACK`` ticks failed in a row (a list the
        project's policy refuses, a service down): checks then ask the cloud themselves,
        as they would without a board, until a tick answers again."""
        return self.failures < FAILURES_TO_FALL_BACK

    def _schedule(self, now: float, moved: bool) -> None:
        self.in_flight = False
        self.interval = back_off(self.interval, moved)
        self.due = now + self.interval

    def _expire(self, now: float) -> None:
        for ident in [i for i, w in self.watches.items() if now - w.read_at > WATCH_TTL]:
            self.forget(ident)
