"""The web view at size: how fast a big stack's graph is drawn, and how closely it follows
an update, in Debian's Chromium (Playwright) against a fresh ``hotplate serve``.

For each shape and size (benchmarks/converge.py's shapes, wide, chain and fanin, of
OS::Heat::TestResource, whose ``value`` an update changes in place), a stack is created
and waited for through python-heatclient, on a fresh ``hotplate serve`` (token auth,
SQLite in a temporary directory). Then, ``--repeat``
times, a fresh browser profile signs in through the login form and loads the stack's page
(``/ui#/stacks/<name>/<id>``, a navigation of its own), and the page's own performance
marks are read:

- ``graph_drawn_ms``: the ``graph-drawn`` mark, milliseconds after navigation start (the
  target: under 1,000 ms at 1,000 resources);
- ``dom_ready_ms``: the page's DOMContentLoaded (its script parsed and run);
- ``list_answered_ms``: when the resource list's answer had arrived, and
  ``list_server_ms`` how long the server took to start answering it;
- ``layout_ms``: the ``graph-layout`` measure (dagre) of that first drawing;
- ``nodes``: the graph's node elements then.

Then, in the last page, an update that changes every resource: ``update_api_s`` is when a
poll of the API (every 50 ms) first saw UPDATE_COMPLETE, ``update_page_s`` when the page
first showed every node UPDATE_COMPLETE (checked every 50 ms), both from the request, and
``layouts_during_update`` the layouts the page made meanwhile (a state change never lays
out again, nor does a re-read of the list that finds the same resources and edges).
Meanwhile a thread polls the events API every 50 ms: ``shown_lag_*_ms`` is, per resource,
when the page's node turned UPDATE_COMPLETE less when that event was first seen through
the API (both by the machine's wall clock; the poll's own delay, up to 50 ms, makes the
lag look that much smaller). Events carry whole seconds, too coarse to time against.

    python benchmarks/ui_graph.py [--sizes 1000] [--shapes wide,chain,fanin] [--repeat 3]
        [--json PATH]

Exits 1 if a stack did not reach its status, 2 without /usr/bin/chromium or Playwright.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from benchmarks.converge import build_template as none_template
from benchmarks.converge import print_table
from hotplate.api.background import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
DRAW_COLUMNS = ("shape", "n", "run", "graph_drawn_ms", "dom_ready_ms", "list_answered_ms",
                "list_server_ms", "layout_ms", "nodes")
SUMMARY_COLUMNS = ("shape", "n", "graph_drawn_median_ms", "graph_drawn_max_ms",
                   "layout_median_ms", "update_api_s", "update_page_s",
                   "layouts_during_update", "shown_lag_median_ms", "shown_lag_p95_ms",
                   "shown_lag_max_ms")


def build_template(shape: str, n: int, generation: int) -> dict[str, Any]:
    """converge.py's shape, of TestResources (an OS::Heat::None ignores a changed
    property, so its update would send no resource event)."""
    tmpl = none_template(shape, n, generation)
    for res in tmpl["resources"].values():
        res["type"] = "OS::Heat::TestResource"
        res["properties"] = {"value": f"gen-{generation}"}
    return tmpl


@contextlib.contextmanager
def token_server() -> Iterator[tuple[str, str]]:
    """A ``hotplate serve`` with token auth and no stack limit; answers (base URL, admin
    token) and stops it (SIGTERM) afterwards."""
    with tempfile.TemporaryDirectory(prefix="hotplate-ui-bench-") as tmp:
        conf = Path(tmp) / "hotplate.conf"
        conf.write_text("[DEFAULT]\nmax_resources_per_stack = -1\n")
        data = Path(tmp) / "var"
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
        common = ["--data-dir", str(data), "--config-file", str(conf)]
        hotplate = [sys.executable, "-m", "hotplate.cli.main"]
        token = subprocess.run(
            [*hotplate, "token", "create", "--project", "admin", "--role", "admin", *common],
            capture_output=True, text=True, check=True, env=env).stdout.split()[-1]
        port = free_port()
        with (Path(tmp) / "serve.log").open("wb") as log:
            proc = subprocess.Popen(
                [*hotplate, "serve", "--port", str(port), "--cfn-port", "0", *common],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{base}/ui/session", timeout=2)
                    break
                except httpx.TransportError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("hotplate serve did not start: "
                                         + (Path(tmp) / "serve.log").read_text()[-2000:])
                    time.sleep(0.1)
            yield base, token
        finally:
            proc.terminate()
            proc.wait(30)


def wait_status(hc: Any, stack_id: str, wanted: str, timeout: float) -> float:
    """Poll every 50 ms until the stack leaves IN_PROGRESS; answers the time it was seen."""
    deadline = time.monotonic() + timeout
    while True:
        status = hc.stacks.get(stack_id).stack_status
        if not status.endswith("_IN_PROGRESS"):
            if status != wanted:
                raise SystemExit(f"stack {stack_id}: {status}, not {wanted}")
            return time.monotonic()
        if time.monotonic() > deadline:
            raise SystemExit(f"stack {stack_id}: still {status} after {timeout} s")
        time.sleep(0.05)


def open_graph(browser: Any, base: str, token: str, name: str, stack_id: str,
               n: int) -> tuple[Any, dict]:
    """A fresh profile, signed in, loads the stack's page; answers the page and its
    measurements."""
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    page = context.new_page()
    page.goto(f"{base}/ui#/login")
    page.get_by_label("Token", exact=True).fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Stacks").wait_for()
    page.goto(f"{base}/ui#/stacks/{name}/{stack_id}")
    page.reload()  # the stack page's own navigation, which the marks count from
    page.wait_for_function("() => performance.getEntriesByName('graph-drawn').length > 0",
                           timeout=60_000)
    found = page.evaluate(
        """() => {
             const drawn = performance.getEntriesByName('graph-drawn')[0].startTime;
             const layouts = performance.getEntriesByName('graph-layout')
               .filter(m => m.startTime <= drawn);
             const listed = performance.getEntriesByType('resource')
               .filter(r => r.name.includes('/resources?'));
             const nav = performance.getEntriesByType('navigation')[0];
             return {
               drawn, layout: layouts[layouts.length - 1].duration,
               dom_ready: nav.domContentLoadedEventEnd,
               listed: listed.length ? listed[0].responseEnd : null,
               list_wait: listed.length ? listed[0].responseStart - listed[0].requestStart : null,
               nodes: document.querySelectorAll('g.node').length };
           }""")
    if found["nodes"] < n:
        raise SystemExit(f"{name}: {found['nodes']} nodes drawn, not {n}")
    return page, found


class EventWatch:
    """Polls the stack's events through the API every 50 ms (a thread) and notes when each
    resource's ``UPDATE_COMPLETE`` event was first seen (wall clock, as the page's)."""

    def __init__(self, base: str, token: str, name: str, stack_id: str) -> None:
        self.url = f"{base}/v1/admin/stacks/{name}/{stack_id}/events"
        self.client = httpx.Client(headers={"X-Auth-Token": token}, timeout=30)
        self.seen: dict[str, float] = {}
        self.marker = self._page(None)[-1]["id"]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _page(self, marker: str | None) -> list[dict[str, Any]]:
        params = {"sort_dir": "asc", "limit": "1000", **({"marker": marker} if marker else {})}
        events: list[dict[str, Any]] = []
        while True:
            batch = self.client.get(self.url, params=params).json()["events"]
            events.extend(batch)
            if len(batch) < 1000:
                return events
            params["marker"] = batch[-1]["id"]

    def _run(self) -> None:
        while not self.stop.is_set():
            found = self._page(self.marker)
            now = time.time()
            for event in found:
                if event["resource_status"] == "UPDATE_COMPLETE":
                    self.seen.setdefault(event["resource_name"], now)
            if found:
                self.marker = found[-1]["id"]
            time.sleep(0.05)

    def __enter__(self) -> EventWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)
        self.client.close()


SHOWN_RECORDER = """() => {
  window.__shown = {};
  const note = (el) => {
    const name = el.getAttribute("data-resource");
    if (el.classList.contains("state-UPDATE_COMPLETE") && !(name in window.__shown)) {
      window.__shown[name] = Date.now();
    }
  };
  new MutationObserver((ms) => ms.forEach((m) => m.target.matches("g.node") && note(m.target)))
    .observe(document.querySelector("svg.graph"),
             {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


def follow_update(page: Any, hc: Any, watch: EventWatch, shape: str, n: int,
                  stack_id: str) -> dict[str, Any]:
    layouts_before = page.evaluate("() => performance.getEntriesByName('graph-layout').length")
    page.wait_for_function("() => document.querySelector('.live')?.dataset.live === 'live'",
                           timeout=30_000)
    page.evaluate(SHOWN_RECORDER)
    with watch:
        sent = time.monotonic()
        hc.stacks.update(stack_id, template=build_template(shape, n, 1))
        api_done = wait_status(hc, stack_id, "UPDATE_COMPLETE", timeout=600) - sent
        while page.evaluate(
                "() => document.querySelectorAll('g.node.state-UPDATE_COMPLETE').length") < n:
            if time.monotonic() - sent > 600:
                raise SystemExit("the page never showed every node UPDATE_COMPLETE")
            page.wait_for_timeout(50)
        page_done = time.monotonic() - sent
        time.sleep(0.2)  # the watch's last poll
    layouts = page.evaluate("() => performance.getEntriesByName('graph-layout').length")
    shown = page.evaluate("() => window.__shown")
    lags = sorted(shown[name] / 1000 - seen for name, seen in watch.seen.items()
                  if name in shown)
    if not lags:
        raise SystemExit("no resource's update was seen by both the API and the page")
    return {"update_api_s": round(api_done, 2), "update_page_s": round(page_done, 2),
            "layouts_during_update": layouts - layouts_before,
            "shown_lag_median_ms": round(1000 * statistics.median(lags)),
            "shown_lag_p95_ms": round(1000 * lags[int(0.95 * (len(lags) - 1))]),
            "shown_lag_max_ms": round(1000 * lags[-1])}


def measure(browser: Any, shape: str, n: int, repeat: int) -> tuple[list[dict], dict]:
    with token_server() as (base, token):
        from heatclient.client import Client

        hc = Client("1", endpoint=f"{base}/v1/admin", token=token)
        name = f"ui-{shape}-{n}"
        stack_id = hc.stacks.create(stack_name=name, template=build_template(shape, n, 0))[
            "stack"]["id"]
        wait_status(hc, stack_id, "CREATE_COMPLETE", timeout=600)
        rows: list[dict[str, Any]] = []
        page = None
        for run in range(1, repeat + 1):
            if page is not None:
                page.context.close()
            page, found = open_graph(browser, base, token, name, stack_id, n)
            rows.append({"shape": shape, "n": n, "run": run,
                         "graph_drawn_ms": round(found["drawn"]),
                         "dom_ready_ms": round(found["dom_ready"]),
                         "list_answered_ms": round(found["listed"] or 0),
                         "list_server_ms": round(found["list_wait"] or 0),
                         "layout_ms": round(found["layout"]), "nodes": found["nodes"]})
        assert page is not None
        update = follow_update(page, hc, EventWatch(base, token, name, stack_id), shape, n,
                               stack_id)
        page.context.close()
    drawn = [r["graph_drawn_ms"] for r in rows]
    summary = {"shape": shape, "n": n,
               "graph_drawn_median_ms": round(statistics.median(drawn)),
               "graph_drawn_max_ms": max(drawn),
               "layout_median_ms": round(statistics.median(r["layout_ms"] for r in rows)),
               **update}
    return rows, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--shapes", default="wide,chain,fanin")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"error: {CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
        return 2
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("error: Playwright is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    draws: list[dict[str, Any]] = []
    summaries: list[dict[str, Any]] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for n in (int(s) for s in args.sizes.split(",")):
                for shape in args.shapes.split(","):
                    rows, summary = measure(browser, shape, n, args.repeat)
                    draws.extend(rows)
                    summaries.append(summary)
        finally:
            browser.close()
    print_table(draws, DRAW_COLUMNS)
    print()
    print_table(summaries, SUMMARY_COLUMNS)
    result = {"draws": draws, "summary": summaries}
    print(json.dumps(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
