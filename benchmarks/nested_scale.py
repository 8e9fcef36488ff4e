"""A ResourceGroup of template resources on the embedded engine (SQLite): Magnum's shape.

One group of ``--members`` members, each a template resource whose own stack
holds ``--per-member`` OS::Heat::None resources: with the defaults, 21,000
resources in 1,001 nested stacks plus the top one. Phases: create, update
(every member's resources changed in place) and delete, each timed until the
top stack settles. Prints a table and optionally writes JSON (a list of
objects with the keys phase, status, seconds, resources, stacks,
resources_per_second, cpu_ms_per_resource, sql_per_resource,
commits_per_resource, peak_rss_mb):

    python benchmarks/nested_scale.py [--members 1000] [--per-member 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.app import embedded, open_store
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import UNLIMITED, EngineOptions

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}
MEMBER_FILE = "member.yaml"


def member_template(per_member: int) -> dict[str, Any]:
    resources = {f"r{i}": {"type": "OS::Heat::None",
                           "properties": {"gen": {"get_param": "generation"}}}
                 for i in range(per_member)}
    return {"heat_template_version": "2021-04-16",
            "parameters": {"generation": {"type": "number"}},
            "resources": resources}


def group_template(members: int, generation: int) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {"group": {"type": "OS::Heat::ResourceGroup", "properties": {
                "count": members,
                "resource_def": {"type": MEMBER_FILE,
                                 "properties": {"generation": generation}}}}}}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def wait_settled(watcher: Any, stack_id: str, timeout: float) -> str:
    """Poll the top stack through a store of its own (one cheap read a second)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stack = watcher.get_stack(stack_id, include_deleted=True)
        if stack.status != "IN_PROGRESS":
            return f"{stack.action}_{stack.status}"
        time.sleep(0.25)
    return "TIMEOUT"


def run(members: int, per_member: int, workers: int, timeout: float) -> list[dict[str, Any]]:
    results = []
    total = 1 + members * (1 + per_member)
    stacks = 2 + members
    files = {MEMBER_FILE: json.dumps(member_template(per_member))}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite"
        engine, transport = embedded(
            url, workers=workers, options=EngineOptions(max_resources_per_stack=UNLIMITED))
        watcher = open_store(url, SystemClock(), pool_size=1, migrate=False)
        try:
            stack_id = ""
            for phase, generation in (("create", 1), ("update", 2), ("delete", 0)):
                start = time.monotonic()
                cpu_before = time.process_time()
                stats_before = engine.store.stats.snapshot()
                if phase == "create":
                    stack_id = engine.service.create_stack(
                        CTXT, "nested-scale", group_template(members, generation), {}, files,
                        {"timeout_mins": 600})["stack_id"]
                elif phase == "update":
                    engine.service.update_stack(CTXT, stack_id,
                                                group_template(members, generation), {},
                                                files, {"timeout_mins": 600})
                else:
                    engine.service.delete_stack(CTXT, stack_id)
                status = wait_settled(watcher, stack_id, timeout)
                seconds = time.monotonic() - start
                cpu = time.process_time() - cpu_before
                stats = engine.store.stats.snapshot() - stats_before
                results.append({
                    "phase": phase, "status": status, "seconds": round(seconds, 2),
                    "resources": total, "stacks": stacks,
                    "resources_per_second": round(total / seconds, 1) if seconds else None,
                    "cpu_ms_per_resource": round(1000 * cpu / total, 3),
                    "sql_per_resource": round(stats.statements / total, 2),
                    "commits_per_resource": round(stats.commits / total, 3),
                    "peak_rss_mb": round(peak_rss_mb(), 1),
                })
                print_row(results[-1])
                if not status.endswith("COMPLETE"):
                    break
        finally:
            engine.stop()
            transport.stop()
    return results


def print_row(row: dict[str, Any]) -> None:
    print(f"| {row['phase']:<7} | {row['status']:<16} | {row['seconds']:>8} | "
          f"{row['resources']:>9} | {row['stacks']:>6} | {row['resources_per_second']!s:>7} | "
          f"{row['cpu_ms_per_resource']:>6} | {row['sql_per_resource']:>7} | "
          f"{row['commits_per_resource']:>9} | {row['peak_rss_mb']:>8} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--per-member", type=int, default=20)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds to wait for each phase")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    print("| phase   | status           |  seconds | resources | stacks |   res/s "
          "| CPU ms | SQL/res | commits/r | peak MB |")
    print("|---------|------------------|----------|-----------|--------|---------"
          "|--------|---------|-----------|---------|")
    results = run(args.members, args.per_member, args.workers, args.timeout)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
