"""What a test left behind in the test user's project: Neutron objects made during it.

``network_leaks`` lists the project's RBAC policies, trunks, networks, subnets,
subnet pools, address scopes, ports, routers, floating IPs, security groups and
QoS policies before a test and after it; whatever is new afterwards fails the
test, and is deleted so that the cloud stays as it was found (RBAC policies and
trunks first, routers' interfaces and gateways with their router, then floating
IPs, ports, routers, subnets, pools, scopes, networks, groups, QoS policies).
Ports Neutron makes itself for a network (DHCP, router interfaces) go with
their network or router, and are not counted; so do a router's extra routes and
a QoS policy's rules. ``admin_network_leaks`` does the same in the admin's
project, for the types only an admin may use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import pytest

KINDS: tuple[tuple[str, str], ...] = (
    ("RBAC policy", "rbac_policies"), ("trunk", "trunks"),
    ("floating IP", "ips"), ("port", "ports"), ("router", "routers"),
    ("subnet", "subnets"), ("subnet pool", "subnet_pools"), ("address scope", "address_scopes"),
    ("network", "networks"), ("security group", "security_groups"),
    ("QoS policy", "qos_policies"),
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
            if router.routes:  # else its interfaces the routes go through stay
                router = net.update_router(router, routes=[])
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
        elif kind in _DELETERS:
            getattr(net, _DELETERS[kind])(ident)
        else:
            net.delete_security_group(ident)


_DELETERS = {"RBAC policy": "delete_rbac_policy", "trunk": "delete_trunk",
             "subnet pool": "delete_subnet_pool", "address scope": "delete_address_scope",
             "QoS policy": "delete_qos_policy"}


def leaked(conn: Any, project: str, before: dict[str, set[str]]) -> dict[str, set[str]]:
    after = snapshot(conn, project)
    return {kind: after[kind] - before[kind] for kind, _ in KINDS
            if after[kind] - before[kind]}


def clean(conn: Any, leftovers: dict[str, set[str]]) -> None:
    for kind, _ in KINDS:
        for ident in sorted(leftovers.get(kind, ())):
            _delete(conn, kind, ident)


def _watch(conn: Any) -> Iterator[None]:
    project = conn.current_project_id
    before = snapshot(conn, project)
    yield
    left = leaked(conn, project, before)
    clean(conn, left)
    if left:
        pytest.fail(f"Neutron objects left behind: {left}")


@pytest.fixture
def network_leaks(user_conn: Any) -> Iterator[None]:
    """Fails the test if it leaves Neutron objects in the project (and deletes them);
    a test that keeps one on purpose (Retain) deletes it itself before it ends."""
    yield from _watch(user_conn)


@pytest.fixture
def admin_network_leaks(admin_conn: Any) -> Iterator[None]:
    """``network_leaks`` for the admin's project."""
    yield from _watch(admin_conn)
