"""Converge stacks through the API as a user does: python-heatclient against ``hotplate serve``.

For each shape and size, a fresh ``hotplate serve --noauth`` (a subprocess,
SQLite in a temporary directory: benchmarks/served.py), warmed up by a stack of
one resource created and deleted, then the stack of N
OS::Heat::None resources of benchmarks/converge.py (wide, chain, fanin). Phases
create, update (every resource changed in place: its ``gen`` property) and
delete, each timed from the moment its request is sent to the first poll
(``stacks.get``, one every 50 ms at most) that sees the phase's final status.
Beside the rate: the server process's CPU milliseconds per resource over the
phase (the polls' cost included), and how long the request itself took to be
answered.

A second table is the server's own cost per request once the stack is
created: stack show, resource list, event list (limit 100) and the version
list (a request that reads nothing), each sent ``--repeat`` times over one
keep-alive connection (httpx): median and p95 milliseconds, and the server's
CPU milliseconds per request (the operating system counts CPU time in 10 ms
ticks: over 50 requests, to 0.2 ms).

    python benchmarks/api_overhead.py [--sizes 1000] [--shapes wide,chain,fanin]
        [--repeat 50] [--workers 16] [--json PATH]

Exits 1 if a phase did not end COMPLETE or a server did not stop cleanly.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from heatclient import exc as heat_exc

from benchmarks.converge import build_template, print_table
from benchmarks.served import Served, ServerFailed

PHASE_COLUMNS = ("shape", "n", "phase", "status", "seconds", "resources_per_second",
                 "server_cpu_ms_per_resource", "request_answer_ms", "polls", "server_rss_mb")
REQUEST_COLUMNS = ("shape", "n", "request", "repeat", "median_ms", "p95_ms", "max_ms",
                   "server_cpu_ms")


def final_status(hc: Any, stack_id: str, action: str) -> str | None:
    """The stack's status once ``action`` is over, else None (still in progress, or the
    previous action's status not yet replaced)."""
    try:
        status: str = hc.stacks.get(stack_id).stack_status
    except heat_exc.HTTPNotFound:
        return "DELETE_COMPLETE" if action == "DELETE" else None
    if status.startswith(f"{action}_") and not status.endswith("_IN_PROGRESS"):
        return status
    return None


def poll(hc: Any, server: Served, stack_id: str, action: str, *, deadline: float,
         interval: float) -> tuple[str, float, int]:
    """Poll until ``action`` is over: (status, when the deciding poll was answered, polls)."""
    polls = 0
    while True:
        asked = time.perf_counter()
        status = final_status(hc, stack_id, action)
        polls += 1
        answered = time.perf_counter()
        if status is not None:
            return status, answered, polls
        if answered > deadline:
            return "TIMEOUT", answered, polls
        server.check_alive()
        time.sleep(max(0.0, asked + interval - answered))


def run_phase(hc: Any, server: Served, phase: str, case: dict[str, Any],
              args: argparse.Namespace) -> dict[str, Any]:
    """Send the phase's request, follow the stack to its end, and measure both."""
    shape, n = case["shape"], case["n"]
    total = n + (1 if shape == "fanin" else 0)
    cpu_before = server.cpu_seconds()
    sent = time.perf_counter()
    if phase == "create":
        created = hc.stacks.create(stack_name=f"{shape}-{n}",
                                   template=build_template(shape, n, 0), disable_rollback=True)
        case["stack_id"] = created["stack"]["id"]
    elif phase == "update":
        hc.stacks.update(case["stack_id"], template=build_template(shape, n, 1))
    else:
        hc.stacks.delete(case["stack_id"])
    answer_ms = (time.perf_counter() - sent) * 1000
    status, done, polls = poll(hc, server, case["stack_id"], phase.upper(),
                               deadline=sent + args.timeout, interval=args.poll_interval)
    seconds = done - sent
    cpu = server.cpu_seconds() - cpu_before
    return {
        "shape": shape, "n": n, "phase": phase, "status": status,
        "seconds": round(seconds, 4),
        "resources_per_second": (round(total / seconds, 1)
                                 if seconds and status.endswith("_COMPLETE") else None),
        "server_cpu_ms_per_resource": round(cpu * 1000 / total, 3),
        "request_answer_ms": round(answer_ms, 1),
        "polls": polls,
        "server_rss_mb": round(server.rss_mb(), 1),
    }


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value at least ``fraction`` of them reach."""
    ordered = sorted(values)
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def answered(response: httpx.Response) -> None:
    """A request answered (the version list answers 300 Multiple Choices, as Heat's does)."""
    if response.status_code >= 400:
        response.raise_for_status()


def time_requests(server: Served, case: dict[str, Any], repeat: int) -> list[dict[str, Any]]:
    """The server's cost per request, over one keep-alive connection."""
    stack = f"{server.endpoint}/stacks/{case['shape']}-{case['n']}/{case['stack_id']}"
    requests = (("stack show", stack), ("resource list", f"{stack}/resources"),
                ("event list (limit 100)", f"{stack}/events?limit=100"),
                ("versions", f"{server.base}/versions"))
    rows = []
    with httpx.Client(timeout=120, headers={"X-Auth-Token": "noauth"}) as http:
        for label, url in requests:
            answered(http.get(url))  # connection open, first-use costs paid
            times = []
            cpu_before = server.cpu_seconds()
            for _ in range(repeat):
                start = time.perf_counter()
                answered(http.get(url))
                times.append((time.perf_counter() - start) * 1000)
            cpu = server.cpu_seconds() - cpu_before
            rows.append({"shape": case["shape"], "n": case["n"], "request": label,
                         "repeat": repeat,
                         "median_ms": round(statistics.median(times), 2),
                         "p95_ms": round(percentile(times, 0.95), 2),
                         "max_ms": round(max(times), 2),
                         "server_cpu_ms": round(cpu * 1000 / repeat, 2)})
    return rows


def warm_up(hc: Any, server: Served, args: argparse.Namespace) -> None:
    """Create and delete a stack of one resource first: the server's first stack pays for
    imports and caches that no later one does, and is not what is measured."""
    created = hc.stacks.create(stack_name="warm-up", template=build_template("wide", 1, 0))
    stack_id = created["stack"]["id"]
    deadline = time.perf_counter() + args.timeout
    for action, call in (("CREATE", None), ("DELETE", hc.stacks.delete)):
        if call is not None:
            call(stack_id)
        status, _, _ = poll(hc, server, stack_id, action, deadline=deadline,
                            interval=args.poll_interval)
        if status != f"{action}_COMPLETE":
            raise ServerFailed(f"the warm-up stack ended {status}: {server.log_tail()}")


def run_case(shape: str, n: int, args: argparse.Namespace
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """One fresh server: create, the per-request table, update, delete.
    Returns the phase rows, the request rows, and whether the server stopped cleanly."""
    phases: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    case: dict[str, Any] = {"shape": shape, "n": n}
    server = Served(workers=args.workers)
    with server:
        hc = server.client()
        warm_up(hc, server, args)
        for phase in ("create", "update", "delete"):
            row = run_phase(hc, server, phase, case, args)
            phases.append(row)
            if not row["status"].endswith("_COMPLETE"):
                print(f"{shape}-{n} {phase}: {row['status']}; server log:\n"
                      f"{server.log_tail()}", file=sys.stderr)
                break
            if phase == "create":
                requests = time_requests(server, case, args.repeat)
    clean = server.exit_status == 0
    print(f"{shape}-{n}: server exited {server.exit_status}"
          f"{'' if clean else ' (NOT CLEAN)'}")
    return phases, requests, clean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--shapes", default="wide,chain,fanin")
    parser.add_argument("--repeat", type=int, default=50,
                        help="times each request of the per-request table is sent")
    parser.add_argument("--workers", type=int, default=16, help="the server's engine threads")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per phase")
    parser.add_argument("--poll-interval", type=float, default=0.05,
                        help="seconds between the starts of two polls, at most")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    phases: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    ok = True
    for shape in args.shapes.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            try:
                case_phases, case_requests, clean = run_case(shape, n, args)
            except (ServerFailed, heat_exc.HTTPException) as failed:
                print(f"{shape}-{n}: {type(failed).__name__}: {failed}", file=sys.stderr)
                ok = False
                continue
            ok = ok and clean and len(case_phases) == 3 and all(
                row["status"].endswith("_COMPLETE") for row in case_phases)
            phases.extend(case_phases)
            requests.extend(case_requests)
            print_table(case_phases, PHASE_COLUMNS)
            sys.stdout.flush()
    print()
    print_table(phases, PHASE_COLUMNS)
    print()
    print_table(requests, REQUEST_COLUMNS)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"phases": phases, "requests": requests},
                                                   indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
