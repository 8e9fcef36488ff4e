"""Chaos: engines SIGKILLed while stacks converge, and scale-out across engine processes,
on PostgreSQL + RabbitMQ.

    python benchmarks/chaos.py [--engines 3] [--stacks K] [--resources M] [--kills N]
        [--json PATH] [--chaos-only | --scale-out-only]

**Chaos.** ``--engines`` ``hotplate engine`` commands (one engine process of
4 threads each, periodic_interval 2 s, engine_life_check_timeout 1 s) share
a fresh database and a private vhost. Stacks of ``--resources``
TestResources with small waits (chains, wide fans and diamonds, in turn)
are created through the engine topic, as ``hotplate api`` sends them, and
kept coming while every few seconds a random engine is SIGKILLed: mostly its
engine process (its parent forks another, with a new engine id), sometimes
the whole command (parent and child; a new command takes its place, so
there are again ``--engines`` engines). After ``--kills`` kills, every stack
gets until ``--settle-timeout`` to finish. Printed: stacks completed, stuck
(still IN_PROGRESS), failed, wall time, duplicate creates (resources with
more than one idempotency token in resource_attempt), leaked locks (rows
locked by an engine not alive at the end), and kill-to-resume latency: from
the kill to the first takeover event naming the killed engine. A killed
engine that held no lock has nothing to take over: those kills are counted
apart (it held one if a takeover names it or it still holds one at the end:
a dead engine releases nothing, though a commit it sent just before dying
may land just after).

Promised (issue 10): no stuck stack, no duplicate create, no leaked lock,
and resume p99 within 3 x periodic_interval + engine_life_check_timeout.

**Scale-out.** One stack of 600 independent TestResources that each wait
100 ms, created on 1, 2, ... ``--engines`` engine processes (1 process x 4
threads each, so the ratio measures engines, not threads), each count on a
fresh database: seconds from create to CREATE_COMPLETE, and the database's
transactions per resource. Promised: 3 engines at least 2.5 times faster than 1.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.chaos_record import CTXT, THREADS, Record, engine_env, settle
from benchmarks.chaos_scale_out import print_scale_out, scale_out
from benchmarks.engine_cluster import (
    Cluster,
    EngineCommand,
    private_vhost,
    scratch_database,
    utc_now,
)
from hotplate.app import api_transport
from hotplate.cli.launcher import STABLE_SECS
from hotplate.ports import Transport
from hotplate.rpc.topics import ENGINE_TOPIC

DATABASE = "hotplate_chaos_bench"
SHAPES = ("chain", "wide", "diamond")
WAITS = (0.1, 0.3, 0.5, 1.0)
"""Seconds a chaos stack's TestResources wait (one picked for each)."""
CALL_TIMEOUT = 30.0
"""An engine topic call whose engine is killed gets no answer: give up after this."""


# -- templates ------------------------------------------------------------------------
def chaos_template(shape: str, count: int, rng: random.Random) -> dict[str, Any]:
    """``count`` TestResources: a chain, a wide fan, or a diamond (one root, the middle
    on it, one last on the middle), each waiting one of ``WAITS``."""
    resources: dict[str, Any] = {}
    for i in range(count):
        body: dict[str, Any] = {"type": "OS::Heat::TestResource",
                                "properties": {"value": f"v{i}",
                                               "wait_secs": rng.choice(WAITS)}}
        if shape == "chain" and i:
            body["depends_on"] = [f"r{i - 1}"]
        elif shape == "diamond" and 0 < i < count - 1:
            body["depends_on"] = ["r0"]
        elif shape == "diamond" and i == count - 1 and i > 1:
            body["depends_on"] = [f"r{n}" for n in range(1, i)]
        resources[f"r{i}"] = body
    return {"heat_template_version": "2021-04-16", "resources": resources}


# -- creating stacks while engines die -------------------------------------------------
def create_stack(transport: Transport, record: Record, name: str,
                 template: dict[str, Any]) -> bool:
    """Create through the engine topic; a call whose engine died may still have made
    the stack, so the database is asked before trying again. False: never made."""
    for _ in range(3):
        try:
            transport.call(CTXT, ENGINE_TOPIC, "create_stack",
                           {"stack_name": name, "template": template, "params": {},
                            "files": {}, "args": {"disable_rollback": True}},
                           timeout=CALL_TIMEOUT)
            return True
        except Exception as exc:
            if name in record.stack_states(name):
                return True
            print(f"create {name}: {type(exc).__name__}: {exc}; again", file=sys.stderr)
    return False


@dataclass
class Feeder:
    """Keeps ``in_flight`` stacks converging until told to stop (or ``total`` made),
    so there is always work for a killed engine to leave behind."""

    transport: Transport
    record: Record
    resources: int
    in_flight: int
    total: int | None
    rng: random.Random
    prefix: str = "chaos-"
    made: list[str] = field(default_factory=list)
    lost: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set() and (self.total is None or len(self.made) < self.total):
            states = self.record.stack_states(self.prefix)
            busy = sum(s.endswith("IN_PROGRESS") for s in states.values())
            if busy >= self.in_flight:
                self.stop.wait(0.2)
                continue
            n = len(self.made) + self.lost
            name = f"{self.prefix}{n:04d}"
            shape = SHAPES[n % len(SHAPES)]
            if create_stack(self.transport, self.record, name,
                            chaos_template(shape, self.resources, self.rng)):
                self.made.append(name)
            else:
                self.lost += 1


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


def kill_one(cluster: Cluster, record: Record, rng: random.Random) -> Kill:
    """SIGKILL a random running engine and wait until its slot runs a new one."""
    running = [(slot, c) for slot, c in enumerate(cluster.commands) if c.current is not None]
    slot, command = rng.choice(running)
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
              rng: random.Random) -> Iterator[Kill]:
    for n in range(count):
        time.sleep(rng.uniform(0.5, 1.5) * interval)
        kill = kill_one(cluster, record, rng)
        print(f"kill {n + 1:>3}/{count}: slot {kill.slot} engine {kill.engine_id[:8]} "
              f"({kill.mode}), {kill.locks_seen} locks", file=sys.stderr, flush=True)
        yield kill


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (of 100 samples, p99 is the 99th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


# -- the chaos run ---------------------------------------------------------------------
def chaos(args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with scratch_database(args.db_url, DATABASE, keep=args.keep) as db_url, \
            private_vhost(args.broker) as broker_url:
        record = Record(db_url)
        cluster = Cluster(args.engines, engine_env(db_url, broker_url, args), THREADS,
                          logs, prefix="chaos")
        transport = api_transport(broker_url, workers=1)
        try:
            cluster.wait_all()
            return _chaos_run(args, rng, record, cluster, transport)
        finally:
            transport.stop()
            cluster.stop()
            record.close()


def _chaos_run(args: argparse.Namespace, rng: random.Random, record: Record,
               cluster: Cluster, transport: Transport) -> dict[str, Any]:
    started = time.monotonic()
    feeder = Feeder(transport, record, args.resources, args.in_flight, args.stacks,
                    random.Random(rng.random()))
    feeding = threading.Thread(target=feeder.run, name="feeder", daemon=True)
    feeding.start()
    kills = list(run_kills(cluster, record, args.kills, args.kill_interval, rng))
    feeder.stop.set()
    feeding.join(CALL_TIMEOUT * 4)
    states = settle(record, feeder.prefix, time.monotonic() + args.settle_timeout)
    wall = time.monotonic() - started
    for kill in kills:
        taken = record.first_takeover(kill.engine_id)
        if taken is not None:
            kill.resumed_s = (taken - kill.at).total_seconds()
    live = cluster.live_engine_ids()
    holders = record.lock_holders()
    for kill in kills:
        kill.left_locked = holders.get(kill.engine_id, 0)
    latencies = [k.resumed_s for k in kills if k.resumed_s is not None]
    mine = [states.get(name, "MISSING") for name in feeder.made]
    result = {
        "kills": len(kills),
        "kills_engine_process": sum(k.mode == "engine" for k in kills),
        "kills_whole_command": sum(k.mode == "command" for k in kills),
        "kills_without_locks": sum(not k.held_locks for k in kills),
        "kills_with_locks_never_taken_over": sum(k.left_locked > 0 for k in kills),
        "stacks": len(feeder.made),
        "stacks_never_made": feeder.lost,
        "completed": sum(s == "CREATE_COMPLETE" for s in mine),
        "stuck": sum(s.endswith("IN_PROGRESS") for s in mine),
        "failed": sum(s.endswith("FAILED") for s in mine),
        "wall_s": round(wall, 1),
        "duplicate_creates": len(record.duplicate_creates()),
        "retried_creates": record.retried_creates(),
        "repeated_first_creates": record.repeated_first_creates(),
        "leaked_locks": sum(n for e, n in holders.items() if e not in live),
        "locks_held_by_live_engines": sum(n for e, n in holders.items() if e in live),
        "resume_p50_s": _round(percentile(latencies, 0.50)),
        "resume_p99_s": _round(percentile(latencies, 0.99)),
        "resume_max_s": _round(max(latencies, default=None)),
        "resume_target_s": 3 * args.periodic_interval + args.life_check_timeout,
        "not_complete": {n: s for n, s in zip(feeder.made, mine, strict=True)
                         if s != "CREATE_COMPLETE"},
        "kill_log": [{**asdict(k), "at": k.at.isoformat(), "held_locks": k.held_locks}
                     for k in kills],
    }
    return result


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


# -- the report ------------------------------------------------------------------------
def print_chaos(result: dict[str, Any]) -> None:
    rows = [
        ("kills", f"{result['kills']} ({result['kills_engine_process']} engine process, "
                  f"{result['kills_whole_command']} whole command)"),
        ("kills of an engine holding no lock", result["kills_without_locks"]),
        ("kills with locks never taken over", result["kills_with_locks_never_taken_over"]),
        ("stacks", f"{result['stacks']} (never made: {result['stacks_never_made']})"),
        ("completed", result["completed"]),
        ("stuck (IN_PROGRESS)", result["stuck"]),
        ("failed", result["failed"]),
        ("wall time (s)", result["wall_s"]),
        ("duplicate creates", result["duplicate_creates"]),
        ("creates resumed as retries", result["retried_creates"]),
        ("first-try creates run twice", result["repeated_first_creates"]),
        ("leaked locks", result["leaked_locks"]),
        ("locks held by live engines", result["locks_held_by_live_engines"]),
        ("kill-to-resume p50 (s)", result["resume_p50_s"]),
        ("kill-to-resume p99 (s)", result["resume_p99_s"]),
        ("kill-to-resume max (s)", result["resume_max_s"]),
        ("resume target (s)", result["resume_target_s"]),
    ]
    width = max(len(label) for label, _ in rows)
    print("chaos")
    print("-" * (width + 40))
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    for name, state in result["not_complete"].items():
        print(f"  {name}: {state}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, default=3)
    parser.add_argument("--stacks", type=int, default=None,
                        help="stacks to create (default: keep creating until the last kill)")
    parser.add_argument("--resources", type=int, default=10, help="TestResources per stack")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--kill-interval", type=float, default=3.0,
                        help="mean seconds between kills")
    parser.add_argument("--in-flight", type=int, default=6,
                        help="stacks converging at once while the kills go on")
    parser.add_argument("--periodic-interval", type=int, default=2)
    parser.add_argument("--life-check-timeout", type=int, default=1)
    parser.add_argument("--stalled-timeout", type=int, default=15,
                        help="the engines' stalled_traversal_timeout")
    parser.add_argument("--settle-timeout", type=float, default=600.0,
                        help="seconds every stack has, after the last kill, to finish")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--db-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test",
                        help="a PostgreSQL server (a database of the benchmark's is made)")
    parser.add_argument("--broker", default="rabbit://guest:guest@127.0.0.1:5672/",
                        help="a RabbitMQ server (a vhost of the benchmark's is made)")
    parser.add_argument("--logs", default=None, help="directory for the engines' logs")
    parser.add_argument("--keep", action="store_true",
                        help="leave the databases to look into (not the vhosts)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--chaos-only", action="store_true")
    only.add_argument("--scale-out-only", action="store_true")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    logs = Path(args.logs or tempfile.mkdtemp(prefix="hotplate-chaos-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"engine logs in {logs}", file=sys.stderr, flush=True)
    result: dict[str, Any] = {"engines": args.engines, "threads": THREADS,
                              "periodic_interval": args.periodic_interval,
                              "engine_life_check_timeout": args.life_check_timeout,
                              "scale_out": {}}
    if not args.scale_out_only:
        result.update(chaos(args, logs))
        print_chaos(result)
    if not args.chaos_only:
        detail = scale_out(args, logs)
        result["scale_out"] = {k: v["seconds"] for k, v in detail.items()}
        result["scale_out_detail"] = detail
        one, last = detail["1"]["seconds"], detail[str(args.engines)]["seconds"]
        result["scale_out_ratio"] = round(one / last, 2)
        print_scale_out(detail)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
