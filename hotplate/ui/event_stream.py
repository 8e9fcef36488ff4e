"""The live stream of a stack's events: one watcher per stack, any number of pages.

::

    engine  <-- list_event_summaries(marker)    -- Watcher (one per project, stack,
                every POLL_SECS, show_stack every   nested_depth, per API process)
                STATUS_SECS; while a page watches         |  history of event views
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
a later page's event the watcher still holds, or the one it started after (pages
that loaded together), is resumed from its history, in step with the others; an
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
from typing import Any

from hotplate.api.views import joined_status
from hotplate.rpc.errors import NoSuchMethod
from hotplate.ui.sse import KEEPALIVE, encode, events_frame
from hotplate.ui.subscription import BATCH_MAX, Seen, Subscription

LOG = logging.getLogger(__name__)

POLL_SECS = 0.25
"""How often a watcher asks the engine for new events."""
STATUS_SECS = 1.0
"""How often a watcher asks for the stack's status (at once after an event of the
stack itself: every change of its status writes one)."""
BATCH_SECS = 0.2
"""A page gets at most one batch of events this often: a burst is coalesced."""
KEEPALIVE_SECS = 15.0
"""An idle stream sends a comment this often (proxies close silent connections)."""
SETTLE_SECS = 1.0
"""How far the watcher's marker trails the newest event it read (late commits)."""
HISTORY = 2000
"""Events a watcher keeps for pages that join or resume late."""
POLL_LIMIT = 1000
"""Events asked for in one poll; a full page is followed by another at once."""
LISTING_SECS = 1.0
"""How long pages reloading the resources at one point of the stream share a listing."""

Call = Callable[..., Awaitable[Any]]
"""``await call(method, **kwargs)``: an engine call in the context of a page."""
EventView = Callable[[dict[str, Any]], dict[str, Any]]
Key = tuple[str, str, int]
"""(project, stack id, nested_depth)."""


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
        self.began_after: str | None = after
        """The event the watcher reads after (None: the stack had none, or not known
        yet): a page whose last event it is is in step from the first one read."""
        self._late_due = 0.0
        self._ids_call = True
        """Whether the engine answers ``list_event_ids`` (one from before it did not)."""
        self._summaries_call = True
        """Whether the engine answers ``list_event_summaries`` (else: ``list_events``)."""
        self._stack_news = False
        """An event of the stack itself came (its status changed): ask for it at once."""
        self._started = after is not None
        self._task: asyncio.Task[None] | None = None
        self._listings: dict[tuple[int, int, str], tuple[float, asyncio.Future[bytes]]] = {}
        """Resource listings by (next_seq, stack_version, base URL): when made, the body."""

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

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

    async def listing(self, base: str, load: Callable[[], Awaitable[bytes]]) -> bytes:
        """The stack's resources, made by ``load`` once for every page that asks at
        the same point of the stream (within LISTING_SECS).

        A page reloads its graph when a message tells it to (the action ended, a
        resource it did not know): twenty pages ask at once, and all of them
        after the watcher read what made them ask, so one listing made after
        that serves them all. A failed listing is not kept.
        """
        key = (self.next_seq, self.stack_version, base)
        now = time.monotonic()
        made = self._listings.get(key)
        if made is None or now - made[0] > LISTING_SECS:
            self._listings = {k: v for k, v in self._listings.items()
                              if k[:2] == key[:2] and now - v[0] <= LISTING_SECS}
            task = asyncio.ensure_future(load())
            made = self._listings[key] = (now, task)

            def forget_failure(done: asyncio.Future[bytes]) -> None:
                if (done.cancelled() or done.exception() is not None) and (
                        self._listings.get(key) is made):
                    del self._listings[key]
            task.add_done_callback(forget_failure)
        return await asyncio.shield(made[1])

    async def engine(self, method: str, **kwargs: Any) -> Any:
        self._hub.calls[method] += 1
        return await self._call(method, **kwargs)

    async def _run(self) -> None:
        if not self._started:
            await self._first_marker()
        status_due = 0.0
        while True:
            try:
                await self._poll_events()
                if self._stack_news or time.monotonic() >= status_due:
                    self._stack_news = False
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
                self.began_after = self._marker
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
            if await self._came_late():
                start = self._marker
        fresh = False
        while True:
            found = await self._read_after(start)
            fresh = self._keep(found) or fresh
            if found:
                start = self._head = str(found[-1]["id"])
            if len(found) < POLL_LIMIT:
                break
        self._settle_marker()
        if fresh:
            self._wake()
        return fresh

    async def _read_after(self, marker: str | None) -> list[dict[str, Any]]:
        """The events after ``marker``, oldest first, as the engine summarises them
        for a stream (``list_event_summaries``); an engine that does not know that
        call gives them in full (``list_events``)."""
        if self._summaries_call:
            try:
                found: list[dict[str, Any]] = await self.engine(
                    "list_event_summaries", stack_identity=self._identity, marker=marker,
                    limit=POLL_LIMIT, nested_depth=self.key[2])
                return found
            except NoSuchMethod:
                self._summaries_call = False
        found = await self.engine("list_events", stack_identity=self._identity,
                                  marker=marker, sort_dir="asc", limit=POLL_LIMIT,
                                  nested_depth=self.key[2])
        return found

    async def _came_late(self) -> bool:
        """Whether an event committed behind the head since it was read: the ids
        from the trailing marker up to the head are all the watcher's, else one
        came late. Only ids cross (``list_event_ids``); an engine that does not
        know that call has every event after the marker read again instead."""
        if self._marker == self._head or not self._ids_call:
            return self._marker != self._head
        start = self._marker
        try:
            while True:
                ids = await self.engine("list_event_ids", stack_identity=self._identity,
                                        marker=start, limit=POLL_LIMIT,
                                        nested_depth=self.key[2])
                for event_id in ids:
                    if event_id == self._head:
                        return False
                    if event_id not in self.index:
                        return True
                if len(ids) < POLL_LIMIT:
                    return True  # the head is gone from the ids (a purge): read again
                start = ids[-1]
        except NoSuchMethod:
            self._ids_call = False
            return True

    def _keep(self, found: list[dict[str, Any]]) -> bool:
        now = time.monotonic()
        added = False
        for event in found:
            event_id = str(event["id"])
            if event_id in self.index or event_id == self._marker:
                continue
            self.history.append(Seen(self.next_seq, event_id, encode(self._view(event))))
            if event.get("physical_resource_id") == self.key[1]:
                self._stack_news = True
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


class StreamHub:
    """The watchers of one API process, by (project, stack, nested_depth)."""

    def __init__(self) -> None:
        self._watchers: dict[Key, Watcher] = {}
        self.calls: Counter[str] = Counter()
        """Engine calls the watchers made, by method (for tests and operators)."""
        self.closed = asyncio.Event()

    def watching(self) -> int:
        return len(self._watchers)

    def watcher(self, key: Key) -> Watcher | None:
        """The watcher of (project, stack, nested_depth), while a page follows it."""
        return self._watchers.get(key)

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
            elif last_event_id == watcher.began_after:  # where the first page was: in step
                sub.cursor = 0
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
                    async with asyncio.timeout(KEEPALIVE_SECS):  # no task per wait
                        await sub.wake.wait()
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
