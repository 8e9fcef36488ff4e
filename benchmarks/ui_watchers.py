"""What pages following a stack's live graph cost the server: the web view's stream.

A fresh ``hotplate serve --noauth`` (benchmarks/served.py) creates a stack of
``--n`` OS::Heat::TestResource, each taking ``--wait-secs`` seconds, twice:
once with nobody watching, once with ``--pages`` clients following the
stack's event stream (``GET /ui/stream/...``, as the page's EventSource
does, with the session cookie ``GET /ui/session`` set), ``--rounds`` times each,
interleaved. The server sees a
page only through that stream, so plain HTTP clients stand for browsers here
(the browser's own cost is the page's, not the server's). For each run: the
server's CPU seconds over the create (from the request until the stack is
COMPLETE), and the difference the pages make, as a percentage of one core
over the create's wall time, from the medians. The server's whole CPU moves with
the create's own (the engine runs in it) by about as much as the pages cost, so the
table also gives its main thread's, the event loop that serves every request and
stream (the watcher's engine calls run on worker threads: one watcher per stack
whatever the number of pages), and the pages' own CPU (they run in this process, on
the same cores). Each page also counts the events it received, so
a stream that fell behind or dropped events shows.

    python benchmarks/ui_watchers.py [--n 1000] [--wait-secs 1] [--pages 20]
        [--workers 64] [--rounds 3] [--json PATH]

Exits 1 if a create did not end COMPLETE or a page missed events.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import orjson

from benchmarks.served import Served

POLL_SECS = 0.5


def template(n: int, wait_secs: float) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": {
        f"r{i}": {"type": "OS::Heat::TestResource",
                  "properties": {"value": str(i), "wait_secs": wait_secs}}
        for i in range(n)}}


class Page:
    """One page following the stack's event stream in a thread of its own."""

    def __init__(self, base: str, stack_name: str, stack_id: str) -> None:
        self._client = httpx.Client(base_url=base, timeout=httpx.Timeout(30, read=60))
        self._client.get("/ui/session").raise_for_status()  # the session cookie
        # As the page does: the events so far from the events API, the rest streamed.
        read = self._client.get(f"/v1/admin/stacks/{stack_name}/{stack_id}/events",
                                params={"sort_dir": "asc", "limit": 100000})
        read.raise_for_status()
        past = read.json()["events"]
        self.read_before = len(past)
        self._url = f"/ui/stream/admin/stacks/{stack_id}"
        if past:
            self._url += f"?last_event_id={past[-1]['id']}"
        self.events = 0
        self.batches = 0
        self.resets = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)

    def start(self) -> Page:
        self._thread.start()
        return self

    def _follow(self) -> None:
        try:
            self._read()
        except httpx.HTTPError:
            if not self._stop.is_set():  # closed by ``stop``: the end, not a failure
                raise

    def _read(self) -> None:
        kind = ""
        with self._client.stream("GET", self._url) as answer:
            answer.raise_for_status()
            for line in answer.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind == "events":
                    self.events += len(orjson.loads(line[5:]))
                    self.batches += 1
                elif line.startswith("data:") and kind == "reset":
                    self.resets += 1

    def stop(self) -> None:
        self._stop.set()
        self._client.close()
        self._thread.join(5)


def create_once(n: int, wait_secs: float, pages: int, workers: int,
                timeout: float) -> dict[str, Any]:
    with Served(workers=workers) as server:
        api = httpx.Client(base_url=server.endpoint, timeout=60,
                           headers={"X-Auth-Token": "noauth"})
        name = f"watched-{pages}"
        cpu_before, loop_before = server.cpu_seconds(), server.loop_cpu_seconds()
        client_before = time.process_time()
        started = time.monotonic()
        made = api.post("/stacks", json={"stack_name": name,
                                         "template": template(n, wait_secs)})
        made.raise_for_status()
        stack_id = made.json()["stack"]["id"]
        watching = [Page(server.base, name, stack_id).start() for _ in range(pages)]
        status = "CREATE_IN_PROGRESS"
        while status.endswith("IN_PROGRESS") and time.monotonic() - started < timeout:
            time.sleep(POLL_SECS)
            status = api.get(f"/stacks/{name}/{stack_id}").json()["stack"]["stack_status"]
        seconds = time.monotonic() - started
        cpu = server.cpu_seconds() - cpu_before
        loop_cpu = server.loop_cpu_seconds() - loop_before
        client_cpu = time.process_time() - client_before
        time.sleep(1.0)  # the last batch on its way to the pages
        for page in watching:
            page.stop()
        expected = len(api.get(f"/stacks/{name}/{stack_id}/events",
                               params={"limit": 100000}).json()["events"])
        api.close()
    received = [page.read_before + page.events for page in watching]
    return {"pages": pages, "status": status, "seconds": round(seconds, 2),
            "server_cpu_s": round(cpu, 2), "loop_cpu_s": round(loop_cpu, 2),
            "pages_cpu_s": round(client_cpu, 2), "events": expected,
            "events_per_page_min": min(received, default=expected),
            "batches_per_page": round(sum(p.batches for p in watching) / pages, 1)
            if pages else 0,
            "resets": sum(page.resets for page in watching)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--wait-secs", type=float, default=1.0)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--rounds", type=int, default=3,
                        help="creates of each kind, interleaved; the medians are compared")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    runs: list[dict[str, Any]] = []
    for round_ in range(args.rounds):  # interleaved, so a busy spell hits both kinds
        order = (0, args.pages) if round_ % 2 == 0 else (args.pages, 0)
        runs += [create_once(args.n, args.wait_secs, pages, args.workers, args.timeout)
                 for pages in order]
    alone = [run for run in runs if run["pages"] == 0]
    watched = [run for run in runs if run["pages"] == args.pages]
    def more(key: str) -> float:
        return (statistics.median(r[key] for r in watched)
                - statistics.median(r[key] for r in alone))

    extra, extra_loop = more("server_cpu_s"), more("loop_cpu_s")
    seconds = statistics.median(r["seconds"] for r in watched)
    share = 100.0 * extra / seconds if seconds else 0.0
    loop_share = 100.0 * extra_loop / seconds if seconds else 0.0
    print("| pages | status | s | server CPU s | of which event loop | pages' CPU s | events "
          "| least a page got | batches/page |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        print(f"| {run['pages']} | {run['status']} | {run['seconds']} | {run['server_cpu_s']} "
              f"| {run['loop_cpu_s']} | {run['pages_cpu_s']} | {run['events']} "
              f"| {run['events_per_page_min']} | {run['batches_per_page']} |")
    print(f"\n{args.pages} pages cost the server {extra:.2f} CPU s more (medians of "
          f"{args.rounds}) over {seconds} s: {share:.1f}% of one core; its event loop "
          f"{extra_loop:.2f} s more: {loop_share:.1f}%")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "extra_cpu_s": round(extra, 2),
                                         "percent_of_one_core": round(share, 2),
                                         "extra_loop_cpu_s": round(extra_loop, 2),
                                         "loop_percent_of_one_core": round(loop_share, 2)},
                                        indent=2))
    complete = all(run["status"] == "CREATE_COMPLETE" for run in runs)
    whole = all(r["events_per_page_min"] == r["events"] and not r["resets"] for r in watched)
    return 0 if complete and whole else 1


if __name__ == "__main__":
    sys.exit(main())
