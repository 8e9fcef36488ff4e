"""What a test left behind in the test user's project: Neutron objects made during it.

``network_leaks`` lists the project's networks, subnets, ports, routers, floating
IPs and security groups before a test and after it; whatever is new afterwards
fails the test, and is deleted so that the cloud stays as it was found (routers'
interfaces and gateways first, then floating IPs, ports, routers, subnets,
networks, groups). Ports Neutron makes itself for a network (DHCP, router
interfaces) go with their network or router, and are not counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import pytest

KINDS: tuple[tuple[str, str], ...] = (
    ("floating IP", "ips"), ("port", "ports"), ("router", "routers"),
    ("subnet", "subnets"), ("network", "networks"), ("security group", "security_groups"),
)
"""Each kind and the openstacksdk network proxy's lister, in the order to delete."""


def snapshot(conn: Any, project: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for kind, lister in KINDS:
        items = getattr(conn.network, lister)(project_id=project)
        found[kind] = {item.id for item in items
                       if not (kind == "port" and _owned_by_neutron(item))}
    return found


def _owned_by_neutron(port: Any) -> bool:
    owner = str(port.device_owner or "")
    return owner.startswith("network:")


def _delete(conn: Any, kind: str, ident: str) -> None:
    net = conn.network
    with suppress(Exception):
        if kind == "router":
            router = net.get_router(ident)
            for port in net.ports(device_id=ident):
                if port.device_owner == "network:router_interface":
                    net.remove_interface_from_router(router, port_id=port.id)
            if router.external_gateway_info:
                net.update_router(router, external_gateway_info={})
            net.delete_router(ident)
        elif kind == "floating IP":
            net.delete_ip(ident)
        elif kind == "port":
            net.delete_port(ident)
        elif kind == "subnet":
            net.delete_subnet(ident)
        elif kind == "network":
            net.delete_network(ident)
        else:
            net.delete_security_group(ident)


def leaked(conn: Any, project: str, before: dict[str, set[str]]) -> dict[str, set[str]]:
    after = snapshot(conn, project)
    return {kind: after[kind] - before[kind] for kind, _ in KINDS
            if after[kind] - before[kind]}


def clean(conn: Any, leftovers: dict[str, set[str]]) -> None:
    for kind, _ in KINDS:
        for ident in sorted(leftovers.get(kind, ())):
            _delete(conn, kind, ident)


@pytest.fixture
def network_leaks(user_conn: Any) -> Iterator[None]:
    """Fails the test if it leaves Neutron objects in the project (and deletes them);
    a test that keeps one on purpose (Retain) deletes it itself before it ends."""
    project = user_conn.current_project_id
    before = snapshot(user_conn, project)
    yield
    left = leaked(user_conn, project, before)
    clean(user_conn, left)
    if left:
        pytest.fail(f"Neutron objects left behind: {left}")
