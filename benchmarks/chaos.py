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
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.chaos_kills import KILLING, kill_figures, run_kills
from benchmarks.chaos_partitions import (
    Calls,
    Failure,
    Partition,
    SlotLinks,
    duplicate_stacks,
    during,
    run_partitions,
    slow_calls,
    stalls,
)
from benchmarks.chaos_record import CTXT, THREADS, Record, engine_env, settle
from benchmarks.chaos_scale_out import print_scale_out, scale_out
from benchmarks.engine_cluster import (
    Cluster,
    private_vhost,
    scratch_database,
)
from hotplate.api.rpc import EngineRpc
from hotplate.app import api_transport
from hotplate.ports import Transport
from hotplate.rpc.requests import keyed_request_id

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
def create_stack(rpc: EngineRpc, name: str, template: dict[str, Any],
                 calls: Calls | None = None) -> bool:
    """Create through the engine topic as ``hotplate api`` does, with a request id of
    the stack's own: a create whose engine died or was cut off is asked again with the
    same id, as a client repeats it with its Idempotency-Key, and is made once. False:
    never made."""
    ctxt = {**CTXT, "request_id": keyed_request_id("chaos", name)}
    for _ in range(3):
        started = time.monotonic()
        try:
            rpc.call(ctxt, "create_stack", stack_name=name, template=template, params={},
                     files={}, args={"disable_rollback": True})
            if calls is not None:
                calls.add(started, None, "create_stack")
            return True
        except Exception as exc:
            if calls is not None:
                calls.add(started, f"{type(exc).__name__}: {exc}", "create_stack")
            print(f"create {name}: {type(exc).__name__}: {exc}; again", file=sys.stderr)
    return False


@dataclass
class Feeder:
    """Keeps ``in_flight`` stacks converging until told to stop (or ``total`` made),
    so there is always work for a killed engine to leave behind."""

    rpc: EngineRpc
    record: Record
    resources: int
    in_flight: int
    total: int | None
    rng: random.Random
    prefix: str = "chaos-"
    calls: Calls | None = None
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
            if create_stack(self.rpc, name, chaos_template(shape, self.resources, self.rng),
                            self.calls):
                self.made.append(name)
            else:
                self.lost += 1


# -- the chaos run ---------------------------------------------------------------------
def chaos(args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with scratch_database(args.db_url, args.database, keep=args.keep) as db_url, \
            private_vhost(args.broker) as broker_url:
        record = Record(db_url)
        links = SlotLinks(args.engines, db_url, broker_url) if args.partitions else None
        cluster = Cluster(args.engines, engine_env(db_url, broker_url, args), THREADS,
                          logs, prefix="chaos", slot_env=links.env if links else None)
        transport = api_transport(broker_url, workers=4)
        try:
            cluster.wait_all()
            return _chaos_run(args, rng, record, cluster, transport, links)
        finally:
            transport.stop()
            cluster.stop()
            if links is not None:
                links.stop()
            record.close()


def _chaos_run(args: argparse.Namespace, rng: random.Random, record: Record,
               cluster: Cluster, transport: Transport,
               links: SlotLinks | None) -> dict[str, Any]:
    started = time.monotonic()
    rpc = EngineRpc(transport, timeout=CALL_TIMEOUT)
    calls = Calls(rpc)
    feeder = Feeder(rpc, record, args.resources, args.in_flight, args.stacks,
                    random.Random(rng.random()), calls=calls)
    threads = [threading.Thread(target=feeder.run, name="feeder", daemon=True),
               threading.Thread(target=calls.run, name="calls", daemon=True)]
    parts: list[Partition] = []
    if links is not None:
        interval = args.partition_interval or args.kills * args.kill_interval / args.partitions
        threads.append(threading.Thread(target=lambda: parts.extend(run_partitions(
            cluster, links, args.partitions, interval, random.Random(rng.random()),
            lambda: set(KILLING))), name="partitions", daemon=True))
    for thread in threads:
        thread.start()
    kills = list(run_kills(cluster, record, args.kills, args.kill_interval, rng, links))
    if links is not None:
        threads[2].join()
    feeder.stop.set()
    threads[0].join(CALL_TIMEOUT * 4)
    states = settle(record, feeder.prefix, time.monotonic() + args.settle_timeout)
    calls.stop.set()
    wall = time.monotonic() - started
    result = kill_figures(kills, record, cluster)
    bound = 3 * args.periodic_interval + args.life_check_timeout
    mine = [states.get(name, "MISSING") for name in feeder.made]
    effect = timedelta(seconds=bound)
    failures = ([Failure(k.at, k.at + effect,
                         f"kill ({k.mode}) slot {k.slot} engine {k.engine_id[:8]}")
                 for k in kills]
                + [Failure(p.at, p.at + timedelta(seconds=p.seconds) + effect,
                           f"cut {p.links} {p.how} {p.seconds} s slot {p.slot} engine "
                           f"{p.engine_id[:8]}") for p in parts])
    result.update({
        "partitions": len(parts),
        **during(calls.made, parts, bound),
        "load_1min": {"min": min(calls.loads, default=0.0),
                      "median": statistics.median(calls.loads or [0.0]),
                      "max": max(calls.loads, default=0.0), "cores": os.cpu_count()},
        "api_calls": len(calls.made),
        "api_calls_failed": sum(error is not None for _, _, error in calls.made),
        **stalls(record, feeder.prefix, failures, bound),
        "slow_calls": slow_calls(calls, failures),
        "duplicate_stacks": duplicate_stacks(record, feeder.prefix),
        "stacks": len(feeder.made),
        "stacks_never_made": feeder.lost,
        "completed": sum(s == "CREATE_COMPLETE" for s in mine),
        "stuck": sum(s.endswith("IN_PROGRESS") for s in mine),
        "failed": sum(s.endswith("FAILED") for s in mine),
        "wall_s": round(wall, 1),
        "resume_target_s": bound,
        "not_complete": {n: s for n, s in zip(feeder.made, mine, strict=True)
                         if s != "CREATE_COMPLETE"},
        "partition_log": [{**asdict(p), "at": p.at.isoformat()} for p in parts],
    })
    return result


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
        ("machine load, 1 min (min / median / max, cores)",
         "{min:.1f} / {median:.1f} / {max:.1f}, {cores}".format(**result["load_1min"])),
        ("duplicate creates", result["duplicate_creates"]),
        ("creates resumed as retries", result["retried_creates"]),
        ("first-try creates run twice", result["repeated_first_creates"]),
        ("leaked locks", result["leaked_locks"]),
        ("locks held by live engines", result["locks_held_by_live_engines"]),
        ("kill-to-resume p50 (s)", result["resume_p50_s"]),
        ("kill-to-resume p99 (s)", result["resume_p99_s"]),
        ("kill-to-resume max (s)", result["resume_max_s"]),
        ("resume target (s)", result["resume_target_s"]),
        ("partitions", result["partitions"]),
        ("API calls (failed)", f"{result['api_calls']} ({result['api_calls_failed']})"),
        ("API calls during partitions (failed)",
         f"{result['calls_during_partitions']} ({result['calls_failed_during_partitions']})"),
        ("slowest call during partitions (s)", result["slowest_call_during_partitions_s"]),
        ("longest stall of a stack (s)",
         f"{result['longest_stall_s']} ({result['failures_in_effect_during_longest_stall']}"
         " failures in effect)"),
        ("longest stall within one failure (s)", result["longest_stall_one_failure_s"]),
        ("stalls longer than the resume target", result["stalls_over_bound"]),
        ("longest wait for progress after a failure (s)",
         f"{result['longest_wait_after_failure_s']} "
         f"({result['failures_in_effect_during_longest_wait']} failures in effect)"),
        ("waits after a failure longer than the resume target",
         result["waits_after_failure_over_bound"]),
        ("duplicate stacks from repeated requests", result["duplicate_stacks"]),
    ]
    width = max(len(label) for label, _ in rows)
    print("chaos")
    print("-" * (width + 40))
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    for name, state in result["not_complete"].items():
        print(f"  {name}: {state}")
    for failure in result["failures"]:
        print(f"  failed during a partition: {failure}")
    for call in result["slow_calls"][:5]:
        print(f"  call {call['method']} took {call['took_s']} s from {call['at']}"
              f" ({call['error'] or 'answered'})")
        for failure in call["failures"]:
            print(f"    in effect: {failure}")
    for stall in result["stalls_over_bound_detail"][:10]:
        print(f"  stall {stall['gap_s']} s of {stall['stack']} from {stall['from']}\n"
              f"    before: {stall['before']}\n    after:  {stall['after']}")
        for failure in stall["failures"]:
            print(f"    in effect: {failure}")


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
    parser.add_argument("--partitions", type=int, default=0,
                        help="engines cut off from the database, the broker or both "
                             "(chaos_partitions.py), mixed with the kills")
    parser.add_argument("--partition-interval", type=float, default=None,
                        help="mean seconds between partitions (default: spread over the "
                             "kills)")
    parser.add_argument("--periodic-interval", type=int, default=2)
    parser.add_argument("--life-check-timeout", type=int, default=1)
    parser.add_argument("--stalled-timeout", type=int, default=15,
                        help="the engines' stalled_traversal_timeout")
    parser.add_argument("--settle-timeout", type=float, default=600.0,
                        help="seconds every stack has, after the last kill, to finish")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--db-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test",
                        help="a PostgreSQL server (a database of the benchmark's is made)")
    parser.add_argument("--database", default=DATABASE,
                        help="the name of the database made on that server")
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
