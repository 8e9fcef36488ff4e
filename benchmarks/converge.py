"""Converge stacks of N OS::Heat::None resources on the embedded engine (SQLite, or
the database ``--db`` names).

Shapes: wide (N independent), chain (N in sequence), fanin (N independent + 1
that depends on all N). Phases: create, update (every resource changed in
place), delete. Beside the rate, each phase's CPU time per resource (the whole
process's: the engine runs in it, SQLite too; with ``--db``, the local server's
processes' beside it), SQL statements and committed write
transactions per resource.
Prints a table and optionally writes JSON:

    python benchmarks/converge.py [--sizes 10,100,1000,5000]
        [--shapes wide,chain,fanin] [--json PATH] [--workers 16] [--db URL]
        [--profile OUT.svg]

``--profile OUT.svg`` runs the same benchmark under py-spy (``pip install py-spy``,
part of the ``test`` extra), sampling 200 times a second, and writes a flame graph
of the whole run. py-spy pauses the process for each sample: a profiled run's
figures are slower than a plain run's; compare them only with each other.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil

from hotplate import heap
from hotplate.app import embedded, open_store
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import UNLIMITED, EngineOptions

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}

STATUS_VARIABLE = "HOTPLATE_BENCH_STATUS_FILE"
"""Where a run under py-spy writes its exit status: py-spy exits 0 whatever its child did."""


def build_template(shape: str, n: int, generation: int) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(n):
        res: dict[str, Any] = {"type": "OS::Heat::None", "properties": {"gen": generation}}
        if shape == "chain" and i > 0:
            res["depends_on"] = f"r{i - 1}"
        resources[f"r{i}"] = res
    if shape == "fanin":
        resources["join"] = {"type": "OS::Heat::None", "properties": {"gen": generation},
                             "depends_on": [f"r{i}" for i in range(n)]}
    return {"heat_template_version": "2021-04-16", "resources": resources}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def wait_settled(transport: Any, watcher: Any, stack_id: str, timeout: float) -> str:
    """Wait for the engine to go quiet, then read the outcome.

    Waiting on the transport costs the engine nothing; polling the database
    would compete with it for the interpreter. The read goes through a
    separate store (its own engine) so it is not counted as engine SQL.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        transport.join(timeout=max(deadline - time.monotonic(), 0))
        stack = watcher.get_stack(stack_id, include_deleted=True)
        if stack.status != "IN_PROGRESS":
            return f"{stack.action}_{stack.status}"
        time.sleep(0.05)  # quiet but not settled: a plugin is waiting on its own clock
    return "TIMEOUT"


_SERVER_NAMES = {"postgresql": ("postgres",), "mysql": ("mariadbd", "mysqld")}


def database_cpu(url: str) -> float:
    """CPU seconds used so far by the local database server's processes (0 for
    SQLite, which runs in this process, and for a server this user cannot see)."""
    names = next((found for prefix, found in _SERVER_NAMES.items() if url.startswith(prefix)),
                 ())
    total = 0.0
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] in names:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
    return total


def run_case(shape: str, n: int, workers: int, timeout: float,
             db: str | None = None) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        threads_idle = threading.active_count()
        url = db or f"sqlite:///{tmp}/bench.sqlite"
        engine, transport = embedded(
            url, workers=workers, options=EngineOptions(max_resources_per_stack=UNLIMITED))
        store = engine.store
        watcher = open_store(url, SystemClock(), pool_size=1, migrate=False)
        total = n + (1 if shape == "fanin" else 0)
        try:
            stack_id = None
            for phase in ("create", "update", "delete"):
                stats_before = store.stats.snapshot()
                cpu_before = time.process_time()
                db_cpu_before = database_cpu(url)
                start = time.perf_counter()
                if phase == "create":
                    ident = engine.service.create_stack(
                        CTXT, f"{shape}-{n}", build_template(shape, n, 0), {}, {},
                        {"disable_rollback": True})
                    stack_id = ident["stack_id"]
                elif phase == "update":
                    engine.service.update_stack(CTXT, stack_id, build_template(shape, n, 1),
                                                {}, {}, {})
                else:
                    engine.service.delete_stack(CTXT, stack_id)
                status = wait_settled(transport, watcher, stack_id, timeout)
                seconds = time.perf_counter() - start
                cpu = time.process_time() - cpu_before
                db_cpu = database_cpu(url) - db_cpu_before
                stats = store.stats.snapshot() - stats_before
                results.append({
                    "shape": shape, "n": n, "phase": phase, "status": status,
                    "seconds": round(seconds, 4),
                    "resources_per_second": round(total / seconds, 1) if seconds else None,
                    "sql_per_resource": round(stats.statements / total, 2),
                    "commits_per_resource": round(stats.commits / total, 3),
                    "cpu_ms_per_resource": round(cpu * 1000 / total, 3),
                    "db_cpu_ms_per_resource": round(db_cpu * 1000 / total, 3),
                    "cas_retries": stats.cas_retries,
                    "peak_rss_mb": round(peak_rss_mb(), 1),
                })
        finally:
            engine.stop()
            transport.stop()
            watcher.engine.dispose()
            gc.collect()
        pool = store.pool_status()
        threads_after = threading.active_count()
        for row in results:
            row["threads_idle"] = threads_idle
            row["threads_after"] = threads_after
            row["connections_checked_out"] = pool["checked_out"]
        idle = threads_after <= threads_idle and pool["checked_out"] == 0
        print(f"{shape}-{n}: threads {threads_idle} before, {threads_after} after; "
              f"connections checked out after: {pool['checked_out']} "
              f"({'back to idle' if idle else 'NOT IDLE'})")
    return results


COLUMNS = ("shape", "n", "phase", "status", "seconds", "resources_per_second",
           "cpu_ms_per_resource", "db_cpu_ms_per_resource", "sql_per_resource",
           "commits_per_resource", "cas_retries", "peak_rss_mb")


def print_table(rows: list[dict[str, Any]], headers: tuple[str, ...] = COLUMNS) -> None:
    """Rows as right-aligned columns, a header line first."""
    if not rows:
        return
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in headers]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    for r in rows:
        print("  ".join(str(r[h]).rjust(w) for h, w in zip(headers, widths, strict=True)))


def find_py_spy() -> str | None:
    """py-spy on PATH, else beside this interpreter (a virtualenv not activated)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.exists() else None)


def run_profiled(args: argparse.Namespace) -> int:
    """Run this benchmark again, without --profile, under ``py-spy record``."""
    py_spy = find_py_spy()
    if py_spy is None:
        print("error: --profile needs py-spy: pip install py-spy "
              "(or pip install -e '.[test]')", file=sys.stderr)
        return 2
    out = Path(args.profile).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    child = [sys.executable, str(Path(__file__).resolve()), "--sizes", args.sizes,
             "--shapes", args.shapes, "--workers", str(args.workers),
             "--timeout", str(args.timeout)]
    if args.json_path:
        child += ["--json", args.json_path]
    with tempfile.TemporaryDirectory() as tmp:
        status_file = Path(tmp) / "status"
        spy = subprocess.run(
            [py_spy, "record", "--format", "flamegraph", "-r", "200", "-o", str(out),
             "--", *child],
            env={**os.environ, STATUS_VARIABLE: str(status_file)}, check=False)
        status = int(status_file.read_text()) if status_file.exists() else None
    if spy.returncode != 0 or not out.exists():
        print(f"error: py-spy exited {spy.returncode} and wrote no flame graph "
              "(it needs ptrace: run as root or with CAP_SYS_PTRACE)", file=sys.stderr)
        return 1
    print(f"flame graph (py-spy, 200 samples/s): {out}")
    if status is None:
        print("error: the profiled run ended before it finished", file=sys.stderr)
        return 1
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000,5000")
    parser.add_argument("--shapes", default="wide,chain,fanin")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--db", help="a PostgreSQL or MariaDB URL instead of a new SQLite "
                        "file (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/bench)")
    parser.add_argument("--profile", metavar="OUT.svg",
                        help="write a py-spy flame graph of the run to OUT.svg")
    args = parser.parse_args(argv)
    if args.profile:
        return run_profiled(args)
    status = run(args)
    if STATUS_VARIABLE in os.environ:
        Path(os.environ[STATUS_VARIABLE]).write_text(str(status))
    return status


def run(args: argparse.Namespace) -> int:
    heap.settle()  # once loaded, as the server commands do (hotplate/heap.py)
    rows: list[dict[str, Any]] = []
    for shape in args.shapes.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            case = run_case(shape, n, args.workers, args.timeout, args.db)
            rows.extend(case)
            print_table(case)
            sys.stdout.flush()
    print()
    print_table(rows)
    print(f"threads after all runs: {threading.active_count()}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    ok = all(r["status"].endswith("COMPLETE") for r in rows) and all(
        r["threads_after"] <= r["threads_idle"] and r["connections_checked_out"] == 0
        for r in rows
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
