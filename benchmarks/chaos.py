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
import os
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

from sqlalchemy import Engine, create_engine, pool, text

from benchmarks.engine_cluster import (
    Cluster,
    EngineCommand,
    EngineProcess,
    private_vhost,
    scratch_database,
    utc_now,
)
from hotplate.app import api_transport
from hotplate.cli.launcher import STABLE_SECS
from hotplate.ports import Transport
from hotplate.rpc.topics import ENGINE_TOPIC

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}
DATABASE = "hotplate_chaos_bench"
SHAPES = ("chain", "wide", "diamond")
WAITS = (0.1, 0.3, 0.5, 1.0)
"""Seconds a chaos stack's TestResources wait (one picked for each)."""
THREADS = 4
SCALE_OUT_RESOURCES = 600
SCALE_OUT_WAIT = 0.1
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


def wide_template(count: int, wait: float) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::TestResource",
                                    "properties": {"value": f"v{i}", "wait_secs": wait}}
                          for i in range(count)}}


# -- the engines' database, read directly (the record, alive whatever engine dies) ----
class Record:
    """Queries on the run's database: stack states, locks, attempts, takeover events."""

    def __init__(self, db_url: str) -> None:
        self.db: Engine = create_engine(db_url, poolclass=pool.NullPool)

    def _scalar(self, sql: str, **params: Any) -> Any:
        with self.db.connect() as conn:
            return conn.execute(text(sql), params).scalar()

    def stack_states(self, prefix: str) -> dict[str, str]:
        """Top-level stack name -> ``<ACTION>_<STATUS>``."""
        with self.db.connect() as conn:
            rows = conn.execute(text(
                "SELECT name, action, status FROM stack WHERE owner_id IS NULL "
                "AND deleted_at IS NULL AND name LIKE :p"), {"p": f"{prefix}%"}).all()
        return {name: f"{action}_{status}" for name, action, status in rows}

    def locks_held(self, engine_id: str) -> int:
        return int(self._scalar("SELECT count(*) FROM resource WHERE engine_id = :e",
                                e=engine_id))

    def lock_holders(self) -> dict[str, int]:
        with self.db.connect() as conn:
            rows = conn.execute(text("SELECT engine_id, count(*) FROM resource WHERE "
                                     "engine_id IS NOT NULL GROUP BY engine_id")).all()
        return {str(e): int(n) for e, n in rows}

    def duplicate_creates(self) -> list[str]:
        """Resources created more than once: more than one distinct token."""
        with self.db.connect() as conn:
            rows = conn.execute(text(
                "SELECT resource_uuid FROM resource_attempt WHERE action = 'CREATE' "
                "GROUP BY resource_uuid HAVING count(DISTINCT token) > 1")).all()
        return [str(r[0]) for r in rows]

    def repeated_first_creates(self) -> int:
        """Resources whose handle_create ran more than once *not* told it was a retry:
        two engines (or two messages) each thinking they made it first. Tokens are
        the same for every try within a traversal, so this is what a create-only
        run can get wrong even when ``duplicate_creates`` is 0."""
        return int(self._scalar(
            "SELECT count(*) FROM (SELECT resource_uuid FROM resource_attempt WHERE "
            "action = 'CREATE' AND NOT retry GROUP BY resource_uuid "
            "HAVING count(*) > 1) AS twice"))

    def retried_creates(self) -> int:
        return int(self._scalar("SELECT count(*) FROM resource_attempt WHERE "
                                "action = 'CREATE' AND retry"))

    def first_takeover(self, engine_id: str) -> datetime | None:
        """When a live engine first recorded taking over ``engine_id``'s work."""
        found: datetime | None = self._scalar(
            "SELECT min(created_at) FROM event WHERE resource_status_reason LIKE :p",
            p=f"%engine {engine_id} stopped answering%")
        if found is not None and found.tzinfo is None:
            found = found.replace(tzinfo=utc_now().tzinfo)
        return found

    def creates_per_engine(self) -> dict[str, int]:
        """Engine id -> handle_create calls it made: how evenly the work spread."""
        with self.db.connect() as conn:
            rows = conn.execute(text("SELECT engine_id, count(*) FROM resource_attempt "
                                     "WHERE action = 'CREATE' GROUP BY engine_id")).all()
        return {str(e): int(n) for e, n in rows}

    def transactions(self, database: str) -> int:
        """Transactions committed in ``database`` so far (PostgreSQL's statistics)."""
        return int(self._scalar("SELECT xact_commit FROM pg_stat_database "
                                "WHERE datname = :d", d=database) or 0)

    def close(self) -> None:
        self.db.dispose()


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


def settle(record: Record, prefix: str, deadline: float) -> dict[str, str]:
    """Wait until no stack is IN_PROGRESS or the deadline passes; the final states."""
    while True:
        states = record.stack_states(prefix)
        if not any(s.endswith("IN_PROGRESS") for s in states.values()):
            return states
        if time.monotonic() >= deadline:
            return states
        time.sleep(0.5)


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (of 100 samples, p99 is the 99th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


# -- the chaos run ---------------------------------------------------------------------
def engine_env(db_url: str, broker_url: str, args: argparse.Namespace) -> dict[str, str]:
    return {**os.environ, "HOTPLATE_DB_URL": db_url, "HOTPLATE_TRANSPORT_URL": broker_url,
            "HOTPLATE_MAX_RESOURCES_PER_STACK": "-1",
            "HOTPLATE_PERIODIC_INTERVAL": str(args.periodic_interval),
            "HOTPLATE_ENGINE_LIFE_CHECK_TIMEOUT": str(args.life_check_timeout),
            "HOTPLATE_STALLED_TRAVERSAL_TIMEOUT": str(args.stalled_timeout),
            "HOTPLATE_GRACEFUL_SHUTDOWN_TIMEOUT": "5"}


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


# -- scale-out -------------------------------------------------------------------------
def scale_out(args: argparse.Namespace, logs: Path) -> dict[str, dict[str, Any]]:
    """Seconds (and transactions per resource) for the wide stack on 1..N engines."""
    results = {}
    for count in range(1, args.engines + 1):
        results[str(count)] = _scale_out_once(count, args, logs)
        print(f"scale-out on {count}: {results[str(count)]}", file=sys.stderr, flush=True)
    return results


def _scale_out_once(count: int, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    name = f"{DATABASE}_scale"
    with scratch_database(args.db_url, name, keep=args.keep) as db_url, \
            private_vhost(args.broker) as broker_url:
        record = Record(db_url)
        cluster = Cluster(count, engine_env(db_url, broker_url, args), THREADS, logs,
                          prefix=f"scale{count}")
        transport = api_transport(broker_url, workers=1)
        try:
            engines = cluster.wait_all()
            before = record.transactions(name)
            machine_before, engines_before = machine_cpu(), process_cpu(engines)
            start = time.monotonic()
            transport.call(CTXT, ENGINE_TOPIC, "create_stack",
                           {"stack_name": "wide", "template": wide_template(
                               SCALE_OUT_RESOURCES, SCALE_OUT_WAIT), "params": {},
                            "files": {}, "args": {"disable_rollback": True}},
                           timeout=120)
            state = settle(record, "wide", start + args.settle_timeout).get("wide", "MISSING")
            seconds = time.monotonic() - start
            engine_cpu = process_cpu(engines) - engines_before
            busy, total = (now - then for now, then in zip(machine_cpu(), machine_before,
                                                            strict=True))
            xacts = record.transactions(name) - before
            shares = record.creates_per_engine()
        finally:
            transport.stop()
            cluster.stop()
            record.close()
    if state != "CREATE_COMPLETE":
        raise SystemExit(f"scale-out on {count} engines: the stack ended {state}")
    return {"seconds": round(seconds, 2),
            "resources_per_second": round(SCALE_OUT_RESOURCES / seconds, 1),
            "transactions_per_resource": round(xacts / SCALE_OUT_RESOURCES, 1),
            "creates_per_engine": sorted(shares.values(), reverse=True),
            "engine_cpu_ms_per_resource": round(engine_cpu * 1000 / SCALE_OUT_RESOURCES, 1),
            "machine_busy_percent": round(100 * busy / total, 1) if total else None}


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of every CPU since boot (Linux's /proc/stat), so a run can
    tell whether it was held back by the machine rather than by the engines."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def process_cpu(engines: list[EngineProcess]) -> float:
    """CPU seconds (user + system) the engine processes have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = 0.0
    for engine in engines:
        try:
            stat = Path(f"/proc/{engine.pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        used += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return used


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


def print_scale_out(results: dict[str, dict[str, Any]]) -> None:
    header = (f"{'engines':>7} {'seconds':>8} {'res/s':>8} {'xact/res':>9} {'speed-up':>9}"
              f" {'cpu ms/res':>10} {'machine busy':>12}  creates per engine")
    print(f"scale-out: {SCALE_OUT_RESOURCES} TestResources waiting "
          f"{SCALE_OUT_WAIT * 1000:g} ms, {THREADS} threads per engine")
    print(header)
    print("-" * len(header))
    one = results.get("1", {}).get("seconds")
    for count, row in results.items():
        ratio = f"{one / row['seconds']:.2f}x" if one else "-"
        spread = "/".join(str(n) for n in row["creates_per_engine"])
        print(f"{count:>7} {row['seconds']:>8} {row['resources_per_second']:>8} "
              f"{row['transactions_per_resource']:>9} {ratio:>9} "
              f"{row['engine_cpu_ms_per_resource']:>10} "
              f"{row['machine_busy_percent']:>11}%  {spread}")


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
