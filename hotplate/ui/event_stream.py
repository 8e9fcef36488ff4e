"""The live stream of a stack's events: one watcher per stack, any number of pages.

::

    engine  <-- list_events(marker), show_stack  -- Watcher (one per project, stack,
                 every POLL_SECS, only while          nested_depth, per API process)
                 a page watches                           |  history of event views
                                                          v
                                         Subscription  Subscription ...  (one per page)
                                         batches <= BATCH_MAX every >= BATCH_SECS,
                                         else ``reset``; ``: keepalive`` when idle

The API never reads the database: a watcher asks the engine over the app's
RPC, as the events route does, with the context of the page that started it
(every page was checked for the stack's project and ``events:index`` before
joining). Twenty pages cost the engine what one costs.

Events are ordered by the engine's event ids (``list_events`` sorts by them);
on a database where two transactions can commit out of id order, an event can
appear behind one already read. So the watcher reads from the newest event it
has (the head) every POLL_SECS, and once every SETTLE_SECS from a second
marker that trails what it read by SETTLE_SECS, dropping events it has already
seen: a late event is still picked up, none twice, and an event is read about
twice rather than once per poll of its last second.

Resume (``Last-Event-ID``): the first page's watcher starts after that event;
a later page's event the watcher still holds is resumed from its history; an
older one from the engine (``list_events`` after that marker), then the
watcher's new events, minus those already sent. A page that gives none starts
with what the watcher reads next (it reads the past from the events API).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from hotplate.api.views import joined_status

LOG = logging.getLogger(__name__)

POLL_SECS = 0.25
"""How often a watcher asks the engine for new events."""
STATUS_SECS = 1.0
"""How often a watcher asks for the stack's status when no event came (at once when one did)."""
BATCH_SECS = 0.2
"""A page gets at most one batch of events this often: a burst is coalesced."""
BATCH_MAX = 500
"""The most events in one batch; more and the page is told ``reset`` (re-read the list)."""
KEEPALIVE_SECS = 15.0
"""An idle stream sends a comment this often (proxies close silent connections)."""
SETTLE_SECS = 1.0
"""How far the watcher's marker trails the newest event it read (late commits)."""
HISTORY = 2000
"""Events a watcher keeps for pages that join or resume late."""
POLL_LIMIT = 1000
"""Events asked for in one poll; a full page is followed by another at once."""

Call = Callable[..., Awaitable[Any]]
"""``await call(method, **kwargs)``: an engine call in the context of a page."""
EventView = Callable[[dict[str, Any]], dict[str, Any]]
Key = tuple[str, str, int]
"""(project, stack id, nested_depth)."""


_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def encode(data: Any) -> str:
    """One line of JSON; anything not JSON (datetimes and dataclasses included) as
    its str(), as the standard library's ``default=str`` would."""
    return orjson.dumps(data, default=str, option=_PASSTHROUGH).decode()


def frame(event: str | None, data: Any, event_id: str | None = None, *,
          encoded: str | None = None) -> str:
    """One server-sent event: its type, its id (what ``Last-Event-ID`` resumes from),
    its data as one line of JSON (``encoded`` when the caller has it already)."""
    lines = []
    if event:
        lines.append(f"event: {event}")
    if event_id:
        lines.append(f"id: {event_id}")
    lines.append("data: " + (encode(data) if encoded is None else encoded))
    return "\n".join(lines) + "\n\n"


def events_frame(encoded: list[str], last_id: str) -> str:
    """A batch of events, each encoded once when its watcher read it."""
    return frame("events", None, last_id, encoded="[" + ",".join(encoded) + "]")


KEEPALIVE = ": keepalive\n\n"


class Watcher:
    """Polls one stack's events and status while any page subscribes."""

    def __init__(self, hub: StreamHub, key: Key, call: Call, identity: dict[str, Any],
                 view: EventView, *, after: str | None = None) -> None:
        self.key = key
        self._hub = hub
        self._call = call
        self._identity = identity
        self._view = view
        self.history: deque[Seen] = deque()
        self._batches: dict[tuple[int, int], str] = {}
        """Batch frames by (first seq, next seq): pages in step share one."""
        self.index: dict[str, int] = {}
        self.next_seq = 0
        self.stack: dict[str, Any] | None = None
        self.stack_version = 0
        self.subscribers: set[Subscription] = set()
        self._read: deque[tuple[float, str]] = deque()  # (when read, event id), recent
        self._marker: str | None = after
        """Trails the events read by SETTLE_SECS: where a late event's check starts."""
        self._head: str | None = after
        """The newest event read: where the next poll starts."""
        self._late_due = 0.0
        self._started = after is not None
        self._task: asyncio.Task[None] | None = None

    @property
    def first_seq(self) -> int:
        return self.history[0].seq if self.history else self.next_seq

    @property
    def last_id(self) -> str | None:
        return self.history[-1].id if self.history else self._marker

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(),
                                                            name=f"ui-watch-{self.key[1]}")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def since(self, seq: int) -> list[Seen]:
        start = max(0, seq - self.first_seq)
        if start >= len(self.history):
            return []
        return [self.history[i] for i in range(start, len(self.history))]

    def batch(self, seq: int) -> str:
        """The frame of every event from ``seq`` on, made once for all the pages
        that are at ``seq`` now."""
        key = (seq, self.next_seq)
        text = self._batches.get(key)
        if text is None:
            seen = self.since(seq)
            text = events_frame([e.encoded for e in seen], seen[-1].id)
            if len(self._batches) >= 8:
                self._batches.clear()
            self._batches[key] = text
        return text

    async def engine(self, method: str, **kwargs: Any) -> Any:
        self._hub.calls[method] += 1
        return await self._call(method, **kwargs)

    async def _run(self) -> None:
        if not self._started:
            await self._first_marker()
        status_due = 0.0
        while True:
            try:
                fresh = await self._poll_events()
                if fresh or time.monotonic() >= status_due:
                    await self._poll_stack()
                    status_due = time.monotonic() + STATUS_SECS
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the engine away for a while: keep watching
                LOG.warning("web view stream of stack %s: %s: %s", self.key[1],
                            type(exc).__name__, exc)
                await asyncio.sleep(1.0)
            await asyncio.sleep(POLL_SECS)

    async def _first_marker(self) -> None:
        """Start after the stack's newest event: pages read what came before from
        the events API (or resume from it)."""
        while True:
            try:
                newest = await self.engine("list_events", stack_identity=self._identity,
                                           sort_dir="desc", limit=1,
                                           nested_depth=self.key[2])
                self._marker = self._head = newest[0]["id"] if newest else None
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                LOG.warning("web view stream of stack %s: %s", self.key[1], exc)
                await asyncio.sleep(1.0)

    async def _poll_events(self) -> bool:
        now = time.monotonic()
        start = self._head
        if now >= self._late_due:  # from the trailing marker: commits that came late
            self._late_due = now + SETTLE_SECS
            start = self._marker
        fresh = False
        while True:
            found = await self.engine("list_events", stack_identity=self._identity,
                                      marker=start, sort_dir="asc", limit=POLL_LIMIT,
                                      nested_depth=self.key[2])
            fresh = self._keep(found) or fresh
            if found:
                start = self._head = str(found[-1]["id"])
            if len(found) < POLL_LIMIT:
                break
        self._settle_marker()
        if fresh:
            self._wake()
        return fresh

    def _keep(self, found: list[dict[str, Any]]) -> bool:
        now = time.monotonic()
        added = False
        for event in found:
            event_id = str(event["id"])
            if event_id in self.index or event_id == self._marker:
                continue
            self.history.append(Seen(self.next_seq, event_id, encode(self._view(event))))
            self.index[event_id] = self.next_seq
            self._read.append((now, event_id))
            self.next_seq += 1
            added = True
        while len(self.history) > HISTORY:
            self.index.pop(self.history.popleft().id, None)
        return added

    def _settle_marker(self) -> None:
        """Move the marker to the newest event read at least SETTLE_SECS ago, and
        never further back than half the history (so what it re-reads is known)."""
        settled = time.monotonic() - SETTLE_SECS
        while self._read and (self._read[0][0] <= settled or len(self._read) > HISTORY // 2):
            self._marker = self._read.popleft()[1]

    async def _poll_stack(self) -> None:
        found = await self.engine("show_stack", stack_identity=self._identity,
                                  resolve_outputs=False)
        if not found:
            return
        stack = found[0]
        status = {"stack_status": joined_status(stack.get("stack_action"),
                                                stack.get("stack_status")),
                  "stack_status_reason": stack.get("stack_status_reason"),
                  "updated_time": stack.get("updated_time")}
        if status != self.stack:
            self.stack = status
            self.stack_version += 1
            self._wake()

    def _wake(self) -> None:
        for sub in self.subscribers:
            sub.wake.set()


@dataclass(frozen=True, slots=True)
class Seen:
    """An event a watcher read: its place, its id and its view, encoded once."""

    seq: int
    id: str
    encoded: str


@dataclass(eq=False)
class Subscription:
    """One page's place in a watcher's history, and what it must get first."""

    watcher: Watcher
    cursor: int
    backlog: list[Seen] = field(default_factory=list)
    skip_through: str | None = None
    """The page's Last-Event-ID, when the watcher had not read it yet: what comes
    up to it the page has."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    stack_version_sent: int = 0
    last_sent_id: str | None = None

    def has_news(self) -> bool:
        w = self.watcher
        return bool(self.backlog) or self.cursor < w.next_seq or (
            w.stack is not None and self.stack_version_sent != w.stack_version)

    def take(self) -> list[str]:
        """The frames due now: the events (or ``reset``), then the stack's status."""
        w = self.watcher
        frames = []
        if self.cursor < w.first_seq:
            frames.append(self._reset())
        elif not self.backlog and self.skip_through is None:
            if self.cursor < w.next_seq:  # the usual case: in step with the watcher
                if w.next_seq - self.cursor > BATCH_MAX:
                    frames.append(self._reset())
                else:
                    frames.append(w.batch(self.cursor))
                    self.last_sent_id = w.history[-1].id
        else:
            frames.extend(self._catch_up())
        self.cursor = w.next_seq
        if w.stack is not None and self.stack_version_sent != w.stack_version:
            self.stack_version_sent = w.stack_version
            frames.append(frame("stack", w.stack))
        return frames

    def _catch_up(self) -> list[str]:
        """A resumed page: its backlog, then the watcher's events it has not had."""
        events = self.backlog
        sent = {e.id for e in events}
        self.backlog = []
        new = self.watcher.since(self.cursor)
        if self.skip_through is not None:
            ids = [e.id for e in new]
            if self.skip_through in ids:
                new = new[ids.index(self.skip_through) + 1:]
                self.skip_through = None
        events = events + [e for e in new if e.id not in sent]
        if len(events) > BATCH_MAX:
            return [self._reset()]
        if not events:
            return []
        self.last_sent_id = events[-1].id
        return [events_frame([e.encoded for e in events], self.last_sent_id)]

    def _reset(self) -> str:
        self.last_sent_id = self.watcher.last_id or self.last_sent_id
        return frame("reset", {"reason": "too many events: read the list again"},
                     self.last_sent_id)


class StreamHub:
    """The watchers of one API process, by (project, stack, nested_depth)."""

    def __init__(self) -> None:
        self._watchers: dict[Key, Watcher] = {}
        self.calls: Counter[str] = Counter()
        """Engine calls the watchers made, by method (for tests and operators)."""
        self.closed = asyncio.Event()

    def watching(self) -> int:
        return len(self._watchers)

    async def subscribe(self, key: Key, call: Call, identity: dict[str, Any],
                        view: EventView, last_event_id: str | None) -> Subscription:
        """Join (or start) the stack's watcher, from ``last_event_id`` when given.

        A resume from an event older than the watcher holds reads the events
        after it with ``call`` (the page's own context); more than BATCH_MAX
        and the page is told ``reset``.
        """
        watcher = self._watchers.get(key)
        if watcher is None:  # the first page: the watcher starts where that page is
            watcher = self._watchers[key] = Watcher(self, key, call, identity, view,
                                                    after=last_event_id or None)
            sub = Subscription(watcher, 0)
            watcher.subscribers.add(sub)
            watcher.start()
            return sub
        sub = Subscription(watcher, watcher.next_seq)
        watcher.subscribers.add(sub)
        if last_event_id:
            if last_event_id in watcher.index:
                sub.cursor = watcher.index[last_event_id] + 1
            else:
                try:
                    await self._backlog(sub, call, identity, view, last_event_id)
                except BaseException:
                    self.leave(sub)
                    raise
        if sub.has_news():
            sub.wake.set()
        return sub

    async def _backlog(self, sub: Subscription, call: Call, identity: dict[str, Any],
                       view: EventView, last_event_id: str) -> None:
        self.calls["list_events"] += 1
        sub.cursor = sub.watcher.next_seq  # before asking: what comes meanwhile is kept
        found = await call("list_events", stack_identity=identity, marker=last_event_id,
                           sort_dir="asc", limit=BATCH_MAX + 1, nested_depth=sub.watcher.key[2])
        sub.skip_through = last_event_id
        sub.last_sent_id = last_event_id
        if len(found) > BATCH_MAX:
            sub.cursor = -1  # behind the history: the first frame is a reset
        else:
            sub.backlog = [Seen(-1, str(e["id"]), encode(view(e)))
                           for e in found if e["id"] != last_event_id]

    def leave(self, sub: Subscription) -> None:
        """The page went: the watcher stops with its last page."""
        watcher = sub.watcher
        watcher.subscribers.discard(sub)
        if not watcher.subscribers and self._watchers.get(watcher.key) is watcher:
            del self._watchers[watcher.key]
            watcher.stop()

    def close(self) -> None:
        """The server stops: every stream ends now, every watcher stops."""
        self.closed.set()
        for watcher in list(self._watchers.values()):
            watcher.stop()
            for sub in watcher.subscribers:
                sub.wake.set()
        self._watchers.clear()


async def frames(hub: StreamHub, sub: Subscription,
                 still_valid: Callable[[], Awaitable[bool]]) -> AsyncIterator[str]:
    """A page's stream: batches at most every BATCH_SECS, keepalives when idle; ends
    when the page goes (the caller cancels), the server stops, or the session's
    token stops being valid (checked at each keepalive)."""
    try:
        yield "retry: 3000\n\n"
        last_sent = 0.0
        while not hub.closed.is_set():
            if not sub.has_news():
                try:
                    await asyncio.wait_for(sub.wake.wait(), KEEPALIVE_SECS)
                except TimeoutError:
                    if not await still_valid():
                        return
                    yield KEEPALIVE
                    continue
            sub.wake.clear()
            if hub.closed.is_set():
                return
            wait = last_sent + BATCH_SECS - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            for text in sub.take():
                yield text
            last_sent = time.monotonic()
    finally:
        with contextlib.suppress(Exception):
            hub.leave(sub)
