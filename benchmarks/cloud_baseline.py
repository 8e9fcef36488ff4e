"""The cloud's own time for the benchmark's members, with no orchestrator.

What benchmarks/cloud.py's stack makes — N members, each a port, a volume, a server
on the port and the volume attached to it — made directly with openstacksdk, one
thread per member so that every member goes as fast as the cloud lets it, then each
server's metadata set, then everything deleted. An orchestrator's time beyond these
phases is its own cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

POLL_S = 0.5


def _until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"baseline: {what} not done after {timeout} s")
        time.sleep(POLL_S)


def _status(getter: Callable[[], Any], want: str) -> bool:
    status = getter().status.lower()
    if status == "error":
        raise SystemExit(f"baseline: went to status ERROR ({getter()})")
    return bool(status == want)


def build_member(conn: Any, i: int, net_id: str, image_id: str, flavor_id: str,
                 timeout: float) -> dict[str, str]:
    port = conn.network.create_port(network_id=net_id, name=f"base-port-{i}")
    volume = conn.block_storage.create_volume(size=1, name=f"base-vol-{i}")
    server = conn.compute.create_server(name=f"base-server-{i}", image_id=image_id,
                                        flavor_id=flavor_id, networks=[{"port": port.id}])
    _until(lambda: _status(lambda: conn.compute.get_server(server.id), "active"), timeout,
           f"server {i}")
    _until(lambda: _status(lambda: conn.block_storage.get_volume(volume.id), "available"),
           timeout, f"volume {i}")
    conn.compute.create_volume_attachment(server.id, volume_id=volume.id)
    _until(lambda: _status(lambda: conn.block_storage.get_volume(volume.id), "in-use"),
           timeout, f"attachment {i}")
    return {"port": port.id, "volume": volume.id, "server": server.id}


def delete_member(conn: Any, made: dict[str, str], timeout: float) -> None:
    conn.compute.delete_volume_attachment(made["server"], made["volume"])
    _until(lambda: _status(lambda: conn.block_storage.get_volume(made["volume"]), "available"),
           timeout, "detach")
    conn.compute.delete_server(made["server"])
    _until(lambda: conn.compute.find_server(made["server"]) is None, timeout, "server delete")
    conn.block_storage.delete_volume(made["volume"])
    conn.network.delete_port(made["port"])
    _until(lambda: conn.block_storage.find_volume(made["volume"]) is None, timeout,
           "volume delete")


def run_baseline(conn: Any, members: int, image: str, flavor: str, timeout: float
                 ) -> dict[str, float]:
    """Seconds to create, update (metadata) and delete the members directly."""
    image_id = conn.image.find_image(image, ignore_missing=False).id
    flavor_id = conn.compute.find_flavor(flavor, ignore_missing=False).id
    net = conn.network.create_network(name="base-net")
    conn.network.create_subnet(network_id=net.id, ip_version=4, cidr="10.78.0.0/22")
    result: dict[str, float] = {}
    try:
        with ThreadPoolExecutor(members) as pool:
            start = time.monotonic()
            made = list(pool.map(lambda i: build_member(conn, i, net.id, image_id, flavor_id,
                                                        timeout), range(members)))
            result["create_s"] = time.monotonic() - start
            start = time.monotonic()
            list(pool.map(lambda m: conn.compute.set_server_metadata(m["server"], round="2"),
                          made))
            result["update_s"] = time.monotonic() - start
            start = time.monotonic()
            list(pool.map(lambda m: delete_member(conn, m, timeout), made))
            result["delete_s"] = time.monotonic() - start
    finally:
        conn.network.delete_network(net, ignore_missing=True)
    return result
