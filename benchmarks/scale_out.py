"""Converge a wide stack of OS::Heat::None on 1, 2, ... ``hotplate engine`` processes
sharing PostgreSQL and RabbitMQ, driven over the broker as ``hotplate api`` drives them.

Each engine count gets a fresh database; the engines are real processes. The
stack is created, updated (every resource changed in place) and deleted;
the table shows resources per second for each phase, and the round trip of
a small engine call through the broker.

    python benchmarks/scale_out.py [--engines 1,2] [--sizes 500,2000]
        [--db-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--broker rabbit://guest:guest@127.0.0.1:5672/] [--threads 16] [--json PATH]

Each ``hotplate engine`` runs one engine process (``--workers 1``) with
``--threads`` threads per RPC server, so the engine count is the process count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.app import api_transport
from hotplate.rpc.topics import ENGINE_TOPIC
from tests.distributed.databases import fresh_postgres_database

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}
DATABASE = "hotplate_scale_bench"


def template(n: int, generation: int) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::None",
                                    "properties": {"gen": generation}} for i in range(n)}}


def start_engines(count: int, db_url: str, broker: str, threads: int,
                  ) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "HOTPLATE_DB_URL": db_url, "HOTPLATE_TRANSPORT_URL": broker,
           "HOTPLATE_MAX_RESOURCES_PER_STACK": "-1"}
    procs = [subprocess.Popen([sys.executable, "-m", "hotplate.cli.main", "engine",
                               "--engine-host", f"bench-{i}", "--workers", "1",
                               "--threads", str(threads)],
                              env=env, stdout=subprocess.PIPE, text=True)
             for i in range(count)]
    for proc in procs:
        assert proc.stdout is not None
        if not proc.stdout.readline():
            raise SystemExit("an engine did not start")
    return procs


def stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(60)
        if proc.stdout is not None:
            proc.stdout.close()


def call(transport: Any, method: str, **kwargs: Any) -> Any:
    return transport.call(CTXT, ENGINE_TOPIC, method, kwargs, timeout=120)


def wait_done(transport: Any, stack_id: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        views = call(transport, "list_stacks", filters={"id": stack_id}, show_deleted=True)
        if views and not views[0]["stack_status"].endswith("IN_PROGRESS"):
            return str(views[0]["stack_status"])
        time.sleep(0.1)
    return "TIMEOUT"


def run(engines: int, n: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    db_url = fresh_postgres_database(args.db_url, DATABASE)
    procs = start_engines(engines, db_url, args.broker, args.threads)
    transport = api_transport(args.broker, workers=1)
    rows = []
    try:
        trips = []
        for _ in range(50):
            start = time.perf_counter()
            call(transport, "list_stacks", limit=1)
            trips.append(time.perf_counter() - start)
        stack_id = ""
        for phase in ("create", "update", "delete"):
            start = time.perf_counter()
            if phase == "create":
                stack_id = call(transport, "create_stack", stack_name=f"wide-{n}",
                                template=template(n, 0), params={}, files={},
                                args={"disable_rollback": True})["stack_id"]
            elif phase == "update":
                call(transport, "update_stack", stack_identity=stack_id,
                     template=template(n, 1), params={}, files={}, args={})
            else:
                call(transport, "delete_stack", stack_identity=stack_id)
            status = wait_done(transport, stack_id, args.timeout)
            seconds = time.perf_counter() - start
            rows.append({"engines": engines, "n": n, "phase": phase, "status": status,
                         "seconds": round(seconds, 3),
                         "resources_per_second": round(n / seconds, 1),
                         "call_ms_median": round(statistics.median(trips) * 1000, 2)})
    finally:
        transport.stop()
        stop(procs)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="1,2")
    parser.add_argument("--sizes", default="500,2000")
    parser.add_argument("--db-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test",
                        help="a PostgreSQL server (a database of the benchmark's is made)")
    parser.add_argument("--broker", default="rabbit://guest:guest@127.0.0.1:5672/")
    parser.add_argument("--threads", type=int, default=16,
                        help="threads per RPC server of each engine process")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        for engines in (int(x) for x in args.engines.split(",")):
            rows.extend(run(engines, n, args))
    header = f"{'engines':>7} {'n':>6} {'phase':>7} {'status':>16} {'seconds':>8} " \
             f"{'res/s':>8} {'call ms':>8}"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(f"{row['engines']:>7} {row['n']:>6} {row['phase']:>7} {row['status']:>16} "
              f"{row['seconds']:>8} {row['resources_per_second']:>8} "
              f"{row['call_ms_median']:>8}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
