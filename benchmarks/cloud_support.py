"""What benchmarks/cloud.py needs around a run: the orchestrator's processes sampled,
a project and user of the run's own (and whatever they leave, removed), and a
``hotplate serve`` in Keystone mode acting through trusts as the cloud's Heat does."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
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

SAMPLE_S = 0.25
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# -- the orchestrator's processes ----------------------------------------------------
@dataclass
class Sampler:
    """CPU seconds, running threads and resident memory of some processes, sampled in
    the background."""

    pids: Callable[[], list[int]]
    cpu0: float = 0.0
    cpu_s: float = 0.0
    running: list[int] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
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

    @staticmethod
    def _rss_mb(pid: int) -> float:
        with suppress(OSError, IndexError, ValueError):
            return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20
        return 0.0

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
            self.rss_mb.append(sum(self._rss_mb(pid) for pid in self.pids()))


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
    """Delete every server, volume, floating IP, router, port, network and security group
    of the project; returns how many of each there were."""
    left: dict[str, int] = {}
    servers = list(admin.compute.servers(all_projects=True, project_id=project_id))
    for server in servers:
        admin.compute.delete_server(server)
    for server in servers:
        with suppress(Exception):
            admin.compute.wait_for_delete(server, wait=120)
    # Nova shows a server DELETED (done, for Heat and hotplate alike) a while before its
    # record goes, longer on a loaded cloud: only the others were left behind.
    left["servers"] = sum(1 for server in servers if server.status != "DELETED")
    volumes = list(admin.block_storage.volumes(all_projects=True, project_id=project_id))
    for volume in volumes:
        with suppress(Exception):
            admin.block_storage.delete_volume(volume, force=True)
    for volume in volumes:
        with suppress(Exception):
            admin.block_storage.wait_for_delete(volume, wait=120)
    left["volumes"] = len(volumes)
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
# The cloud's own region: Heat's (HeatRegion) reaches the same APIs on other ports,
# by which its calls are counted (cloud_calls.py).
region_name_for_services = RegionOne
stack_user_domain_name = heat
stack_domain_admin = heat_domain_admin
stack_domain_admin_password = {password}
# A group of 500 members holds 2,503 resources in its tree, past Heat's default 1000.
max_resources_per_stack = -1

[cache]
# As real Heat has it on this cloud (cloud/write-configs.sh, as devstack sets it): ids found
# by name or id (the image, the flavor, the network) kept an hour, per project.
enabled = true

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


