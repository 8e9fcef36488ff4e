"""N resources that each wait W seconds, on T worker threads: waiting should hold no worker.

Each resource stands for a cloud object that builds: its create is done W
seconds after its handle_create, and only a check can tell. ``polled``
answers Heat's plain False until then (the engine's back-off decides when to
ask again); ``asks`` answers CheckAgain(after=<time left>). Prints, per case,
the seconds to CREATE_COMPLETE, the checks made per resource, the engine's
CPU time, and how often the worker pool was seen busy while the resources
waited (sampled every 50 ms): waiting should hold no worker.

``--action suspend``: the N resources, created at once, are suspended, each
suspend done W seconds after its handle_suspend, as N/``--per-stack`` stacks
suspended side by side (a stack's suspend walks its resources one at a time).
``--hooks``: the N resources pause at a pre-create hook; once every one is
paused (or W seconds passed) the hooks are cleared, as ``openstack stack hook
clear`` does, until the stack is complete. Both print the most resources seen
waiting at once and the messages the worker pool held meanwhile.

    python benchmarks/waiting.py [--sizes 200,1000] [--wait 5] [--workers 4]
        [--modes polled,asks] [--action create|suspend] [--per-stack 10]
        [--hooks] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import UNLIMITED, EngineOptions
from hotplate.engine.worker.breakpoints import clear_hook
from hotplate.resources.base import Resource
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry
from hotplate.rpc.inprocess import InProcessTransport

try:
    from hotplate.resources.base import CheckAgain
except ImportError:  # an engine from before CheckAgain: every check answers False
    CheckAgain = None

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}


class Building(Resource):
    """Done ``wait`` seconds after its create started; counts the checks it answers."""

    properties_schema = {"wait": Schema(Schema.NUMBER, "Seconds to build.", default=0),
                         "suspend_wait": Schema(Schema.NUMBER, "Seconds to suspend.",
                                                default=0),
                         "asks": Schema(Schema.BOOLEAN, "Answer CheckAgain.", default=False)}
    checks = 0
    lock = threading.Lock()

    def handle_create(self) -> float:
        self.resource_id_set(self.physical_resource_name())
        return time.monotonic() + float(self.properties["wait"])

    def handle_suspend(self) -> float:
        return time.monotonic() + float(self.properties["suspend_wait"])

    def check_suspend_complete(self, ready_at: float) -> Any:
        return self.check_create_complete(ready_at)

    def check_create_complete(self, ready_at: float) -> Any:
        with Building.lock:
            Building.checks += 1
        left = ready_at - time.monotonic()
        if left <= 0:
            return True
        return CheckAgain(after=left) if self.properties["asks"] and CheckAgain else False


def template(n: int, wait: float, asks: bool, suspend_wait: float = 0.0) -> dict[str, Any]:
    props = {"wait": wait, "asks": asks, "suspend_wait": suspend_wait}
    return {"heat_template_version": "2021-04-16", "resources": {
        f"b{i}": {"type": "Bench::Building", "properties": props} for i in range(n)}}


def outstanding(transport: InProcessTransport) -> int:
    """Messages queued or running in the pool (what ``idle`` tests for zero)."""
    return int(getattr(transport, "_outstanding", 0))


def settle(store: Any, sids: list[str], timeout: float, start: float) -> str:
    """Wait for every stack to leave IN_PROGRESS; the first end state, or TIMEOUT."""
    for sid in sids:
        while time.perf_counter() - start < timeout:
            stack = store.get_stack(sid)
            if stack.status != "IN_PROGRESS":
                break
            time.sleep(0.05)
        else:
            return "TIMEOUT"
    ends = {f"{s.action}_{s.status}" for s in (store.get_stack(sid) for sid in sids)}
    return ends.pop() if len(ends) == 1 else ",".join(sorted(ends))


def bench_engine(tmp: str, workers: int) -> tuple[Any, Any, InProcessTransport]:
    store = open_store(f"sqlite:///{tmp}/bench.sqlite", SystemClock())
    transport = InProcessTransport(workers_per_server=workers)
    engine = start_engine(store, transport, registry=Registry.with_extra(
        {"Bench::Building": Building}), work_slots=1,
        options=EngineOptions(max_resources_per_stack=UNLIMITED))
    return store, engine, transport


def run_suspend(n: int, wait: float, workers: int, mode: str, timeout: float,
                per_stack: int) -> dict[str, Any]:
    """N resources in stacks of ``per_stack``, every stack suspended at once."""
    with tempfile.TemporaryDirectory() as tmp:
        store, engine, transport = bench_engine(tmp, workers)
        most = held = samples = 0
        try:
            sids = [engine.service.create_stack(
                CTXT, f"susp-{i}", template(per_stack, 0, mode == "asks", wait), {}, {},
                {"disable_rollback": True})["stack_id"] for i in range(max(n // per_stack, 1))]
            settle(store, sids, timeout, time.perf_counter())
            Building.checks = 0
            cpu, start = time.process_time(), time.perf_counter()
            for sid in sids:
                engine.service.stack_suspend(CTXT, {"stack_id": sid})
            while (time.perf_counter() - start < timeout
                   and any(store.get_stack(sid).status == "IN_PROGRESS" for sid in sids)):
                waiting = sum(1 for sid in sids for r in store.list_resources(sid)
                              if (r.action, r.status) == ("SUSPEND", "IN_PROGRESS"))
                most = max(most, waiting)
                if waiting:
                    samples += 1
                    held += outstanding(transport)
                time.sleep(0.05)
            status = settle(store, sids, timeout, start)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        finally:
            engine.stop()
            transport.stop()
    return {"case": f"suspend-{mode}", "n": n, "wait": wait, "workers": workers,
            "status": status, "seconds": round(seconds, 2),
            "checks_per_resource": round(Building.checks / n, 1), "cpu_seconds": round(cpu, 2),
            "most_waiting_at_once": most,
            "pool_messages_while_waiting": round(held / samples, 1) if samples else 0}


def run_hooks(n: int, wait: float, workers: int, timeout: float) -> dict[str, Any]:
    """N resources paused at pre-create, cleared after W s (0 to all paused: never were)."""
    with tempfile.TemporaryDirectory() as tmp:
        store, engine, transport = bench_engine(tmp, workers)
        most = held = samples = 0
        all_paused = 0.0
        env = {"resource_registry": {"resources": {"*": {"hooks": "pre-create"}}}}
        try:
            cpu, start = time.process_time(), time.perf_counter()
            sid = engine.service.create_stack(CTXT, f"hooks-{n}", template(n, 0, False), env,
                                              {}, {"disable_rollback": True})["stack_id"]
            while time.perf_counter() - start < wait:
                paused = len(store.paused_at_hooks(sid))
                most = max(most, paused)
                if paused:
                    samples += 1
                    held += outstanding(transport)
                if paused == n and not all_paused:
                    all_paused = time.perf_counter() - start
                time.sleep(0.05)
            while (time.perf_counter() - start < timeout
                   and store.get_stack(sid).status == "IN_PROGRESS"):
                stack = store.get_stack(sid)
                hooked = store.paused_at_hooks(sid)
                for row in store.list_resources(sid):
                    if row.id in hooked:
                        clear_hook(engine.deps, stack, row, "pre-create")
                time.sleep(0.05)
            status = settle(store, [sid], timeout, start)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        finally:
            engine.stop()
            transport.stop()
    return {"case": "hooks", "n": n, "wait": wait, "workers": workers, "status": status,
            "seconds": round(seconds, 2), "seconds_to_all_paused": round(all_paused, 2),
            "cpu_seconds": round(cpu, 2), "most_waiting_at_once": most,
            "pool_messages_while_waiting": round(held / samples, 1) if samples else 0}


def run_case(n: int, wait: float, workers: int, mode: str, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        store, engine, transport = bench_engine(tmp, workers)
        Building.checks = 0
        busy = samples = 0
        try:
            cpu, start = time.process_time(), time.perf_counter()
            sid = engine.service.create_stack(CTXT, f"wait-{n}", template(n, wait,
                                                                          mode == "asks"),
                                              {}, {}, {"disable_rollback": True})["stack_id"]
            status = "TIMEOUT"
            while time.perf_counter() - start < timeout:
                stack = store.get_stack(sid)
                if stack.status != "IN_PROGRESS":
                    status = f"{stack.action}_{stack.status}"
                    break
                elapsed = time.perf_counter() - start
                if 0.5 < elapsed < wait - 0.5:  # everything handled, nothing built yet
                    samples += 1
                    busy += not transport.idle()
                time.sleep(0.05)
            seconds = time.perf_counter() - start
            cpu = time.process_time() - cpu
        finally:
            engine.stop()
            transport.stop()
    return {"mode": mode, "n": n, "wait": wait, "workers": workers, "status": status,
            "seconds": round(seconds, 2), "checks_per_resource": round(Building.checks / n, 1),
            "cpu_seconds": round(cpu, 2),
            "pool_busy_while_waiting": f"{busy}/{samples}"}


def print_table(rows: list[dict[str, Any]]) -> None:
    headers = list(rows[0])
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in headers]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    for r in rows:
        print("  ".join(str(r[h]).rjust(w) for h, w in zip(headers, widths, strict=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200,1000")
    parser.add_argument("--wait", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--modes", default="polled,asks")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--action", choices=("create", "suspend"), default="create")
    parser.add_argument("--per-stack", type=int, default=10)
    parser.add_argument("--hooks", action="store_true")
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.hooks:
        rows = [run_hooks(n, args.wait, args.workers, args.timeout) for n in sizes]
        expected = "CREATE_COMPLETE"
    elif args.action == "suspend":
        rows = [run_suspend(n, args.wait, args.workers, mode, args.timeout, args.per_stack)
                for mode in args.modes.split(",") for n in sizes]
        expected = "SUSPEND_COMPLETE"
    else:
        rows = [run_case(n, args.wait, args.workers, mode, args.timeout)
                for mode in args.modes.split(",") for n in sizes]
        expected = "CREATE_COMPLETE"
    print_table(rows)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["status"] == expected for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
