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
import random
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.wait(self.every):
            started = time.monotonic()
            error = None
            try:
                self.rpc.call(CTXT, "list_stacks")
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
            self.add(started, error)

    def add(self, started: float, error: str | None) -> None:
        self.made.append((started, time.monotonic() - started, error))


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


def stalls(record: Record, prefix: str,
           failures: list[tuple[datetime, datetime]]) -> dict[str, Any]:
    """How long some stack made no visible progress: the widest gap between two
    consecutive events of one stack (its own and its resources'), over every stack; and
    the widest one during which one failure at most was in effect (``failures``: from a
    kill to the bound after it, from a cut to the bound after its heal), which is what
    one failure's bound (3P + L) is about: failures that overlap add up."""
    with record.db.connect() as conn:
        rows = conn.execute(text(
            "SELECT s.name, e.created_at FROM event e JOIN stack s ON s.id = e.stack_id "
            "WHERE s.name LIKE :p ORDER BY s.name, e.created_at"), {"p": f"{prefix}%"}).all()
    times: dict[str, list[datetime]] = defaultdict(list)
    for name, at in rows:
        times[str(name)].append(at if at.tzinfo else at.replace(tzinfo=UTC))
    worst: tuple[float, str, int] = (0.0, "", 0)
    single: tuple[float, str] = (0.0, "")
    for name, stamps in times.items():
        for before, after in itertools.pairwise(stamps):
            gap = (after - before).total_seconds()
            inside = sum(start < after and end > before for start, end in failures)
            where = f"{name} after {before.isoformat()}"
            if gap > worst[0]:
                worst = (gap, where, inside)
            if inside <= 1 and gap > single[0]:
                single = (gap, where)
    return {"longest_stall_s": round(worst[0], 2), "longest_stall_where": worst[1],
            "failures_in_effect_during_longest_stall": worst[2],
            "longest_stall_one_failure_s": round(single[0], 2),
            "longest_stall_one_failure_where": single[1]}


def duplicate_stacks(record: Record, prefix: str) -> int:
    """Names with more than one stack: a create repeated by its request id made two."""
    with record.db.connect() as conn:
        return int(conn.execute(text(
            "SELECT count(*) FROM (SELECT name FROM stack WHERE owner_id IS NULL AND "
            "name LIKE :p GROUP BY name HAVING count(*) > 1) AS twice"),
            {"p": f"{prefix}%"}).scalar() or 0)
