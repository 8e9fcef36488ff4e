"""Converge a wide stack of OS::Heat::None on 1, 2, ... ``hotplate engine`` processes
sharing PostgreSQL and RabbitMQ, driven over the broker as ``hotplate api`` drives them.

Each engine count gets a fresh database; the engines are real processes. The
stack is created, updated (every resource changed in place) and deleted;
the table shows resources per second for each phase, the SQL statements the
engines sent per resource, the engines' and PostgreSQL's CPU per resource, how
busy the machine was, and the round trip of a small engine call through the
broker.

    python benchmarks/scale_out.py [--engines 1,2] [--sizes 500,2000]
        [--db-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--broker rabbit://guest:guest@127.0.0.1:5672/] [--threads 16] [--json PATH]

Each ``hotplate engine`` runs one engine process (``--workers 1``) with
``--threads`` threads per RPC server, so the engine count is the process count.
The engines run through ``benchmarks/counted_engine.py``, which counts their
statements; ``--repeat N`` runs each case N times and reports each phase's median
(by resources per second).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, pool, text
from sqlalchemy.engine import make_url

from benchmarks.counted_engine import DIR_VARIABLE
from hotplate.app import api_transport
from hotplate.rpc.topics import ENGINE_TOPIC
from tests.distributed.databases import fresh_postgres_database

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}
DATABASE = "hotplate_scale_bench"


def template(n: int, generation: int) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::None",
                                    "properties": {"gen": generation}} for i in range(n)}}


class Engines:
    """The engine commands, and the pids of their engine processes (the children
    the command forks), to read their statements and CPU."""

    def __init__(self, count: int, db_url: str, broker: str, threads: int) -> None:
        self.counts_dir = tempfile.mkdtemp(prefix="hotplate-bench-")
        env = {**os.environ, "HOTPLATE_DB_URL": db_url, "HOTPLATE_TRANSPORT_URL": broker,
               "HOTPLATE_MAX_RESOURCES_PER_STACK": "-1", DIR_VARIABLE: self.counts_dir}
        wrapper = str(Path(__file__).resolve().parent / "counted_engine.py")
        self.procs = [subprocess.Popen([sys.executable, wrapper, "engine",
                                        "--engine-host", f"bench-{i}", "--workers", "1",
                                        "--threads", str(threads)],
                                       env=env, stdout=subprocess.PIPE, text=True)
                      for i in range(count)]
        self.pids: list[int] = []
        for proc in self.procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            found = re.search(r" pid (\d+) ", line)
            if found is None:
                raise SystemExit(f"an engine did not start: {line!r}")
            self.pids.append(int(found.group(1)))

    def statements(self, timeout: float = 10.0) -> int:
        """SQL statements the engine processes have sent so far."""
        counts = Path(self.counts_dir)
        for pid in self.pids:
            (counts / str(pid)).unlink(missing_ok=True)
            os.kill(pid, signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        total = 0
        for pid in self.pids:
            out = counts / str(pid)
            while not out.exists():
                if time.monotonic() > deadline:
                    raise SystemExit(f"engine pid {pid} did not say its statement count")
                time.sleep(0.02)
            total += int(out.read_text())
        return total

    def cpu(self) -> float:
        return process_cpu(self.pids)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait(60)
            if proc.stdout is not None:
                proc.stdout.close()
        for leftover in Path(self.counts_dir).iterdir():
            leftover.unlink()
        os.rmdir(self.counts_dir)


def process_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = 0.0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        used += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return used


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of every CPU since boot, from /proc/stat."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def backend_pids(admin: Any, database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` now."""
    with admin.connect() as conn:
        return [int(pid) for (pid,) in conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = :d"), {"d": database})]


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
    admin = create_engine(make_url(db_url), poolclass=pool.NullPool)
    procs = Engines(engines, db_url, args.broker, args.threads)
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
            statements = procs.statements()
            engine_cpu, machine = procs.cpu(), machine_cpu()
            backends = backend_pids(admin, DATABASE)
            db_cpu = process_cpu(backends)
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
            engine_cpu = procs.cpu() - engine_cpu
            busy, total = (now - then for now, then in zip(machine_cpu(), machine, strict=True))
            # Backends opened during the phase count from zero.
            db_cpu = process_cpu(backend_pids(admin, DATABASE)) - db_cpu
            statements = procs.statements() - statements
            rows.append({"engines": engines, "n": n, "phase": phase, "status": status,
                         "seconds": round(seconds, 3),
                         "resources_per_second": round(n / seconds, 1),
                         "sql_per_resource": round(statements / n, 2),
                         "engine_cpu_ms_per_resource": round(engine_cpu * 1000 / n, 2),
                         "db_cpu_ms_per_resource": round(db_cpu * 1000 / n, 2),
                         "machine_busy_percent": round(100 * busy / total, 1) if total
                         else None,
                         "call_ms_median": round(statistics.median(trips) * 1000, 2)})
    finally:
        transport.stop()
        procs.stop()
        admin.dispose()
    return rows


def median_rows(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each phase's median run (by resources per second), with every run's rate."""
    out = []
    for phase_runs in zip(*runs, strict=True):
        ordered = sorted(phase_runs, key=lambda row: row["resources_per_second"])
        row = dict(ordered[(len(ordered) - 1) // 2])
        row["runs_resources_per_second"] = [r["resources_per_second"] for r in phase_runs]
        out.append(row)
    return out


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
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each case; the table shows each phase's median")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        for engines in (int(x) for x in args.engines.split(",")):
            rows.extend(median_rows([run(engines, n, args) for _ in range(args.repeat)]))
    header = f"{'engines':>7} {'n':>6} {'phase':>7} {'status':>16} {'seconds':>8} " \
             f"{'res/s':>8} {'sql/res':>8} {'eng ms/res':>10} {'db ms/res':>9} " \
             f"{'busy %':>6} {'call ms':>8}"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(f"{row['engines']:>7} {row['n']:>6} {row['phase']:>7} {row['status']:>16} "
              f"{row['seconds']:>8} {row['resources_per_second']:>8} "
              f"{row['sql_per_resource']:>8} {row['engine_cpu_ms_per_resource']:>10} "
              f"{row['db_cpu_ms_per_resource']:>9} {row['machine_busy_percent']!s:>6} "
              f"{row['call_ms_median']:>8}")
        if len(row["runs_resources_per_second"]) > 1:
            print(f"{'':>41} runs: {row['runs_resources_per_second']}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
