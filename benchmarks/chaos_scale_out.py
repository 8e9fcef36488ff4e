"""Scale-out for the chaos benchmark: one stack of 600 independent TestResources that
each wait 100 ms, created on 1, 2, ... N engine processes (``THREADS`` threads each),
each count on a fresh database and vhost."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.chaos_record import CTXT, THREADS, Record, engine_env, settle
from benchmarks.engine_cluster import Cluster, EngineProcess, private_vhost, scratch_database
from hotplate.app import api_transport
from hotplate.rpc.topics import ENGINE_TOPIC

DATABASE = "hotplate_chaos_bench_scale"
SCALE_OUT_RESOURCES = 600
SCALE_OUT_WAIT = 0.1


def wide_template(count: int, wait: float) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::TestResource",
                                    "properties": {"value": f"v{i}", "wait_secs": wait}}
                          for i in range(count)}}


def scale_out(args: argparse.Namespace, logs: Path) -> dict[str, dict[str, Any]]:
    """Seconds (and transactions per resource) for the wide stack on 1..N engines."""
    results = {}
    for count in range(1, args.engines + 1):
        results[str(count)] = _scale_out_once(count, args, logs)
        print(f"scale-out on {count}: {results[str(count)]}", file=sys.stderr, flush=True)
    return results


def _scale_out_once(count: int, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    name = DATABASE
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


