"""The stream's coalescing and reset, over a stand-in engine whose events the test
adds: a burst becomes one batch, more than BATCH_MAX become ``reset``, and the
watcher polls only while a page subscribes."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import pytest

from hotplate.ui import event_stream
from hotplate.ui.event_stream import BATCH_MAX, StreamHub

pytestmark = pytest.mark.timeout(60)


class Engine:
    """list_events (marker, asc/desc, limit) and show_stack over a list."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.calls = 0

    def add(self, n: int) -> None:
        for _ in range(n):
            self.events.append({"id": str(uuid.uuid4()), "resource_name": "r"})

    async def call(self, method: str, **kwargs: Any) -> Any:
        self.calls += 1
        if method == "show_stack":
            return [{"stack_action": "CREATE", "stack_status": "IN_PROGRESS",
                     "stack_status_reason": "", "updated_time": None}]
        events = self.events if kwargs["sort_dir"] == "asc" else self.events[::-1]
        ids = [e["id"] for e in events]
        if kwargs.get("marker") in ids:
            events = events[ids.index(kwargs["marker"]) + 1:]
        return events[:kwargs["limit"]]


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
    returned: list[int] = []
    asked = engine.call

    async def counting(method: str, **kwargs: Any) -> Any:
        found = await asked(method, **kwargs)
        if method == "list_events" and kwargs["sort_dir"] == "asc":
            returned.append(len(found))
        return found

    engine.call = counting  # type: ignore[method-assign]

    async def scenario() -> None:
        hub = StreamHub()

        async def late() -> None:
            await asyncio.sleep(0.3)
            engine.add(5)
            await asyncio.sleep(0.6)  # streamed by now
            engine.events.insert(4, {"id": "late", "resource_name": "r"})
            engine.add(1)

        got = await collect(hub, engine, 2.0, late)
        ids = [e["id"] for _, kind, data in got if kind == "events" for e in data]
        assert sorted(ids) == sorted(e["id"] for e in engine.events[2:])
        assert ids.count("late") == 1
        # Five events, then two: about ten polls, each event read at most twice (once
        # from the head, once by the trailing check), never once per poll.
        assert len(returned) >= 6
        assert sum(returned) <= 2 * 7 + 2, returned

    asyncio.run(scenario())
