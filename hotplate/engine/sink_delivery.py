"""The delivery thread of one engine: events to their sinks, off the traversal's path.

Each round (woken by a queued event, else every ``interval`` seconds; the
first at engine start, which delivers what a stopped engine left):

1. **Queued events** (event_sinks.py ``observe``) are read back from the
   event table by uuid, so only written events go out, with their stored
   id and time. One not found yet is looked for again, for
   ``CONFIRM_WAIT_SECS``; after that its write is taken to have lost its
   race. Found events, in id order, go to each sink of their stack: a
   durable sink's into the outbox (db/outbox.py), any other's straight to
   ``consume`` (a failure logged, not retried: Heat's rule).
2. **The catch-up** (at the first round, then every ``catch_up_every``
   seconds): events of a durable sink's stack above its watermark, older
   than ``confirm_delay`` and handed over by nobody (their engine died
   between writing and handing them over) go to the outbox now, and the
   watermark moves past them (db/outbox.py). A sink the stack no longer
   has loses its watermark instead. Recovered events go out after newer
   ones already queued: order per stack holds except across a dead engine.
3. **The outbox**: due rows are claimed (by any engine: rows of a stopped
   one are delivered too) and sent one group (a sink of a stack) at a time,
   oldest first. A failure makes that row due again after an exponential
   backoff (``BACKOFF_BASE_SECS`` doubled each try, at most
   ``BACKOFF_MAX_SECS``, with jitter) and holds back the rest of its group;
   after ``MAX_ATTEMPTS`` tries the row is dropped with an error logged.

Delivery to a durable sink is thus at least once: an event queued both by
its slow engine and by the catch-up, or sent to a receiver whose answer was
lost, arrives twice, with the same ``id`` (and webhook ``Idempotency-Key``).
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from hotplate.db.outbox import Handed, OutboxRow, OutboxStore, Overdue
from hotplate.engine.event_sinks import EventSinks, Sinks, event_body, sink_key
from hotplate.engine.plugin_views import PluginContext
from hotplate.model.ids import StackId
from hotplate.model.records import EventRecord, NewEvent, StackRecord
from hotplate.ports import Clock

__all__ = ["DeliveryTiming", "SinkDelivery"]

LOG = logging.getLogger(__name__)

INTERVAL_SECS = 1.0
CONFIRM_WAIT_SECS = 30.0
BACKOFF_BASE_SECS = 1.0
BACKOFF_MAX_SECS = 300.0
MAX_ATTEMPTS = 60
"""About four and a half hours of tries at the longest backoff."""
CLAIM_LEASE_SECS = 120.0
CLAIM_BATCH = 200
CONFIRM_DELAY_SECS = 10.0
"""How old an event above a watermark must be before the catch-up takes it for one its
engine will never hand over (its engine hands it over within a second or so)."""
CATCH_UP_EVERY_SECS = 5.0
CATCH_UP_BATCH = 500
COLLECT_EVERY_SECS = 60.0
_JITTER = random.Random()


@dataclass(frozen=True, slots=True)
class DeliveryTiming:
    """The delivery thread's clocks (tests shorten them)."""

    interval: float = INTERVAL_SECS
    backoff_base: float = BACKOFF_BASE_SECS
    confirm_delay: float = CONFIRM_DELAY_SECS
    catch_up_every: float = CATCH_UP_EVERY_SECS


class EventSource(Protocol):
    def list_events(self, stack_id: StackId | Sequence[StackId], *,
                    filters: Mapping[str, Any] | None = None) -> list[EventRecord]: ...

    def get_stack(self, stack_id: StackId, *, include_deleted: bool = False,
                  ) -> StackRecord | None: ...


def backoff(attempts: int, base: float = BACKOFF_BASE_SECS) -> float:
    """Seconds before try ``attempts + 1`` (``attempts`` made so far, at least 1)."""
    delay = min(base * (2 ** max(attempts - 1, 0)), BACKOFF_MAX_SECS)
    return float(delay * (1.0 + 0.1 * _JITTER.random()))


class SinkDelivery:
    def __init__(self, sinks: EventSinks, events: EventSource, outbox: OutboxStore,
                 clock: Clock, timing: DeliveryTiming | None = None) -> None:
        self._sinks = sinks
        self._events = events
        self._outbox = outbox
        self._clock = clock
        self._timing = timing or DeliveryTiming()
        self._next_catch_up = 0.0
        self._next_collect = 0.0
        self._next_claim = 0.0
        self._outbox_grew = False
        """This engine wrote outbox rows (or found some due) since its last claim."""
        self._waiting: list[tuple[NewEvent, Sinks | None, float]] = []
        sinks.keep(outbox.watch)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="hotplate-event-sinks",
                                        daemon=True)

    def start(self) -> SinkDelivery:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """End the thread; events still queued go to the outbox (or their sinks) first,
        so a durable sink gets them from whichever engine runs next."""
        self._stopped.set()
        self._sinks.wake.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        try:
            self._take_queued()
        except Exception:
            LOG.exception("event sink delivery: queued events lost at stop")

    def _loop(self) -> None:
        while not self._stopped.is_set():
            self._sinks.wake.clear()  # before the round: an event queued during it wakes the next
            try:
                now = time.monotonic()
                claim = self._outbox_grew or now >= self._next_claim
                if claim:
                    self._next_claim = now + self._timing.interval
                self.run_once(claim=claim)
            except Exception:
                LOG.exception("event sink delivery failed; trying again")
            self._sinks.wake.wait(self._timing.interval if not self._waiting else 0.2)

    def run_once(self, *, claim: bool = True) -> None:
        """One round: queued events to their sinks, the catch-up when it is time, then
        what is due in the outbox.

        ``claim`` False skips the outbox unless this round wrote to it. The thread wakes
        on every queued event, most of them of stacks without durable sinks; it claims
        on its interval, or at once when this engine wrote rows or found more due, and
        otherwise would ask the database for nothing on each wake-up.
        """
        self._take_queued()
        now = time.monotonic()
        if now >= self._next_catch_up:
            self._next_catch_up = now + self._timing.catch_up_every
            try:
                self.catch_up()
            except Exception:  # the outbox still goes out; the next catch-up tries again
                LOG.exception("event sink catch-up failed")
        if claim or self._outbox_grew:
            self._outbox_grew = self._deliver_due()

    # -- queued events -------------------------------------------------------------
    def _take_queued(self) -> None:
        queue = self._sinks.queue
        while queue:
            self._waiting.append(queue.popleft())
        if not self._waiting:
            return
        by_stack: dict[str, list[tuple[NewEvent, Sinks, float]]] = {}
        for event, known, seen in self._waiting:
            sinks = known if known is not None else self._sinks.route(event.stack_id)
            if sinks:
                by_stack.setdefault(event.stack_id, []).append((event, sinks, seen))
        found: list[tuple[EventRecord, Sinks]] = []
        left: list[tuple[NewEvent, Sinks | None, float]] = []
        now = time.monotonic()
        for stack_id, items in by_stack.items():
            written = {e.uuid: e for e in self._events.list_events(
                StackId(stack_id), filters={"uuid": [item[0].uuid for item in items]})}
            for event, sinks, seen in items:
                record = written.get(event.uuid)
                if record is not None:
                    found.append((record, sinks))
                elif now - seen < CONFIRM_WAIT_SECS:
                    left.append((event, sinks, seen))
        self._waiting = left
        found.sort(key=lambda pair: pair[0].id)
        self._hand_over(found)

    def _hand_over(self, found: Sequence[tuple[EventRecord, Sinks]]) -> None:
        rows: list[dict[str, Any]] = []
        handed: list[Handed] = []
        contexts: dict[str, PluginContext | None] = {}
        for record, sinks in found:
            body = event_body(record)
            for sink in sinks:
                if self._sinks.types.durable(sink):
                    rows.append(_outbox_row(record, sink, body))
                    handed.append((str(record.stack_id), rows[-1]["sink_key"], record.id))
                    continue
                try:
                    context = self._context(contexts, str(record.stack_id))
                    self._sinks.types.build(sink).consume(context, body)
                except Exception:
                    LOG.warning("event sink %s of stack %s failed on event %s",
                                sink.get("type"), record.stack_id, record.uuid, exc_info=True)
        self._outbox.add(rows, handed)
        self._outbox_grew = self._outbox_grew or bool(rows)

    def _context(self, known: dict[str, PluginContext | None],
                 stack_id: str) -> PluginContext | None:
        if stack_id not in known:
            stack = self._events.get_stack(StackId(stack_id), include_deleted=True)
            known[stack_id] = PluginContext.of(stack) if stack is not None else None
        return known[stack_id]

    # -- the catch-up --------------------------------------------------------------
    def catch_up(self) -> None:
        """Hand over the events of durable sinks that no engine handed over (their
        engine died first), and move the watermarks past what was handed over."""
        cutoff = self._clock.now() - timedelta(seconds=self._timing.confirm_delay)
        groups: OrderedDict[tuple[str, str], list[Overdue]] = OrderedDict()
        for item in self._outbox.overdue(cutoff, CATCH_UP_BATCH):
            groups.setdefault((str(item.event.stack_id), item.sink_key), []).append(item)
        for (stack_id, key), items in groups.items():
            self._catch_up_sink(stack_id, key, items)
        now = time.monotonic()
        if now >= self._next_collect:
            self._next_collect = now + COLLECT_EVERY_SECS
            self._outbox.collect(cutoff - timedelta(seconds=self._timing.confirm_delay))

    def _catch_up_sink(self, stack_id: str, key: str, items: Sequence[Overdue]) -> None:
        missing = [item.event for item in items if not item.handed]
        rows: list[dict[str, Any]] = []
        if missing:
            current = {sink_key(sink) for sink in self._sinks.current(stack_id)}
            if key not in current:  # an update took the sink away: its events stop here
                self._outbox.forget(stack_id, key)
                return
            LOG.warning("stack %s: %d events never handed to its %s sink (their engine "
                        "stopped); handing them over now", stack_id, len(missing),
                        items[0].sink.get("type"))
            rows = [_outbox_row(event, items[0].sink, event_body(event)) for event in missing]
        self._outbox.advance(stack_id, key, items[0].watermark, items[-1].event.id, rows)
        self._outbox_grew = self._outbox_grew or bool(rows)

    # -- the outbox ----------------------------------------------------------------
    def _deliver_due(self) -> bool:
        """Send what is due; whether anything was (more may be due at once)."""
        token = str(uuid.uuid4())
        started = time.monotonic()
        lease = self._clock.now() + timedelta(seconds=CLAIM_LEASE_SECS)
        rows = self._outbox.claim(token, lease, CLAIM_BATCH)
        if not rows:
            return False
        groups: OrderedDict[tuple[str, str], list[OutboxRow]] = OrderedDict()
        for row in rows:
            groups.setdefault((row.stack_id, row.sink_key), []).append(row)
        firsts = self._outbox.first_ids(list(groups))
        contexts: dict[str, PluginContext | None] = {}
        for key, group in groups.items():
            in_time = time.monotonic() - started < CLAIM_LEASE_SECS / 2
            if firsts.get(key) != group[0].id or self._stopped.is_set() or not in_time:
                self._outbox.release([row.id for row in group], token)
                continue
            self._send_group(group, token, contexts)
        return True

    def _send_group(self, group: Sequence[OutboxRow], token: str,
                    contexts: dict[str, PluginContext | None]) -> None:
        for index, row in enumerate(group):
            try:
                context = self._context(contexts, row.stack_id)
                self._sinks.types.build(row.sink).consume(context, row.body)
            except Exception as exc:
                self._failed(row, token, exc)
                self._outbox.release([later.id for later in group[index + 1:]], token)
                return
            self._outbox.delivered(row.id, token)

    def _failed(self, row: OutboxRow, token: str, exc: Exception) -> None:
        attempts = row.attempts + 1
        if attempts >= MAX_ATTEMPTS:
            LOG.error("event %s of stack %s: sink %s gave up after %d tries: %s",
                      row.event_uuid, row.stack_id, row.sink.get("type"), attempts, exc)
            self._outbox.delivered(row.id, token)
            return
        delay = backoff(attempts, self._timing.backoff_base)
        LOG.info("event %s of stack %s: sink %s failed (try %d), again in %.1f s: %s",
                 row.event_uuid, row.stack_id, row.sink.get("type"), attempts, delay, exc)
        self._outbox.retry_at(row.id, token, self._clock.now() + timedelta(seconds=delay),
                              str(exc))


def _outbox_row(record: EventRecord, sink: Mapping[str, Any],
                body: Mapping[str, Any]) -> dict[str, Any]:
    return {"stack_id": str(record.stack_id), "event_uuid": record.uuid,
            "sink_key": sink_key(sink), "sink": dict(sink), "body": body}
