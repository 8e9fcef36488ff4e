"""Servers with ports and volumes on the project's cloud: hotplate side by side with
real Heat, and with the cloud alone.

A stack of a network, a subnet and a ResourceGroup of N members, each a port, a
volume, a server on the port and the volume attached to it (4 resources), is created,
updated (every server's metadata changed in place) and deleted, by hotplate and
(``--heat``) by real Heat 27.0.1 on the same cloud (``CLOUD_HEAT=1 make cloud``: Heat
is the orchestration service of region HeatRegion), alternately. Both are driven the
same way: the orchestration API over HTTP with the same user's Keystone token, the
stack polled every 0.5 s. The same members are also made directly with openstacksdk,
one thread each (benchmarks/cloud_baseline.py): the cloud's own time, which an
orchestrator can only add to. The user is a project of its own made for the run
(member, reader and heat_stack_owner), removed afterwards with anything left in it.

Printed per phase: seconds; the orchestrator's cloud API calls per resource by service,
counted at the cloud's side from its APIs' access logs (benchmarks/cloud_calls.py:
hotplate's by its user agent, Heat's by the ports of its region; the cloud's own calls
between its services are in neither); the orchestrator's CPU seconds, mean threads
running and peak threads, sampled every 0.25 s (hotplate: its ``serve`` process, API
included; Heat: every heat-engine process); and its peak resident memory::

    OS_CLIENT_CONFIG_FILE=/tmp/hotplate-cloud/etc/clouds.yaml \\
        python benchmarks/cloud.py [--servers 100] [--heat] [--no-baseline] [--repeat 1]
            [--json PATH]

hotplate serves on a free loopback port in Keystone mode, on SQLite, acting through
trusts to the cloud's ``heat`` user as the project's cloud's own Heat does.
"""

from __future__ import annotations

import argparse
import json
import math
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import cloud_calls
from benchmarks.cloud_baseline import run_baseline
from benchmarks.cloud_support import Sampler, bench_user, heat_engine_pids, hotplate

POLL_S = 0.5
PHASES = ("create", "update", "delete")
SERVICE_NAMES = {"nova-api": "compute", "neutron-api": "network", "cinder-api": "volume",
                 "glance-api": "image", "keystone": "identity", "placement": "placement"}

MEMBER = {
    "heat_template_version": "2018-08-31",
    "parameters": {"net": {"type": "string"}, "image": {"type": "string"},
                   "flavor": {"type": "string"}, "round": {"type": "string"}},
    "resources": {
        "port": {"type": "OS::Neutron::Port", "properties": {"network": {"get_param": "net"}}},
        "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
        "server": {"type": "OS::Nova::Server", "properties": {
            "image": {"get_param": "image"}, "flavor": {"get_param": "flavor"},
            "networks": [{"port": {"get_resource": "port"}}],
            "metadata": {"round": {"get_param": "round"}}}},
        "attachment": {"type": "OS::Cinder::VolumeAttachment", "properties": {
            "instance_uuid": {"get_resource": "server"},
            "volume_id": {"get_resource": "volume"}}},
    },
}
RESOURCES_PER_MEMBER = 4


def template(servers: int) -> dict[str, Any]:
    """A network, its subnet and a group of ``servers`` members (the member template
    goes in the request's files, as the client sends a template file)."""
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"image": {"type": "string"}, "flavor": {"type": "string"},
                       "round": {"type": "string", "default": "1"}},
        "resources": {
            "net": {"type": "OS::Neutron::Net"},
            "subnet": {"type": "OS::Neutron::Subnet", "properties": {
                "network": {"get_resource": "net"}, "cidr": "10.77.0.0/22"}},
            "group": {"type": "OS::Heat::ResourceGroup", "depends_on": ["subnet"],
                      "properties": {"count": servers, "resource_def": {
                          "type": "member.yaml", "properties": {
                              "net": {"get_resource": "net"},
                              "image": {"get_param": "image"},
                              "flavor": {"get_param": "flavor"},
                              "round": {"get_param": "round"}}}}},
        },
    }


def resources_in(servers: int) -> int:
    """What the stack holds: the network, subnet and group, and each member's stack."""
    return 3 + servers * RESOURCES_PER_MEMBER


# -- one run ----------------------------------------------------------------------------
def wait(http: httpx.Client, path: str, want: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        resp = http.get(path)
        if resp.status_code == 404:
            return "DELETE_COMPLETE"
        resp.raise_for_status()
        stack = resp.json()["stack"]
        status = stack["stack_status"]
        if not status.endswith("_IN_PROGRESS"):
            if status != want:
                raise SystemExit(f"{path}: {status}: {stack['stack_status_reason']}")
            return status
        if time.monotonic() > deadline:
            raise SystemExit(f"{path}: still {status} after {timeout} s")
        time.sleep(POLL_S)


class KeystoneToken(httpx.Auth):
    """The user's token as of each request: a run of 500 members outlives one token
    (Keystone's hour), and the session fetches a new one as the old nears its end."""

    def __init__(self, token: Callable[[], str]) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["X-Auth-Token"] = self._token()
        yield request


def run_once(base: str, token: Callable[[], str], pids: Callable[[], list[int]], servers: int,
             params: dict[str, str], timeout: float, orchestrator: str) -> dict[str, float]:
    name = f"bench-{secrets.token_hex(3)}"
    files = {"member.yaml": json.dumps(MEMBER)}
    result: dict[str, float] = {}
    path = ""
    with httpx.Client(base_url=base, auth=KeystoneToken(token), timeout=120) as http:
        for phase in PHASES:
            marks = cloud_calls.marks()
            with Sampler(pids) as sampled:
                start = time.monotonic()
                if phase == "create":
                    sent = http.post("/stacks", json={
                        "stack_name": name, "parameters": params | {"round": "1"},
                        "timeout_mins": math.ceil(timeout / 60),
                        "template": template(servers), "files": files})
                    if sent.status_code >= 400:
                        raise SystemExit(f"create: {sent.status_code} {sent.text}")
                    path = f"/stacks/{name}/{sent.json()['stack']['id']}"
                elif phase == "update":
                    http.patch(path, json={"parameters": {"round": "2"}}).raise_for_status()
                else:
                    http.delete(path).raise_for_status()
                wait(http, path, f"{phase.upper()}_COMPLETE", timeout)
                result[f"{phase}_s"] = time.monotonic() - start
            time.sleep(1.5)  # the access logs are written as each request ends
            calls = cloud_calls.by_orchestrator(cloud_calls.calls_since(marks), orchestrator)
            for service, count in calls.items():
                result[f"{phase}_calls_{SERVICE_NAMES[service]}"] = \
                    count / resources_in(servers)
            result[f"{phase}_calls"] = sum(calls.values()) / resources_in(servers)
            result |= phase_figures(phase, sampled)
    return result


def phase_figures(phase: str, sampled: Sampler) -> dict[str, float]:
    return {f"{phase}_cpu_s": sampled.cpu_s,
            f"{phase}_running_threads": statistics.fmean(sampled.running or [0]),
            f"{phase}_peak_threads": max(sampled.threads or [0]),
            f"{phase}_peak_rss_mb": max(sampled.rss_mb or [0])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, default=100)
    parser.add_argument("--heat", action="store_true",
                        help="also run real Heat (CLOUD_HEAT=1 make cloud), region HeatRegion")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the cloud's own time (the members made directly)")
    parser.add_argument("--heat-region", default="HeatRegion")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--admin-cloud", default="hotplate-admin")
    parser.add_argument("--service-password", default="secret")
    parser.add_argument("--image", default="cirros-fake")
    parser.add_argument("--flavor", default="m1.tiny")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    import openstack

    if not cloud_calls.logs_present():
        print("the cloud writes no access logs (set up before they existed): no calls "
              "are counted; `make cloud-clean cloud` sets it up anew", file=sys.stderr)
    admin = openstack.connect(cloud=args.admin_cloud)
    params = {"image": args.image, "flavor": args.flavor}
    runs: dict[str, list[dict[str, float]]] = {"hotplate": []}
    if args.heat:
        runs["heat"] = []
    if not args.no_baseline:
        runs["cloud alone"] = []
    failures: list[str] = []
    with bench_user(admin) as user, tempfile.TemporaryDirectory() as tmp:
        session = user.session()
        own = openstack.connection.Connection(session=session, region_name="RegionOne")
        with hotplate(Path(tmp), user.auth_url, args.service_password,
                      user.project_id) as (base, pids):
            targets: list[tuple[str, str, Callable[[], list[int]]]] = [("hotplate", base, pids)]
            if args.heat:
                heat = session.get_endpoint(service_type="orchestration",
                                            region_name=args.heat_region, interface="public")
                targets.append(("heat", heat.rstrip("/"), heat_engine_pids))
            for _ in range(args.repeat):
                if not args.no_baseline:
                    runs["cloud alone"].append(run_baseline(own, args.servers, args.image,
                                                            args.flavor, args.timeout))
                for label, url, engine in targets:  # alternated: both see the same cloud
                    try:
                        runs[label].append(run_once(url, session.get_token, engine, args.servers,
                                                    params, args.timeout, label))
                    except SystemExit as failed:  # one orchestrator's failure is a result
                        failures.append(f"{label}: {failed}")
                        print(f"{label} failed: {failed}", file=sys.stderr)
                    save(args, runs, failures)
    results = {label: {key: statistics.median(r.get(key, 0.0) for r in done)
                       for key in sorted({k for r in done for k in r})}
               for label, done in runs.items() if done}
    report(args.servers, args.repeat, results)
    for failure in failures:
        print(f"failed: {failure}")
    save(args, runs, failures, results)
    return 1 if failures else 0


def save(args: argparse.Namespace, runs: dict[str, list[dict[str, float]]],
         failures: list[str], results: dict[str, dict[str, float]] | None = None) -> None:
    """Written after every run, so that a run that never ends loses none before it."""
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(
            {"servers": args.servers, "resources": resources_in(args.servers),
             "repeat": args.repeat, "runs": runs, "failures": failures,
             "results": results}, indent=2))


def report(servers: int, repeat: int, results: dict[str, dict[str, float]]) -> None:
    print(f"a network, a subnet and a group of {servers} members, each a port, a volume, a "
          f"server and the volume's attachment ({resources_in(servers)} resources), "
          f"median of {repeat}")
    print(f"{'':<12}{'phase':<8}{'s':>8}{'calls/res':>11}{'  (by service)':<40}"
          f"{'cpu s':>7}{'threads run':>12}{'peak thr':>9}{'peak MB':>9}")
    for label, r in results.items():
        for phase in PHASES:
            services = ", ".join(
                f"{key.rsplit('_', 1)[1]} {value:.2f}" for key, value in r.items()
                if key.startswith(f"{phase}_calls_"))
            calls = f"{r[f'{phase}_calls']:.2f}" if f"{phase}_calls" in r else "-"
            cpu, running = r.get(f"{phase}_cpu_s", 0), r.get(f"{phase}_running_threads", 0)
            threads, rss = r.get(f"{phase}_peak_threads", 0), r.get(f"{phase}_peak_rss_mb", 0)
            print(f"{label:<12}{phase:<8}{r[f'{phase}_s']:>8.1f}{calls:>11}  {services:<38}"
                  f"{cpu:>7.1f}{running:>12.2f}{threads:>9.0f}{rss:>9.0f}")
    alone = results.get("cloud alone")
    heat, ours = results.get("heat"), results.get("hotplate")
    if ours is None:
        return
    for phase in PHASES:
        line = f"{phase}:"
        if alone:
            line += f" hotplate adds {ours[f'{phase}_s'] - alone[f'{phase}_s']:.1f} s"
            if heat:
                line += f", Heat {heat[f'{phase}_s'] - alone[f'{phase}_s']:.1f} s"
            line += " to the cloud's own time;"
        if heat:
            line += f" Heat takes {heat[f'{phase}_s'] / ours[f'{phase}_s']:.2f}x hotplate's time"
            if ours.get(f"{phase}_calls"):
                line += (f", makes {heat.get(f'{phase}_calls', 0) / ours[f'{phase}_calls']:.1f}x"
                         " its calls")
        print(line)


if __name__ == "__main__":
    sys.exit(main())
