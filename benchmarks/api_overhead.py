"""Time the API's reads of a large stack: stack show and resource list.

Builds a stack of N OS::Heat::None resources on the embedded engine (SQLite),
serves the API with uvicorn on a loopback port, then times GET requests over
HTTP (httpx, keep-alive). Prints a table and optionally writes JSON:

    python benchmarks/api_overhead.py [--n 1000] [--repeat 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.app import embedded
from hotplate.engine.options import UNLIMITED, EngineOptions


def template(n: int) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16",
            "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(n)}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        engine, transport = embedded(f"sqlite:///{tmp}/api.sqlite",
                                     options=EngineOptions(max_resources_per_stack=UNLIMITED))
        app = create_app(EngineRpc(transport, host=engine.deps.host))
        rows = []
        try:
            with BackgroundServer(app) as base, httpx.Client(base_url=f"{base}/v1/admin",
                                                             timeout=60) as http:
                created = http.post("/stacks", json={"stack_name": "big",
                                                     "template": template(args.n)})
                created.raise_for_status()
                stack_id = created.json()["stack"]["id"]
                transport.join(timeout=600)
                path = f"/stacks/big/{stack_id}"
                for label, url in (("stack show", path), ("resource list", f"{path}/resources"),
                                   ("event list (limit 100)", f"{path}/events?limit=100")):
                    times = []
                    for _ in range(args.repeat):
                        start = time.perf_counter()
                        http.get(url).raise_for_status()
                        times.append((time.perf_counter() - start) * 1000)
                    rows.append({"request": label, "n": args.n,
                                 "median_ms": round(statistics.median(times), 1),
                                 "max_ms": round(max(times), 1)})
        finally:
            engine.stop()
            transport.stop()
    width = max(len(r["request"]) for r in rows)
    print(f"{'request'.ljust(width)}  {'n':>6}  {'median ms':>9}  {'max ms':>7}")
    for r in rows:
        print(f"{r['request'].ljust(width)}  {r['n']:>6}  {r['median_ms']:>9}  {r['max_ms']:>7}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
