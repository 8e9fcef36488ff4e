"""N DeployedServers, one SoftwareDeployment each, N real os-collect-config daemons polling.

``hotplate serve`` runs as a real process on SQLite; the agents are
os-collect-config from the agents' virtualenv (built once per machine, see
tests/agents/agents_venv.py), each a process of its own polling every
``--interval`` seconds through its ``cfn`` source and running ``hotplate
agent-hook``. They run in one network namespace joined to this host by a
veth pair where the machine allows (else on loopback). Their metadata
requests pass through a timing proxy here (the signatures hold: it keeps the
Host header), which gives hotplate's response times and the requests served
per second (until the stack completes and ``--steady`` seconds after); signals go
straight to hotplate.

The agents stand for N other machines. Here they share the cores with hotplate,
and 50 of them starting at once want both cores for seconds. By default they are
scheduled only when a core would otherwise be idle (SCHED_IDLE, through ``chrt``;
the hooks they run inherit it), as other machines would take none of hotplate's
CPU: the figure is then hotplate's answer time rather than the agents' start-up
queue. ``--agents-sched nice`` lowers their priority by ``--agents-nice`` (10)
instead, and ``--agents-nice 0`` lets them compete. Either way they stay in this
process's session: with the kernel's autogroup scheduling, an agent in a session
of its own weighs as much as hotplate whatever its priority, and fifty of them
held hotplate's first answers back by a second and more.

Targets (issue 11): every deployment COMPLETE within 120 s of the agents
starting, hotplate's p99 metadata response under 200 ms.

    python benchmarks/deployments.py [--servers 50] [--interval 2] [--steady 10]
        [--agents-sched idle|nice] [--agents-nice 10] [--json PATH]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.agents.agents_venv import ensure_venv
from tests.agents.collector import collector_conf, start_agent, stop
from tests.agents.hotplate_server import HOTPLATE, hotplate_serve
from tests.agents.netns import server_network

SCRIPT = ("#!/bin/sh\n"
          "printf 'configured %s' \"$deploy_server_id\" > \"$heat_outputs_path.result\"\n")


def template(n: int) -> str:
    lines = ["heat_template_version: 2018-08-31", "resources:",
             "  config:", "    type: OS::Heat::SoftwareConfig", "    properties:",
             "      group: script", "      outputs: [{name: result}]",
             f"      config: {json.dumps(SCRIPT)}"]
    for i in range(n):
        lines += [f"  server{i}:", "    type: OS::Heat::DeployedServer",
                  f"  deployment{i}:", "    type: OS::Heat::SoftwareDeployment",
                  "    properties:", "      config: {get_resource: config}",
                  f"      server: {{get_resource: server{i}}}"]
    return "\n".join(lines) + "\n"


class TimingProxy:
    """Forwards GETs to the CFN API, timing each answer."""

    def __init__(self, host: str, upstream: tuple[str, int]) -> None:
        self.times: list[tuple[float, float]] = []  # (when answered, seconds taken)
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                started = time.perf_counter()
                conn = http.client.HTTPConnection(*upstream, timeout=30)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("connection", "keep-alive")}
                conn.request("GET", self.path, headers=headers)
                answer = conn.getresponse()
                body = answer.read()
                elapsed = time.perf_counter() - started
                conn.close()
                with proxy.lock:
                    proxy.times.append((time.monotonic(), elapsed))
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # an agent that gave up waiting (its timeout) closed the socket

        self.server = Server((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}/v1/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _wait_resources(heat: Any, stack_id: str, prefix: str, n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        done = [r for r in heat.resources.list(stack_id)
                if r.resource_name.startswith(prefix) and r.resource_status == "CREATE_COMPLETE"]
        if len(done) == n:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(done)} of {n} {prefix} resources created")
        time.sleep(0.5)


def run(n: int, interval: float, timeout: float, steady: float,
        workdir: Path, nice: int = 10, idle: bool = True) -> dict[str, Any]:
    agents = ensure_venv(lambda line: print(line, file=sys.stderr))
    with server_network() as network, hotplate_serve(network.host_ip, workdir) as hotplate:
        heat = hotplate.heat()
        stack_id = heat.stacks.create(stack_name="deployments", template=template(n),
                                      timeout_mins=30)["stack"]["id"]
        _wait_resources(heat, stack_id, "server", n, 300)
        cfn_host, cfn_port = hotplate.cfn_url.split("//")[1].split("/")[0].rsplit(":", 1)
        proxy = TimingProxy(network.host_ip, (cfn_host, int(cfn_port)))
        processes = []
        try:
            confs = []
            for i in range(n):
                attribute = heat.resources.get(stack_id, f"server{i}").attributes[
                    "os_collect_config"]
                home = workdir / f"agent{i}"
                home.mkdir()
                confs.append((collector_conf(
                    attribute, f"{HOTPLATE} agent-hook --state-dir {home / 'heat-config'}",
                    home, interval=interval, metadata_url=proxy.url), home / "agent.log"))
            started = time.monotonic()
            processes = [start_agent(agents, network, conf, log, nice=0 if idle else nice,
                                     idle=idle) for conf, log in confs]
            while True:
                stack = heat.stacks.get(stack_id)
                if not stack.stack_status.endswith("IN_PROGRESS"):
                    break
                if time.monotonic() - started > timeout:
                    break
                time.sleep(0.5)
            completed = time.monotonic()
            elapsed = completed - started
            served_cpu = _cpu([hotplate.pid])
            agents_cpu = _cpu([p.pid for p in processes])
            time.sleep(steady)  # the daemons go on polling: the steady load
            served_cpu = _cpu([hotplate.pid]) - served_cpu
            agents_cpu = _cpu([p.pid for p in processes]) - agents_cpu
            with proxy.lock:
                answered = list(proxy.times)
            served_for = time.monotonic() - started
        finally:
            for process in processes:
                stop(process)
            proxy.close()
    times = [took for _, took in answered]
    steady_times = [took for when, took in answered if when > completed]
    return {"servers": n, "interval_s": interval, "status": stack.stack_status,
            "reason": stack.stack_status_reason, "complete_after_s": round(elapsed, 2),
            "metadata_requests": len(times),
            "metadata_p50_ms": _ms(times, 0.5), "metadata_p99_ms": _ms(times, 0.99),
            "steady_p99_ms": _ms(steady_times, 0.99),
            "requests_per_s": round(len(times) / served_for, 1),
            "steady_requests_per_s": round(len(steady_times) / steady, 1) if steady else None,
            "steady_hotplate_cpu_ms_per_request": (
                round(served_cpu * 1000 / len(steady_times), 1) if steady_times else None),
            "steady_cpu_share_hotplate_agents": (
                f"{served_cpu / steady:.2f} / {agents_cpu / steady:.2f} cores"
                if steady else None),
            "isolated_network": network.isolated,
            "agents_sched": "idle" if idle else f"nice {nice}"}


def _cpu(pids: list[int]) -> float:
    """CPU seconds the processes (and their children) used so far."""
    total = 0.0
    for pid in pids:
        try:
            process = psutil.Process(pid)
            for member in (process, *process.children(recursive=True)):
                times = member.cpu_times()
                total += times.user + times.system
        except psutil.Error:
            continue
    return total


def _ms(times: list[float], quantile: float) -> float | None:
    if not times:
        return None
    ordered = sorted(times)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * quantile))] * 1000, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=50)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--steady", type=float, default=10.0,
                        help="seconds the daemons go on polling after the stack completes")
    parser.add_argument("--agents-sched", choices=("idle", "nice"), default="idle",
                        help="the agents run only on otherwise idle cores (idle), or at a "
                             "lowered priority (nice)")
    parser.add_argument("--agents-nice", type=int, default=10,
                        help="with --agents-sched nice: how much the agents' CPU priority "
                             "is lowered (0: none)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hotplate-deployments-") as workdir:
        result = run(args.servers, args.interval, args.timeout, args.steady, Path(workdir),
                     args.agents_nice, idle=args.agents_sched == "idle")
    for key, value in result.items():
        print(f"{key:>20}: {value}")
    ok = (result["status"] == "CREATE_COMPLETE" and result["complete_after_s"] <= 120
          and (result["metadata_p99_ms"] or 0) < 200)
    print(f"{'targets':>20}: {'met' if ok else 'missed'} (COMPLETE within 120 s, "
          "p99 metadata under 200 ms)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
