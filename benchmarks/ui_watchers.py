"""What pages following a stack's live graph cost the server: the web view's stream.

A fresh ``hotplate serve --noauth`` (benchmarks/served.py) runs a traversal of
``--n`` OS::Heat::TestResource, each taking ``--wait-secs`` seconds, once with
nobody watching and once with ``--pages`` clients that make the web view's own
requests (``Page``: the stack, its resources and events on load, the stream
with the session cookie, the reload as the action ends), ``--rounds`` times each,
interleaved. ``--action update`` (the default): the stack is created first and
the pages open on it, then an update of every resource is measured, so the
pages watch the whole traversal; ``--action create``: the pages open as the
create starts, so their loads are measured too. The server sees a page only
through its requests, so plain HTTP clients stand for browsers here (the
browser's own cost is the page's, not the server's).

For each run, from the request until the stack's action ended and every page
reloaded its graph: the server's CPU seconds, those of its serving threads (all
but the traversal's workers and its parked-action thread, named from ``py-spy
dump``: the event loop, the engine's RPC threads, the thread pool), of its event
loop alone, and the pages' own CPU (in this process, on the same cores). The
whole server's CPU moves with the traversal's own from run to run by about as much
as the pages cost; the serving threads' does not, so their difference between
the medians is the pages' cost, as a share of one core over the traversal. Each
page also keeps the ids of the events it got, so a stream that fell behind or
dropped events shows.

    python benchmarks/ui_watchers.py [--n 1000] [--wait-secs 1] [--pages 20]
        [--action update|create] [--workers 64] [--rounds 3] [--json PATH]

Exits 1 if an action did not end COMPLETE or a page missed events.
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
TRAVERSAL_THREADS = ("hotplate-engine_worker", "hotplate-parked")
"""The threads that run the traversal itself (its resources' checks and waits); every
other thread of the server serves requests, streams and the engine's calls."""


def template(n: int, wait_secs: float, value: str = "") -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": {
        f"r{i}": {"type": "OS::Heat::TestResource",
                  "properties": {"value": f"{i}{value}", "wait_secs": wait_secs}}
        for i in range(n)}}


NESTED_DEPTH = 5
"""As the page reads a stack: its nested stacks too (ui/src/stack.jsx)."""
EVENT_PAGE = 1000


class Page:
    """One page following the stack's event stream in a thread of its own.

    It makes the requests the web view's stack page makes (ui/src/stack.jsx):
    on load the stack, its resources and its events so far (nested_depth=5,
    1,000 events a request), then the stream; once the stream is open the
    events since the first read; and, as the stack's status reaches an end,
    the resources again (the page redraws the graph from them).
    """

    def __init__(self, base: str, stack_name: str, stack_id: str) -> None:
        self._client = httpx.Client(base_url=base, timeout=httpx.Timeout(30, read=60))
        self._client.get("/ui/session").raise_for_status()  # the session cookie
        self._path = f"/v1/admin/stacks/{stack_name}/{stack_id}"
        self._url = f"/ui/stream/admin/stacks/{stack_id}?nested_depth={NESTED_DEPTH}"
        self._client.get(self._path).raise_for_status()
        self._resources()
        self.seen: set[str] = set()
        """The ids of every event the page got, read or streamed (it keeps each once)."""
        self._last: str | None = None
        self._read_events()
        if self._last:
            self._url += f"&last_event_id={self._last}"
        self.batches = 0
        self.resets = 0
        self.reloads = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)

    def _resources(self, streaming: bool = False) -> None:
        """As the page: from the stream's shared listing while the stream is open."""
        path = self._url.split("?")[0] if streaming else self._path
        self._client.get(f"{path}/resources",
                         params={"nested_depth": NESTED_DEPTH}).raise_for_status()

    def _read_events(self) -> None:
        """The events after the last one read, a page of 1,000 at a time."""
        while True:
            params: dict[str, Any] = {"nested_depth": NESTED_DEPTH, "sort_dir": "asc",
                                      "limit": EVENT_PAGE}
            if self._last:
                params["marker"] = self._last
            answer = self._client.get(f"{self._path}/events", params=params)
            answer.raise_for_status()
            page = answer.json()["events"]
            self.seen.update(event["id"] for event in page)
            if page:
                self._last = page[-1]["id"]
            if len(page) < EVENT_PAGE:
                return

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
            self._read_events()  # as the page's ``onopen``: what came since the first read
            for line in answer.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind == "events":
                    self.seen.update(event["id"] for event in orjson.loads(line[5:]))
                    self.batches += 1
                elif line.startswith("data:") and kind == "reset":
                    self.resets += 1
                elif line.startswith("data:") and kind == "stack":
                    status = orjson.loads(line[5:]).get("stack_status", "")
                    if not status.endswith("IN_PROGRESS"):
                        self._resources(streaming=True)  # the page's reload as the action ends
                        self.reloads += 1

    def stop(self) -> None:
        self._stop.set()
        self._client.close()
        self._thread.join(5)


def wait_for_end(api: httpx.Client, path: str, timeout: float) -> str:
    """Poll the stack until its action ends; its status."""
    started = time.monotonic()
    status = "IN_PROGRESS"
    while status.endswith("IN_PROGRESS") and time.monotonic() - started < timeout:
        time.sleep(POLL_SECS)
        status = api.get(path).json()["stack"]["stack_status"]
    return status


def run_once(n: int, wait_secs: float, pages: int, workers: int, timeout: float,
             action: str) -> dict[str, Any]:
    """One traversal with ``pages`` watching it: the server's CPU over it.

    ``update``: the stack is created first (resources that take no time) and
    the pages open on it; what is measured is an update of every resource,
    each taking ``wait_secs``: pages watching a traversal. ``create``: the
    pages open as the create starts, so their loads fall in the measure too.
    """
    with Served(workers=workers) as server:
        api = httpx.Client(base_url=server.endpoint, timeout=60,
                           headers={"X-Auth-Token": "noauth"})
        name = f"watched-{pages}"
        watching: list[Page] = []
        if action == "update":
            made = api.post("/stacks", json={"stack_name": name,
                                             "template": template(n, 0.0)})
            made.raise_for_status()
            stack_id = made.json()["stack"]["id"]
            path = f"/stacks/{name}/{stack_id}"
            if wait_for_end(api, path, timeout) != "CREATE_COMPLETE":
                raise SystemExit(f"the stack to watch was not created\n{server.log_tail()}")
            watching = [Page(server.base, name, stack_id).start() for _ in range(pages)]
            time.sleep(1.0)  # every stream open
        reloads_before = max((page.reloads for page in watching), default=0)
        cpu_before, loop_before = server.cpu_seconds(), server.loop_cpu_seconds()
        threads_before = server.thread_cpu_seconds()
        client_before = time.process_time()
        started = time.monotonic()
        if action == "update":
            api.put(path, json={"template": template(n, wait_secs, "updated")}
                    ).raise_for_status()
        else:
            made = api.post("/stacks", json={"stack_name": name,
                                             "template": template(n, wait_secs)})
            made.raise_for_status()
            stack_id = made.json()["stack"]["id"]
            path = f"/stacks/{name}/{stack_id}"
            watching = [Page(server.base, name, stack_id).start() for _ in range(pages)]
        status = wait_for_end(api, path, timeout)
        seconds = time.monotonic() - started
        reloaded_by = time.monotonic() + 10
        while (any(page.reloads < reloads_before + 1 for page in watching)
               and time.monotonic() < reloaded_by):
            time.sleep(0.05)  # each page's reload of the graph as the action ends
        cpu = server.cpu_seconds() - cpu_before
        loop_cpu = server.loop_cpu_seconds() - loop_before
        threads_after = server.thread_cpu_seconds()
        names = server.thread_names()
        serving_cpu = sum(spent - threads_before.get(tid, 0.0)
                          for tid, spent in threads_after.items()
                          if not names.get(tid, "").startswith(TRAVERSAL_THREADS))
        client_cpu = time.process_time() - client_before
        time.sleep(1.0)  # the last batch on its way to the pages
        for page in watching:
            page.stop()
        expected = len(api.get(f"{path}/events", params={"limit": 100000}).json()["events"])
        api.close()
    received = [len(page.seen) for page in watching]
    return {"pages": pages, "status": status, "seconds": round(seconds, 2),
            "server_cpu_s": round(cpu, 2), "loop_cpu_s": round(loop_cpu, 2),
            "serving_cpu_s": round(serving_cpu, 2),
            "pages_cpu_s": round(client_cpu, 2), "events": expected,
            "events_per_page_min": min(received, default=expected),
            "batches_per_page": round(sum(p.batches for p in watching) / pages, 1)
            if pages else 0,
            "resets": sum(page.resets for page in watching),
            "reloads": sum(page.reloads for page in watching)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--wait-secs", type=float, default=1.0)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--rounds", type=int, default=3,
                        help="creates of each kind, interleaved; the medians are compared")
    parser.add_argument("--action", choices=("update", "create"), default="update",
                        help="update: the pages watch an update of a stack they opened "
                             "before it; create: they open as the create starts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    runs: list[dict[str, Any]] = []
    for round_ in range(args.rounds):  # interleaved, so a busy spell hits both kinds
        order = (0, args.pages) if round_ % 2 == 0 else (args.pages, 0)
        runs += [run_once(args.n, args.wait_secs, pages, args.workers, args.timeout,
                          args.action) for pages in order]
    alone = [run for run in runs if run["pages"] == 0]
    watched = [run for run in runs if run["pages"] == args.pages]
    def more(key: str) -> float:
        return (statistics.median(r[key] for r in watched)
                - statistics.median(r[key] for r in alone))

    extra, extra_loop, extra_serving = (more("server_cpu_s"), more("loop_cpu_s"),
                                        more("serving_cpu_s"))
    seconds = statistics.median(r["seconds"] for r in watched)

    def share(cpu: float) -> float:
        return 100.0 * cpu / seconds if seconds else 0.0

    print("| pages | status | s | server CPU s | serving threads | of which event loop "
          "| pages' CPU s | events | least a page got | batches/page |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        print(f"| {run['pages']} | {run['status']} | {run['seconds']} | {run['server_cpu_s']} "
              f"| {run['serving_cpu_s']} | {run['loop_cpu_s']} | {run['pages_cpu_s']} "
              f"| {run['events']} | {run['events_per_page_min']} "
              f"| {run['batches_per_page']} |")
    print(f"\n{args.pages} pages watching the {args.action} (medians of {args.rounds}, "
          f"over {seconds} s): the serving threads {extra_serving:.2f} CPU s more, "
          f"{share(extra_serving):.1f}% of one core (the event loop {extra_loop:.2f} s, "
          f"{share(extra_loop):.1f}%); the whole server {extra:.2f} s, "
          f"{share(extra):.1f}% (it includes the traversal's own variation)")
    if args.json:
        args.json.write_text(json.dumps({
            "action": args.action, "runs": runs, "seconds": seconds,
            "extra_cpu_s": round(extra, 2), "percent_of_one_core": round(share(extra), 2),
            "extra_serving_cpu_s": round(extra_serving, 2),
            "serving_percent_of_one_core": round(share(extra_serving), 2),
            "extra_loop_cpu_s": round(extra_loop, 2),
            "loop_percent_of_one_core": round(share(extra_loop), 2)}, indent=2))
    complete = all(run["status"] == f"{args.action.upper()}_COMPLETE" for run in runs)
    whole = all(r["events_per_page_min"] == r["events"] and not r["resets"] for r in watched)
    return 0 if complete and whole else 1


if __name__ == "__main__":
    sys.exit(main())
