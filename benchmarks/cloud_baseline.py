"""The cloud's own time for the benchmark's members, with no orchestrator.

What benchmarks/cloud.py's stack makes — N members, each a port, a volume, a server
on the port and the volume attached to it — made directly with openstacksdk, as fast
as the cloud lets it and asking it as little as possible: every request of a step sent
at once (``WORKERS`` at a time), then one list call a second for the whole step until
every object is there. Then each server's metadata is set, and everything is deleted
the same way. An orchestrator's time beyond these phases is its own cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

POLL_S = 1.0
WORKERS = 16


def _until(listed: Callable[[], dict[str, str]], ids: Iterable[str], done: Callable[[str], bool],
           timeout: float, what: str) -> None:
    """Poll one list call until every id's status is ``done`` (a missing id: None)."""
    wanted = set(ids)
    deadline = time.monotonic() + timeout
    while True:
        statuses = listed()
        if "error" in {statuses.get(i, "").lower() for i in wanted}:
            raise SystemExit(f"baseline: {what}: a member went to status ERROR")
        if all(done(statuses.get(i, "")) for i in wanted):
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"baseline: {what} not done after {timeout} s")
        time.sleep(POLL_S)


def run_baseline(conn: Any, members: int, image: str, flavor: str, timeout: float
                 ) -> dict[str, float]:
    """Seconds to create, update (metadata) and delete the members directly."""
    image_id = conn.image.find_image(image, ignore_missing=False).id
    flavor_id = conn.compute.find_flavor(flavor, ignore_missing=False).id
    net = conn.network.create_network(name="base-net")
    conn.network.create_subnet(network_id=net.id, ip_version=4, cidr="10.78.0.0/22")

    def servers() -> dict[str, str]:
        return {s.id: s.status for s in conn.compute.servers()}

    def volumes() -> dict[str, str]:
        return {v.id: v.status for v in conn.block_storage.volumes()}

    result: dict[str, float] = {}
    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            start = time.monotonic()
            ports = list(pool.map(lambda i: conn.network.create_port(
                network_id=net.id, name=f"base-port-{i}").id, range(members)))
            vols = list(pool.map(lambda i: conn.block_storage.create_volume(
                size=1, name=f"base-vol-{i}").id, range(members)))
            made = list(pool.map(lambda i: conn.compute.create_server(
                name=f"base-server-{i}", image_id=image_id, flavor_id=flavor_id,
                networks=[{"port": ports[i]}]).id, range(members)))
            _until(volumes, vols, lambda s: s == "available", timeout, "volumes")
            _until(servers, made, lambda s: s == "ACTIVE", timeout, "servers")
            list(pool.map(lambda i: conn.compute.create_volume_attachment(
                made[i], volume_id=vols[i]), range(members)))
            _until(volumes, vols, lambda s: s == "in-use", timeout, "attachments")
            result["create_s"] = time.monotonic() - start

            start = time.monotonic()
            list(pool.map(lambda s: conn.compute.set_server_metadata(s, round="2"), made))
            result["update_s"] = time.monotonic() - start

            start = time.monotonic()
            list(pool.map(lambda i: conn.compute.delete_volume_attachment(made[i], vols[i]),
                          range(members)))
            _until(volumes, vols, lambda s: s == "available", timeout, "detaching")
            list(pool.map(conn.compute.delete_server, made))
            list(pool.map(conn.block_storage.delete_volume, vols))
            _until(servers, made, lambda s: s in ("", "DELETED"), timeout, "server deletes")
            list(pool.map(conn.network.delete_port, ports))
            _until(volumes, vols, lambda s: s == "", timeout, "volume deletes")
            result["delete_s"] = time.monotonic() - start
    finally:
        conn.network.delete_network(net, ignore_missing=True)
    return result
