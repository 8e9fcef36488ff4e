"""The chaos benchmark's kills: a random engine SIGKILLed (its process, or its whole
command), and what the kills left: kill-to-resume latency, locks, duplicate creates."""

from __future__ import annotations

import contextlib
import math
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from benchmarks.chaos_partitions import SlotLinks
from benchmarks.chaos_record import Record
from benchmarks.engine_cluster import Cluster, EngineCommand, utc_now
from hotplate.cli.launcher import STABLE_SECS

KILLING: set[int] = set()
"""Slots whose engine is being killed (and replaced): not to be cut off meanwhile."""


# -- killing ---------------------------------------------------------------------------
@dataclass
class Kill:
    slot: int
    engine_id: str
    mode: str
    """``engine``: the engine process (its parent forks another); ``command``: both."""
    at: datetime
    locks_seen: int
    """Locks the engine held as read just after the kill: a commit it had sent may
    still land after that (so the count is only what the log line shows)."""
    resumed_s: float | None = None
    """Kill to the first takeover event naming the engine; None: no takeover."""
    left_locked: int = 0
    """Locks it still holds at the end (leaked)."""

    @property
    def held_locks(self) -> bool:
        """Whether it died holding a lock: a dead engine releases nothing itself, so
        each lock it died with was taken over (an event) or is still held."""
        return self.resumed_s is not None or self.left_locked > 0


def kill_one(cluster: Cluster, record: Record, rng: random.Random,
             links: SlotLinks | None = None) -> Kill:
    """SIGKILL a random running engine (not one cut off) and wait until its slot runs a
    new one."""
    with links.lock if links is not None else contextlib.nullcontext():
        cut = links.cut_slots if links is not None else set()
        running = [(slot, c) for slot, c in enumerate(cluster.commands)
                   if c.current is not None and slot not in cut]
        slot, command = rng.choice(running)
        KILLING.add(slot)
    try:
        return _kill(cluster, record, rng, slot, command)
    finally:
        KILLING.discard(slot)


def _kill(cluster: Cluster, record: Record, rng: random.Random, slot: int,
          command: EngineCommand) -> Kill:
    current = command.current
    assert current is not None
    # A child that dies young makes its parent wait longer before the next (the
    # launcher's back-off): those are killed with their command, which starts afresh.
    lived = time.monotonic() - current.started
    mode = "engine" if lived >= STABLE_SECS and rng.random() < 0.8 else "command"
    at = utc_now()
    if mode == "engine":
        command.kill_engine()
        fresh: EngineCommand = command
    else:
        command.kill_command()
        fresh = cluster.replace(slot)
    kill = Kill(slot, current.engine_id, mode, at, record.locks_held(current.engine_id))
    for _ in range(3):
        try:
            fresh.wait_engine(60.0, not_id=current.engine_id)
            return kill
        except TimeoutError as exc:  # it could not start: a new command, once more
            print(f"{exc}; starting a new command", file=sys.stderr, flush=True)
            fresh.kill_command()
            fresh = cluster.replace(slot)
    raise TimeoutError(f"slot {slot}: no engine would start")


def run_kills(cluster: Cluster, record: Record, count: int, interval: float,
              rng: random.Random, links: SlotLinks | None = None) -> Iterator[Kill]:
    for n in range(count):
        time.sleep(rng.uniform(0.5, 1.5) * interval)
        kill = kill_one(cluster, record, rng, links)
        print(f"kill {n + 1:>3}/{count}: slot {kill.slot} engine {kill.engine_id[:8]} "
              f"({kill.mode}), {kill.locks_seen} locks", file=sys.stderr, flush=True)
        yield kill


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (of 100 samples, p99 is the 99th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def kill_figures(kills: list[Kill], record: Record, cluster: Cluster) -> dict[str, Any]:
    """The kills' figures: resume latency, locks left, duplicate creates."""
    for kill in kills:
        taken = record.first_takeover(kill.engine_id)
        if taken is not None:
            kill.resumed_s = (taken - kill.at).total_seconds()
    live = cluster.live_engine_ids()
    holders = record.lock_holders()
    for kill in kills:
        kill.left_locked = holders.get(kill.engine_id, 0)
    latencies = [k.resumed_s for k in kills if k.resumed_s is not None]
    return {
        "kills": len(kills),
        "kills_engine_process": sum(k.mode == "engine" for k in kills),
        "kills_whole_command": sum(k.mode == "command" for k in kills),
        "kills_without_locks": sum(not k.held_locks for k in kills),
        "kills_with_locks_never_taken_over": sum(k.left_locked > 0 for k in kills),
        "duplicate_creates": len(record.duplicate_creates()),
        "retried_creates": record.retried_creates(),
        "repeated_first_creates": record.repeated_first_creates(),
        "leaked_locks": sum(n for e, n in holders.items() if e not in live),
        "locks_held_by_live_engines": sum(n for e, n in holders.items() if e in live),
        "resume_p50_s": _round(percentile(latencies, 0.50)),
        "resume_p99_s": _round(percentile(latencies, 0.99)),
        "resume_max_s": _round(max(latencies, default=None)),
        "kill_log": [{**asdict(k), "at": k.at.isoformat(), "held_locks": k.held_locks}
                     for k in kills],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


