"""Batched waiting against the project's real cloud: the GETs a stack's waits cost.

hotplate serves in Keystone mode (as ``test_nova_types``) and creates, then
deletes, one stack of ``SERVERS`` servers and ``VOLUMES`` volumes through the
openstack CLI. The cloud's uWSGI services write one line per request with its
user agent (``logs/<service>-access.log``); the requests hotplate made while the
stack was created and deleted are counted there. Waiting through the engine's
status board, the status reads (``GET /servers/<id>``, ``/servers/detail``,
``GET /volumes/<id>``, ``/volumes/detail``, ``/volumes``) must stay near one
list per tick, well under one GET per object per poll.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import PROJECT_CLOUD_HOME, Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import as_user, cli, serve_on_catalog_ports, template_file
from tests.cloud.test_nova_types import NOVA_CLOUD

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "bw-"

SERVERS = 8
VOLUMES = 4
PORTS = 4
LOGS = PROJECT_CLOUD_HOME / "logs"
UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SERVER_READS = re.compile(rf"/servers/(detail|{UUID})(\?|$)")
VOLUME_READS = re.compile(rf"/volumes(/detail|/{UUID})?(\?|$)")
VOLUME_GETS = re.compile(rf"/volumes/{UUID}$")
PORT_READS = re.compile(rf"/ports(/{UUID}$|\?(id|changed_since)=)")
"""A port's status reads (a server's ``?device_id=`` look for its ports is no wait)."""


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, as the Nova suite's user (its own project)."""
    yield from serve_on_catalog_ports(as_user(cloud, NOVA_CLOUD), tmp_path_factory, "batch-serve")


def _stack_template() -> str:
    lines = ["heat_template_version: 2021-04-16", "resources:"]
    for n in range(SERVERS):
        lines += [f"  server{n}:", "    type: OS::Nova::Server", "    properties:",
                  "      image: cirros-fake", "      flavor: m1.tiny",
                  "      networks: [{allocate_network: none}]"]
    for n in range(VOLUMES):
        lines += [f"  volume{n}:", "    type: OS::Cinder::Volume", "    properties: {size: 1}"]
    lines += ["  net:", "    type: OS::Neutron::Net", "  subnet:", "    type: OS::Neutron::Subnet",
              "    properties: {network: {get_resource: net}, cidr: 10.47.0.0/24}"]
    for n in range(PORTS):
        lines += [f"  port{n}:", "    type: OS::Neutron::Port", "    depends_on: subnet",
                  "    properties: {network: {get_resource: net}}"]
    return "\n".join(lines) + "\n"


def _hotplate_calls(service: str, since: float, until: float) -> list[tuple[str, str]]:
    """(method, uri) of each request hotplate made to ``service`` in [since, until]."""
    calls = []
    for line in (LOGS / f"{service}-access.log").read_text().splitlines():
        fields = line.split()
        agent = line.partition('"')[2]
        method = next((f for f in fields[1:4] if f in ("GET", "POST", "PUT", "DELETE")), None)
        if not fields or method is None or not agent.startswith("hotplate"):
            continue
        if since <= float(fields[0]) <= until + 1:
            uri = fields[fields.index(method) + 1]
            calls.append((method, uri))
    return calls


def _reads(calls: list[tuple[str, str]], pattern: re.Pattern[str]) -> list[str]:
    return [uri for method, uri in calls if method == "GET" and pattern.search(uri)]


def _budget(objects: int, start: float, end: float) -> int:
    """Reads allowed for ``objects`` waited on over [start, end]: at most one list a tick
    (ticks are a second apart at the quickest) and one look each, against Heat's one GET
    per object per second. On a quiet cloud this is under two reads an object; on a loaded
    one the phase runs longer and the lists with it, never the GETs per object."""
    return max(objects * 2, objects + int(end - start))


def _phase(served: Serving, *args: str) -> tuple[Any, float, float]:
    start = time.time() - 1
    answer = cli(served, *args)
    time.sleep(1.5)  # uWSGI writes a request's line once it is answered
    return answer, start, time.time()


def test_a_stacks_waits_read_the_cloud_in_batches(served: Serving, user_conn: Any) -> None:
    if not (LOGS / "nova-api-access.log").exists():
        pytest.skip("the cloud was started before its services logged each request")
    name = f"bw-{uuid.uuid4().hex[:8]}"
    template = template_file(served, _stack_template())
    try:
        created, start, end = _phase(served, "stack", "create", "--wait", "-t", template,
                                     name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        nova = _hotplate_calls("nova-api", start, end)
        cinder = _hotplate_calls("cinder-api", start, end)
        assert sum(1 for m, u in nova if m == "POST" and u.endswith("/servers")) == SERVERS
        server_reads = _reads(nova, SERVER_READS)
        volume_reads = _reads(cinder, VOLUME_READS)
        assert len(server_reads) < _budget(SERVERS, start, end), server_reads
        assert len(volume_reads) < _budget(VOLUMES, start, end), volume_reads
        assert any("changes-since" in uri for uri in server_reads), server_reads
        assert any("updated_at" in uri for uri in volume_reads), volume_reads
        port_reads = _reads(_hotplate_calls("neutron-api", start, end), PORT_READS)
        assert len(port_reads) < PORTS, port_reads  # Neutron's answer to the create says

        servers = [s for s in user_conn.compute.servers() if s.name.startswith(name)]
        assert len(servers) == SERVERS and all(s.status == "ACTIVE" for s in servers)

        _, start, end = _phase(served, "stack", "delete", "--yes", "--wait", name)
        nova = _hotplate_calls("nova-api", start, end)
        cinder = _hotplate_calls("cinder-api", start, end)
        assert sum(1 for m, u in nova if m == "DELETE") == SERVERS
        server_reads = _reads(nova, SERVER_READS)
        assert len(server_reads) < _budget(SERVERS, start, end), server_reads
        volume_reads = _reads(cinder, VOLUME_READS)
        # one look each before its DELETE (Heat's in-use check), then lists only
        assert len(_reads(cinder, VOLUME_GETS)) <= VOLUMES, volume_reads
        assert len(volume_reads) - VOLUMES < _budget(VOLUMES, start, end), volume_reads
        port_reads = _reads(_hotplate_calls("neutron-api", start, end), PORT_READS)
        assert len(port_reads) < PORTS * 2, port_reads
        assert not [s for s in user_conn.compute.servers() if s.name.startswith(name)]
        assert not [v for v in user_conn.block_storage.volumes() if v.name.startswith(name)]
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)


@pytest.fixture(scope="module")
def user_conn(cloud: Cloud) -> Iterator[Any]:
    conn = dataclasses.replace(cloud, user=NOVA_CLOUD).connect()
    yield conn
    conn.close()
