"""The stream's coalescing and reset, over a stand-in engine whose events the test
adds: a burst becomes one batch, more than BATCH_MAX become ``reset``, and the
watcher polls only while a page subscribes."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from hotplate.ui import event_stream
from hotplate.ui.event_stream import BATCH_MAX, StreamHub

pytestmark = pytest.mark.timeout(60)


class Engine:
    """list_events (marker, asc/desc, limit), list_event_summaries, list_event_ids and
    show_stack over a list."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.calls = 0
        self.answered: dict[str, list[int]] = {"list_events": [], "list_event_summaries": [],
                                               "list_event_ids": []}
        """How many items each ascending read answered, by method."""

    def add(self, n: int) -> None:
        for _ in range(n):
            self.events.append({"id": str(uuid.uuid4()), "resource_name": "r"})

    async def call(self, method: str, **kwargs: Any) -> Any:
        self.calls += 1
        if method == "show_stack":
            return [{"stack_action": "CREATE", "stack_status": "IN_PROGRESS",
                     "stack_status_reason": "", "updated_time": None}]
        if method == "list_event_ids":
            ids = [e["id"] for e in self._after("asc", **kwargs)]
            self.answered[method].append(len(ids))
            return ids
        if method == "list_event_summaries":
            kwargs["sort_dir"] = "asc"
        found = self._after(**kwargs)
        if kwargs["sort_dir"] == "asc":
            self.answered[method].append(len(found))
        return found

    def _after(self, sort_dir: str, **kwargs: Any) -> list[dict[str, Any]]:
        events = self.events if sort_dir == "asc" else self.events[::-1]
        ids = [e["id"] for e in events]
        if kwargs.get("marker") in ids:
            events = events[ids.index(kwargs["marker"]) + 1:]
        return events[:kwargs["limit"]]


def refusing(engine: Engine, unknown: str) -> list[str]:
    """Make ``engine`` one from before ``unknown`` (it answers NoSuchMethod); the
    list of the refused calls, as they come."""
    from hotplate.rpc.errors import NoSuchMethod

    asked = engine.call
    refused: list[str] = []

    async def older(method: str, **kwargs: Any) -> Any:
        if method == unknown:
            refused.append(method)
            raise NoSuchMethod(method)
        return await asked(method, **kwargs)

    engine.call = older  # type: ignore[method-assign]
    return refused


def parse(text: str) -> tuple[str | None, Any]:
    fields = dict(line.split(": ", 1) for line in text.strip().split("\n"))
    return fields.get("event"), json.loads(fields["data"])


async def collect(hub: StreamHub, engine: Engine, seconds: float,
                  during: Any) -> list[tuple[float, str | None, Any]]:
    sub = await hub.subscribe(("p", "s", 0), engine.call, {}, dict, None)

    async def valid() -> bool:
        return True

    got: list[tuple[float, str | None, Any]] = []

    async def read() -> None:
        async for text in event_stream.frames(hub, sub, valid):
            if text.startswith("data") or text.startswith("event") or text.startswith("id"):
                got.append((time.monotonic(), *parse(text)))

    reader = asyncio.ensure_future(read())
    await during()
    await asyncio.sleep(seconds)
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    return got


def streamed_ids(got: list[tuple[float, str | None, Any]]) -> list[str]:
    """The ids of the events the page got in its batches, in the order it got them."""
    return [e["id"] for _, kind, data in got if kind == "events" for e in data]


def steadily(engine: Engine, rounds: int, each: int) -> Callable[[], Awaitable[None]]:
    """What ``collect`` runs: ``each`` new events every 0.3 s, ``rounds`` times."""
    async def steady() -> None:
        for _ in range(rounds):
            await asyncio.sleep(0.3)
            engine.add(each)
    return steady


def test_a_burst_is_one_batch_and_too_many_a_reset() -> None:
    engine = Engine()
    engine.add(3)  # before the page: read from the events API, not streamed

    async def scenario() -> None:
        hub = StreamHub()

        async def burst() -> None:
            await asyncio.sleep(0.5)
            for _ in range(10):  # 200 events over 100 ms
                engine.add(20)
                await asyncio.sleep(0.01)
            await asyncio.sleep(1.0)
            engine.add(BATCH_MAX + 1)

        got = await collect(hub, engine, 1.5, burst)
        batches = [data for _, kind, data in got if kind == "events"]
        kinds = [kind for _, kind, _ in got]
        assert kinds.count("stack") == 1
        assert sum(len(b) for b in batches) == 200
        assert len(batches) <= 3  # coalesced: polls every 250 ms, batches every 200 ms
        assert [e["id"] for b in batches for e in b] == [e["id"] for e in engine.events[3:203]]
        assert kinds[-1] == "reset"
        assert hub.watching() == 0  # the page left: its watcher stopped
        calls = engine.calls
        await asyncio.sleep(0.6)
        assert engine.calls == calls

    asyncio.run(scenario())


def test_a_late_commit_is_streamed_once_and_each_poll_starts_at_the_newest() -> None:
    """An event that shows up behind ones already streamed (a transaction that
    committed late) still reaches the page, once; the polls between the late checks
    ask only for what is newer than the newest event read."""
    engine = Engine()
    engine.add(2)
    returned = engine.answered["list_event_summaries"]

    async def scenario() -> None:
        hub = StreamHub()

        async def late() -> None:
            await asyncio.sleep(0.3)
            engine.add(5)
            await asyncio.sleep(0.6)  # streamed by now
            engine.events.insert(4, {"id": "late", "resource_name": "r"})
            engine.add(1)

        got = await collect(hub, engine, 2.0, late)
        ids = streamed_ids(got)
        assert sorted(ids) == sorted(e["id"] for e in engine.events[2:])
        assert ids.count("late") == 1
        # Five events, then two: about ten polls, each event read at most twice (once
        # from the head, once by the trailing check), never once per poll.
        assert len(returned) >= 6
        assert sum(returned) <= 2 * 7 + 2, returned

    asyncio.run(scenario())


def test_without_a_late_commit_each_event_is_read_once_and_ids_checked() -> None:
    """The trailing check asks for ids only: with no event behind the head, every
    event's view crosses once, from the head."""
    engine = Engine()
    returned = engine.answered["list_event_summaries"]
    id_checks = engine.answered["list_event_ids"]

    async def scenario() -> None:
        got = await collect(StreamHub(), engine, 1.5, steadily(engine, 6, 4))
        ids = streamed_ids(got)
        assert ids == [e["id"] for e in engine.events]
        assert sum(returned) == len(engine.events), returned
        assert len(id_checks) >= 2 and sum(id_checks) > 0, id_checks

    asyncio.run(scenario())


def test_an_engine_without_summaries_gives_the_events_in_full() -> None:
    """An engine from before ``list_event_summaries`` refuses it: the watcher asks
    ``list_events`` from then on, and streams the same events."""
    engine = Engine()
    refused = refusing(engine, "list_event_summaries")

    async def scenario() -> None:
        got = await collect(StreamHub(), engine, 1.2, steadily(engine, 3, 3))
        ids = streamed_ids(got)
        assert ids == [e["id"] for e in engine.events]
        assert refused == ["list_event_summaries"]  # asked once, then not again
        assert sum(engine.answered["list_events"]) == len(engine.events)

    asyncio.run(scenario())


def test_an_engine_without_the_ids_call_has_the_events_read_again() -> None:
    """An engine from before ``list_event_ids`` refuses it: the watcher reads the
    events after the trailing marker instead, and still streams each once."""
    engine = Engine()
    refused = refusing(engine, "list_event_ids")

    async def scenario() -> None:
        async def late() -> None:
            await asyncio.sleep(0.3)
            engine.add(5)
            await asyncio.sleep(0.6)
            engine.events.insert(2, {"id": "late", "resource_name": "r"})
            engine.add(1)

        got = await collect(StreamHub(), engine, 2.0, late)
        ids = streamed_ids(got)
        assert sorted(ids) == sorted(e["id"] for e in engine.events)
        assert ids.count("late") == 1
        assert refused == ["list_event_ids"]  # asked once, then not again

    asyncio.run(scenario())


def test_pages_that_loaded_together_share_every_batch() -> None:
    """Pages whose last event is the one the watcher started after are in step with
    it: each batch is made once for all of them (not once a page), and each page
    gets every event once."""
    engine = Engine()
    engine.add(3)
    last = engine.events[-1]["id"]

    async def scenario() -> None:
        hub = StreamHub()
        subs = [await hub.subscribe(("p", "s", 0), engine.call, {}, dict, last)
                for _ in range(3)]
        assert all(sub.cursor == 0 and sub.skip_through is None and not sub.backlog
                   for sub in subs)
        watcher = subs[0].watcher
        engine.add(4)
        while watcher.next_seq < 4:
            await asyncio.sleep(0.05)
        frames = [sub.take() for sub in subs]
        assert frames[0][0] is frames[1][0] is frames[2][0]  # one frame, shared
        assert [e["id"] for e in parse(frames[0][0])[1]] == [
            e["id"] for e in engine.events[3:]]
        for sub in subs:
            hub.leave(sub)

    asyncio.run(scenario())
