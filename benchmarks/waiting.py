"""Create a wide stack of N resources that each take W seconds, on T worker threads.

Each resource stands for a cloud object that builds: its create is done W
seconds after its handle_create, and only a check can tell. ``polled``
answers Heat's plain False until then (the engine's back-off decides when to
ask again); ``asks`` answers CheckAgain(after=<time left>). Prints, per case,
the seconds to CREATE_COMPLETE, the checks made per resource, the engine's
CPU time, and how often the worker pool was seen busy while the resources
waited (sampled every 50 ms): waiting should hold no worker.

    python benchmarks/waiting.py [--sizes 200,1000] [--wait 5] [--workers 4]
        [--modes polled,asks] [--json PATH]
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
                         "asks": Schema(Schema.BOOLEAN, "Answer CheckAgain.", default=False)}
    checks = 0
    lock = threading.Lock()

    def handle_create(self) -> float:
        self.resource_id_set(self.physical_resource_name())
        return time.monotonic() + float(self.properties["wait"])

    def check_create_complete(self, ready_at: float) -> Any:
        with Building.lock:
            Building.checks += 1
        left = ready_at - time.monotonic()
        if left <= 0:
            return True
        return CheckAgain(after=left) if self.properties["asks"] and CheckAgain else False


def template(n: int, wait: float, asks: bool) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": {
        f"b{i}": {"type": "Bench::Building", "properties": {"wait": wait, "asks": asks}}
        for i in range(n)}}


def run_case(n: int, wait: float, workers: int, mode: str, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.sqlite"
        store = open_store(url, SystemClock())
        transport = InProcessTransport(workers_per_server=workers)
        engine = start_engine(store, transport, registry=Registry.with_extra(
            {"Bench::Building": Building}), work_slots=1,
            options=EngineOptions(max_resources_per_stack=UNLIMITED))
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
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    rows = [run_case(n, args.wait, args.workers, mode, args.timeout)
            for mode in args.modes.split(",") for n in (int(s) for s in args.sizes.split(","))]
    print_table(rows)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["status"] == "CREATE_COMPLETE" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
