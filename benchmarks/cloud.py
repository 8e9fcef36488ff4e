"""Servers and networks on the project's cloud: hotplate side by side with real Heat.

A stack of a router (gateway on the external network), a network, a subnet, the
router's interface on it, a security group and N servers, each with its own port and
floating IP, is created and then deleted, by hotplate and (``--heat``) by real Heat
27.0.1 on the same cloud (``CLOUD_HEAT=1 make cloud``: Heat is the orchestration
service of region HeatRegion). Both are driven the same way: the orchestration API
over HTTP with the same user's Keystone token, the stack polled every 0.5 s. The
user is a project of its own made for the run (member, reader and heat_stack_owner),
removed afterwards with anything left in it, so no other suite's objects are in the
way. Besides seconds per phase it samples the orchestrator's processes every 0.25 s
(hotplate: its ``serve`` process, API included; Heat: every heat-engine process):
CPU seconds used and the mean number of threads running, i.e. whether the engine's
threads idle while Nova builds. Prints a table and optionally writes JSON::

    OS_CLIENT_CONFIG_FILE=/tmp/hotplate-cloud/etc/clouds.yaml \\
        python benchmarks/cloud.py [--servers 20] [--heat] [--repeat 1] [--json PATH]

hotplate serves on a free loopback port in Keystone mode, on SQLite, acting through
trusts to the cloud's ``heat`` user as the project's cloud's own Heat does.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.api.background import free_port

POLL_S = 0.5
SAMPLE_S = 0.25
TICKS = os.sysconf("SC_CLK_TCK")


def template(servers: int) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "router": {"type": "OS::Neutron::Router", "properties": {
            "external_gateway_info": {"network": {"get_param": "public"}}}},
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet", "properties": {
            "network": {"get_resource": "net"}, "cidr": "10.77.0.0/22"}},
        "iface": {"type": "OS::Neutron::RouterInterface", "properties": {
            "router": {"get_resource": "router"}, "subnet": {"get_resource": "subnet"}}},
        "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": [
            {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
            {"protocol": "icmp"}]}},
    }
    for i in range(servers):
        resources[f"port{i}"] = {"type": "OS::Neutron::Port", "properties": {
            "network": {"get_resource": "net"},
            "fixed_ips": [{"subnet": {"get_resource": "subnet"}}],
            "security_groups": [{"get_resource": "sg"}]}}
        resources[f"fip{i}"] = {"type": "OS::Neutron::FloatingIP", "depends_on": ["iface"],
                                "properties": {"floating_network": {"get_param": "public"},
                                               "port_id": {"get_resource": f"port{i}"}}}
        resources[f"server{i}"] = {"type": "OS::Nova::Server", "properties": {
            "image": {"get_param": "image"}, "flavor": {"get_param": "flavor"},
            "networks": [{"port": {"get_resource": f"port{i}"}}]}}
    return {"heat_template_version": "2018-08-31",
            "parameters": {"image": {"type": "string"}, "flavor": {"type": "string"},
                           "public": {"type": "string"}},
            "resources": resources}


# -- the orchestrator's processes ----------------------------------------------------
@dataclass
class Sampler:
    """CPU seconds and running threads of some processes, sampled in the background."""

    pids: Callable[[], list[int]]
    cpu0: float = 0.0
    running: list[int] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @staticmethod
    def _cpu(pid: int) -> float:
        with suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS
        return 0.0

    @staticmethod
    def _states(pid: int) -> list[str]:
        states = []
        with suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                with suppress(OSError):
                    states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
        return states

    def cpu(self) -> float:
        return sum(self._cpu(pid) for pid in self.pids())

    def __enter__(self) -> Sampler:
        self.cpu0 = self.cpu()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join()
        self.cpu_s = self.cpu() - self.cpu0

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            states = [s for pid in self.pids() for s in self._states(pid)]
            self.threads.append(len(states))
            self.running.append(sum(1 for s in states if s == "R"))


def heat_engine_pids() -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with suppress(OSError):
                if b"heat-engine" in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
    return found


# -- the user and the orchestrators ---------------------------------------------------
@dataclass(frozen=True)
class User:
    auth_url: str
    name: str
    password: str
    project: str
    project_id: str

    def session(self) -> Any:
        from keystoneauth1 import session
        from keystoneauth1.identity import v3

        auth = v3.Password(auth_url=self.auth_url, username=self.name, password=self.password,
                           project_name=self.project, user_domain_name="Default",
                           project_domain_name="Default")
        return session.Session(auth=auth)


@contextmanager
def bench_user(admin: Any) -> Iterator[User]:
    """A project and a user of the run's own, deleted with what is left in them."""
    name = f"bench-{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    project = admin.identity.create_project(name=name, domain_id="default")
    user = admin.identity.create_user(name=name, password=password, domain_id="default",
                                      default_project_id=project.id)
    for role in ("member", "reader", "heat_stack_owner"):
        found = admin.identity.find_role(role)
        if found is not None:
            admin.identity.assign_project_role_to_user(project, user, found)
    auth_url = admin.config.config["auth"]["auth_url"]
    try:
        yield User(auth_url, name, password, name, project.id)
    finally:
        left = clean_project(admin, project.id)
        if left:
            print(f"cleaned up what the run left in {name}: {left}", file=sys.stderr)
        admin.identity.delete_user(user)
        admin.identity.delete_project(project)


def clean_project(admin: Any, project_id: str) -> dict[str, int]:
    """Delete every server, floating IP, router, port, network and security group of the
    project; returns how many of each there were."""
    left: dict[str, int] = {}
    servers = list(admin.compute.servers(all_projects=True, project_id=project_id))
    for server in servers:
        admin.compute.delete_server(server)
    for server in servers:
        with suppress(Exception):
            admin.compute.wait_for_delete(server, wait=120)
    left["servers"] = len(servers)
    net = admin.network
    for kind, lister, deleter in (("floating IPs", net.ips, net.delete_ip),):
        items = list(lister(project_id=project_id))
        for item in items:
            deleter(item)
        left[kind] = len(items)
    routers = list(net.routers(project_id=project_id))
    for router in routers:
        for port in net.ports(device_id=router.id, device_owner="network:router_interface"):
            for ip in port.fixed_ips:
                with suppress(Exception):
                    net.remove_interface_from_router(router, subnet_id=ip["subnet_id"])
        net.delete_router(router)
    left["routers"] = len(routers)
    ports = [p for p in net.ports(project_id=project_id)
             if not (p.device_owner or "").startswith("network:")]
    for port in ports:
        net.delete_port(port)
    left["ports"] = len(ports)
    nets = list(net.networks(project_id=project_id))
    for item in nets:
        net.delete_network(item)
    left["networks"] = len(nets)
    groups = [g for g in net.security_groups(project_id=project_id) if g.name != "default"]
    for group in groups:
        net.delete_security_group(group)
    for group in net.security_groups(project_id=project_id):
        with suppress(Exception):
            net.delete_security_group(group)
    left["security groups"] = len(groups)
    return {k: v for k, v in left.items() if v}


HOTPLATE_CONF = """\
[DEFAULT]
stack_user_domain_name = heat
stack_domain_admin = heat_domain_admin
stack_domain_admin_password = {password}

[clients_keystone]
auth_uri = {keystone}

[trustee]
auth_url = {keystone}
auth_type = password
user_domain_name = Default
username = heat
password = {password}

[keystone_authtoken]
www_authenticate_uri = {keystone}
auth_url = {keystone}
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = heat
password = {password}
service_token_roles_required = true
"""


@contextmanager
def hotplate(tmp: Path, keystone: str, password: str, project_id: str
             ) -> Iterator[tuple[str, Callable[[], list[int]]]]:
    conf = tmp / "hotplate.conf"
    conf.write_text(HOTPLATE_CONF.format(keystone=keystone, password=password))
    port = free_port()
    log = (tmp / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--auth", "keystone",
         "--port", str(port), "--cfn-port", "0", "--data-dir", str(tmp / "var"),
         "--config-file", str(conf)], stdout=log, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/", timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"hotplate serve did not start; see {tmp}/serve.log")
                time.sleep(0.1)
        yield f"{base}/v1/{project_id}", lambda: [proc.pid]
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


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


def run_once(base: str, token: str, pids: Callable[[], list[int]], servers: int,
             params: dict[str, str], timeout: float) -> dict[str, float]:
    name = f"bench-{secrets.token_hex(3)}"
    result: dict[str, float] = {}
    with httpx.Client(base_url=base, headers={"X-Auth-Token": token}, timeout=120) as http:
        with Sampler(pids) as sampled:
            start = time.monotonic()
            created = http.post("/stacks", json={"stack_name": name, "parameters": params,
                                                 "template": template(servers)})
            if created.status_code >= 400:
                raise SystemExit(f"create: {created.status_code} {created.text}")
            path = f"/stacks/{name}/{created.json()['stack']['id']}"
            wait(http, path, "CREATE_COMPLETE", timeout)
            result["create_s"] = time.monotonic() - start
        result |= phase_figures("create", sampled)
        with Sampler(pids) as sampled:
            start = time.monotonic()
            http.delete(path).raise_for_status()
            wait(http, path, "DELETE_COMPLETE", timeout)
            result["delete_s"] = time.monotonic() - start
        result |= phase_figures("delete", sampled)
    return result


def phase_figures(phase: str, sampled: Sampler) -> dict[str, float]:
    return {f"{phase}_cpu_s": sampled.cpu_s,
            f"{phase}_running_threads": statistics.fmean(sampled.running or [0]),
            f"{phase}_peak_threads": max(sampled.threads or [0])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--heat", action="store_true",
                        help="also run real Heat (CLOUD_HEAT=1 make cloud), region HeatRegion")
    parser.add_argument("--heat-region", default="HeatRegion")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--admin-cloud", default="hotplate-admin")
    parser.add_argument("--service-password", default="secret")
    parser.add_argument("--image", default="cirros-fake")
    parser.add_argument("--flavor", default="m1.tiny")
    parser.add_argument("--public", default="public")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    import openstack

    admin = openstack.connect(cloud=args.admin_cloud)
    params = {"image": args.image, "flavor": args.flavor, "public": args.public}
    runs: dict[str, list[dict[str, float]]] = {"hotplate": []}
    if args.heat:
        runs["heat"] = []
    with bench_user(admin) as user, tempfile.TemporaryDirectory() as tmp:
        session = user.session()
        token = session.get_token()
        with hotplate(Path(tmp), user.auth_url, args.service_password,
                      user.project_id) as (base, pids):
            targets: list[tuple[str, str, Callable[[], list[int]]]] = [("hotplate", base, pids)]
            if args.heat:
                heat = session.get_endpoint(service_type="orchestration",
                                            region_name=args.heat_region, interface="public")
                targets.append(("heat", heat.rstrip("/"), heat_engine_pids))
            for _ in range(args.repeat):
                for label, url, engine in targets:  # alternated: both see the same cloud
                    runs[label].append(run_once(url, token, engine, args.servers, params,
                                                args.timeout))
    results = {label: {key: statistics.median(r[key] for r in done) for key in done[0]}
               for label, done in runs.items()}
    resources = 5 + 3 * args.servers
    print(f"router, network, subnet, interface, security group and {args.servers} servers "
          f"each with a port and a floating IP ({resources} resources), median of "
          f"{args.repeat}")
    print(f"{'':<10}{'create s':>10}{'delete s':>10}{'cpu s (c/d)':>14}"
          f"{'threads running (c/d)':>24}{'peak threads':>14}")
    for label, r in results.items():
        print(f"{label:<10}{r['create_s']:>10.1f}{r['delete_s']:>10.1f}"
              f"{r['create_cpu_s']:>8.1f}/{r['delete_cpu_s']:<5.1f}"
              f"{r['create_running_threads']:>16.2f}/{r['delete_running_threads']:<7.2f}"
              f"{r['create_peak_threads']:>14.0f}")
    if "heat" in results:
        for phase in ("create", "delete"):
            ratio = results["heat"][f"{phase}_s"] / results["hotplate"][f"{phase}_s"]
            print(f"{phase}: Heat takes {ratio:.2f}x hotplate's time")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(
            {"servers": args.servers, "repeat": args.repeat, "runs": runs,
             "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
