"""Partitions for the chaos benchmark (``--partitions N``), mixed with its kills.

Each engine slot reaches the database and the broker through proxies of its
own (tests/distributed/partition_proxy.py), kept when the slot's command is
replaced. Every few seconds one slot (never one being killed or already cut)
is cut off: from the database, the broker or both, held (bytes neither
delivered nor refused) or dropped (lost), for 2 to 15 s (shorter and longer
than an engine's lease), then healed. Meanwhile ``Calls`` asks the engine
topic as ``hotplate api`` does (EngineRpc: reads and writes with a request
id asked again on another engine when one does not answer): a list_stacks
each half second. The feeder's creates go the same way, each with a request
id of its own that a failed create is repeated with.

Reported beside the kill figures: API calls made while a partition lasted
(or within the bound after it) and how many failed, the slowest, the
longest time any stack made no progress (the widest gap between two of its
events while it converged), and stacks made twice by a repeated request.
"""

from __future__ import annotations

import itertools
import os
import random
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from benchmarks.chaos_record import CTXT, Record
from benchmarks.engine_cluster import Cluster, utc_now
from hotplate.api.rpc import EngineRpc
from tests.distributed.partition_proxy import PartitionProxy

LINKS = ("db", "broker", "all")
HOWS = ("hold", "drop")
CUT_SECS = (2.0, 15.0)
"""Shortest and longest partition, in seconds."""


class SlotLinks:
    """Each slot's proxies to the database and the broker."""

    def __init__(self, count: int, db_url: str, broker_url: str) -> None:
        self._db_url, self._broker_url = db_url, broker_url
        self.db = [PartitionProxy.for_url(db_url, 5432).start() for _ in range(count)]
        self.broker = [PartitionProxy.for_url(broker_url, 5672).start() for _ in range(count)]
        self.cut_slots: set[int] = set()
        self.lock = threading.Lock()

    def env(self, slot: int) -> dict[str, str]:
        return {"HOTPLATE_DB_URL": self.db[slot].url(self._db_url),
                "HOTPLATE_TRANSPORT_URL": self.broker[slot].url(self._broker_url)}

    def cut(self, slot: int, links: str, how: str) -> None:
        for proxy in self._proxies(slot, links):
            getattr(proxy, how)()

    def heal(self, slot: int) -> None:
        self.db[slot].heal()
        self.broker[slot].heal()

    def stop(self) -> None:
        for proxy in (*self.db, *self.broker):
            proxy.heal()
            proxy.stop()

    def _proxies(self, slot: int, links: str) -> list[PartitionProxy]:
        return {"db": [self.db[slot]], "broker": [self.broker[slot]],
                "all": [self.db[slot], self.broker[slot]]}[links]


@dataclass
class Partition:
    slot: int
    engine_id: str
    links: str
    how: str
    seconds: float
    at: datetime
    start: float
    """time.monotonic() of the cut; ``end`` of the heal."""
    end: float = 0.0


def run_partitions(cluster: Cluster, links: SlotLinks, count: int, interval: float,
                   rng: random.Random, killing: Callable[[], set[int]]) -> Iterator[Partition]:
    """``count`` partitions, one at a time, about ``interval`` s apart."""
    for n in range(count):
        time.sleep(rng.uniform(0.5, 1.5) * interval)
        with links.lock:
            free = [s for s, c in enumerate(cluster.commands)
                    if c.current is not None and s not in killing()]
            if not free:
                continue
            slot = rng.choice(free)
            links.cut_slots.add(slot)
        engine = cluster.commands[slot].current
        part = Partition(slot, engine.engine_id if engine else "?", rng.choice(LINKS),
                         rng.choice(HOWS), round(rng.uniform(*CUT_SECS), 1), utc_now(),
                         time.monotonic())
        links.cut(slot, part.links, part.how)
        time.sleep(part.seconds)
        links.heal(slot)
        part.end = time.monotonic()
        with links.lock:
            links.cut_slots.discard(slot)
        print(f"partition {n + 1:>3}/{count}: slot {slot} engine {part.engine_id[:8]} "
              f"{part.links} {part.how} {part.seconds} s", file=sys.stderr, flush=True)
        yield part


@dataclass
class Calls:
    """API calls (as hotplate api makes them) all along, on a thread: when each started,
    how long it took, and whether it failed."""

    rpc: EngineRpc
    every: float = 0.5
    made: list[tuple[float, float, str | None]] = field(default_factory=list)
    slow_after: float = 7.0
    slow: list[tuple[datetime, float, str, str | None]] = field(default_factory=list)
    """Calls longer than ``slow_after``: when each started (UTC), took, method, error."""
    loads: list[float] = field(default_factory=list)
    """The machine's 1-minute load average, as each call starts."""
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self.loads.append(os.getloadavg()[0])
            started = time.monotonic()
            error = None
            try:
                self.rpc.call(CTXT, "list_stacks")
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
            self.add(started, error)

    def add(self, started: float, error: str | None, method: str = "list_stacks") -> None:
        took = time.monotonic() - started
        self.made.append((started, took, error))
        if took > self.slow_after:
            self.slow.append((utc_now() - timedelta(seconds=took), took, method, error))


def during(calls: list[tuple[float, float, str | None]], parts: list[Partition],
           bound: float) -> dict[str, Any]:
    """The calls that overlapped a partition (from its cut to ``bound`` after its heal)."""
    hit = [(took, error) for started, took, error in calls
           if any(started <= p.end + bound and started + took >= p.start for p in parts)]
    failed = [error for _, error in hit if error is not None]
    return {"calls_during_partitions": len(hit),
            "calls_failed_during_partitions": len(failed),
            "slowest_call_during_partitions_s": round(max((t for t, _ in hit), default=0), 2),
            "failures": sorted(set(failed))[:10]}


@dataclass(frozen=True)
class Failure:
    """A kill or a cut, and how long it may hold work up: to ``bound`` after it ended."""

    start: datetime
    end: datetime
    what: str


def stalls(record: Record, prefix: str, failures: list[Failure],
           bound: float) -> dict[str, Any]:
    """How long some stack made no visible progress: the widest gap between two
    consecutive events of one stack (its own and its resources'), over every stack; and
    the widest one during which one failure at most was in effect (``failures``: from a
    kill to the bound after it, from a cut to the bound after its heal), which is what
    one failure's bound (3P + L) is about: failures that overlap add up. Every gap longer
    than ``bound`` is listed with the events on either side of it (the one after says
    which engine took over from which) and the failures in effect meanwhile. Beside the
    gaps, the wait for progress *after a failure began* (from the later of the gap's
    start and the first failure in effect): what the bound is stated for, since a gap
    that began before the failure includes work that was going on as usual."""
    with record.db.connect() as conn:
        rows = conn.execute(text(
            "SELECT s.name, e.created_at, e.resource_name, e.resource_action, "
            "e.resource_status, e.resource_status_reason FROM event e "
            "JOIN stack s ON s.id = e.stack_id WHERE s.name LIKE :p "
            "ORDER BY s.name, e.created_at"), {"p": f"{prefix}%"}).all()
    times: dict[str, list[tuple[datetime, str]]] = defaultdict(list)
    for name, at, resource, action, status, reason in rows:
        at = at if at.tzinfo else at.replace(tzinfo=UTC)
        times[str(name)].append((at, f"{resource} {action}_{status} {reason or ''}"[:160]))
    worst: tuple[float, str, int] = (0.0, "", 0)
    single: tuple[float, str] = (0.0, "")
    waited: tuple[float, str, int] = (0.0, "", 0)
    waits_over = 0
    long: list[dict[str, Any]] = []
    for name, stamps in times.items():
        for (before, said), (after, then) in itertools.pairwise(stamps):
            gap = (after - before).total_seconds()
            inside = [f for f in failures if f.start < after and f.end > before]
            where = f"{name} after {before.isoformat()}"
            if gap > worst[0]:
                worst = (gap, where, len(inside))
            if len(inside) <= 1 and gap > single[0]:
                single = (gap, where)
            if inside:
                # What the bound promises: progress within it of the failure. A stack
                # that was merely working when the failure came waited from then on.
                began = max(before, min(f.start for f in inside))
                wait = (after - began).total_seconds()
                waits_over += wait > bound
                if wait > waited[0]:
                    waited = (wait, where, len(inside))
            if gap > bound:
                long.append({"stack": name, "gap_s": round(gap, 2), "from": before.isoformat(),
                             "before": said, "after": then,
                             "failures": [f"{f.what} at {f.start.isoformat()}"
                                          for f in inside]})
    long.sort(key=lambda s: -s["gap_s"])
    return {"longest_stall_s": round(worst[0], 2), "longest_stall_where": worst[1],
            "failures_in_effect_during_longest_stall": worst[2],
            "longest_stall_one_failure_s": round(single[0], 2),
            "longest_stall_one_failure_where": single[1],
            "stalls_over_bound": len(long), "stalls_over_bound_detail": long[:20],
            "longest_wait_after_failure_s": round(waited[0], 2),
            "longest_wait_after_failure_where": waited[1],
            "failures_in_effect_during_longest_wait": waited[2],
            "waits_after_failure_over_bound": waits_over}


def slow_calls(calls: Calls, failures: list[Failure]) -> list[dict[str, Any]]:
    """The calls slower than the bound, each with the failures in effect meanwhile."""
    found = []
    for at, took, method, error in sorted(calls.slow, key=lambda c: -c[1]):
        end = at + timedelta(seconds=took)
        found.append({"method": method, "at": at.isoformat(), "took_s": round(took, 2),
                      "error": error,
                      "failures": [f"{f.what} at {f.start.isoformat()}" for f in failures
                                   if f.start < end and f.end > at]})
    return found


def duplicate_stacks(record: Record, prefix: str) -> int:
    """Names with more than one stack: a create repeated by its request id made two."""
    with record.db.connect() as conn:
        return int(conn.execute(text(
            "SELECT count(*) FROM (SELECT name FROM stack WHERE owner_id IS NULL AND "
            "name LIKE :p GROUP BY name HAVING count(*) > 1) AS twice"),
            {"p": f"{prefix}%"}).scalar() or 0)
