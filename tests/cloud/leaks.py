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

``cloud_leaks`` does the same for Nova, Cinder and Glance too: servers (deleted
first, and waited for, since they hold ports and volumes), key pairs, server
groups, volumes and images the user owns whose name starts with the test module's
``LEAK_PREFIX`` (others working in the same project at the same time make theirs);
then the Neutron objects as above.

``cinder_admin_leaks`` does the same, as the admin, for Cinder's cloud-wide objects
the admin-only types make: volume types (their encryption goes with them) and QoS
specs (disassociated first), named with the module's ``LEAK_PREFIX``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
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

SERVER_GONE_SECS = 120.0


def _at_once(reads: dict[str, Callable[[], set[str]]]) -> dict[str, set[str]]:
    """Each read's answer, by kind; the reads run side by side, since a test pays for
    a dozen lists before it and after it and the cloud answers them in parallel."""
    with ThreadPoolExecutor(max_workers=len(reads)) as pool:
        futures = {kind: pool.submit(read) for kind, read in reads.items()}
        return {kind: future.result() for kind, future in futures.items()}


def snapshot(conn: Any, project: str) -> dict[str, set[str]]:
    def ids(kind: str, lister: str) -> Callable[[], set[str]]:
        return lambda: {item.id for item in getattr(conn.network, lister)(project_id=project)
                        if not (kind == "port" and _owned_by_neutron(item))}

    return _at_once({kind: ids(kind, lister) for kind, lister in KINDS})


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


# -- Nova, Cinder, Glance ---------------------------------------------------------------
OTHER_KINDS: tuple[str, ...] = ("server", "keypair", "server group", "volume", "image")
"""The other services' kinds, in the order to delete (servers before what they hold)."""


def _listers(conn: Any, project: str) -> dict[str, Callable[[], Any]]:
    return {
        "server": lambda: conn.compute.servers(),
        "keypair": lambda: conn.compute.keypairs(),
        "server group": lambda: conn.compute.server_groups(),
        "volume": lambda: conn.block_storage.volumes(),
        "image": lambda: conn.image.images(owner=project),
    }


def other_snapshot(conn: Any, project: str, prefix: str = "") -> dict[str, set[str]]:
    def ids(lister: Callable[[], Any]) -> Callable[[], set[str]]:
        return lambda: {str(item.id) for item in lister()
                        if str(getattr(item, "name", None) or "").startswith(prefix)}

    return _at_once({kind: ids(lister) for kind, lister in _listers(conn, project).items()})


def _delete_other(conn: Any, kind: str, ident: str) -> None:
    with suppress(Exception):
        if kind == "server":
            conn.compute.delete_server(ident, force=False)
        elif kind == "keypair":
            conn.compute.delete_keypair(ident)
        elif kind == "server group":
            conn.compute.delete_server_group(ident)
        elif kind == "volume":  # a member may not force a delete; an error volume goes
            conn.block_storage.delete_volume(ident)
        else:
            conn.image.delete_image(ident)


def _wait_servers_gone(conn: Any, idents: set[str]) -> None:
    deadline = time.monotonic() + SERVER_GONE_SECS
    while idents and time.monotonic() < deadline:
        idents = {i for i in idents if _exists(conn.compute.get_server, i)}
        if idents:
            time.sleep(1.0)


def _exists(get: Callable[[str], Any], ident: str) -> bool:
    from openstack.exceptions import NotFoundException

    try:
        get(ident)
    except NotFoundException:
        return False
    return True


def clean_other(conn: Any, leftovers: dict[str, set[str]]) -> None:
    servers = set(leftovers.get("server", ()))
    for ident in sorted(servers):
        _delete_other(conn, "server", ident)
    _wait_servers_gone(conn, servers)
    for kind in OTHER_KINDS[1:]:
        for ident in sorted(leftovers.get(kind, ())):
            _delete_other(conn, kind, ident)


@pytest.fixture
def cloud_leaks(user_conn: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """``network_leaks`` for servers, key pairs, server groups, volumes and images too
    (those named with the module's ``LEAK_PREFIX``): fails the test if it leaves any
    (and deletes them, servers first)."""
    project = user_conn.current_project_id
    prefix = str(getattr(request.module, "LEAK_PREFIX", ""))
    before = snapshot(user_conn, project)
    before_other = other_snapshot(user_conn, project, prefix)
    yield
    after_other = other_snapshot(user_conn, project, prefix)
    left_other = {kind: after_other[kind] - before_other[kind] for kind in OTHER_KINDS
                  if after_other[kind] - before_other[kind]}
    clean_other(user_conn, left_other)
    left = leaked(user_conn, project, before)
    clean(user_conn, left)
    if left_other or left:
        pytest.fail(f"cloud objects left behind: {left_other} {left}")


# -- Cinder's admin objects ---------------------------------------------------------------
def _cinder_admin_snapshot(conn: Any, prefix: str) -> dict[str, set[str]]:
    storage = conn.block_storage
    return {"volume type": {str(t.id) for t in storage.types()
                            if str(t.name or "").startswith(prefix)},
            "QoS specs": {str(q.id) for q in storage.qos_specs()
                          if str(q.name or "").startswith(prefix)}}


def _delete_cinder_admin(conn: Any, kind: str, ident: str) -> None:
    storage = conn.block_storage
    with suppress(Exception):
        if kind == "QoS specs":
            storage.get(f"/qos-specs/{ident}/disassociate_all")
            storage.delete_qos_spec(ident, force=True)
        else:
            with suppress(Exception):
                storage.delete(f"/types/{ident}/encryption/provider")
            storage.delete_type(ident)


@pytest.fixture
def cinder_admin_leaks(admin_conn: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test if it leaves volume types or QoS specs named with the module's
    ``LEAK_PREFIX`` (and deletes them: QoS specs first, which may hold types)."""
    prefix = str(getattr(request.module, "LEAK_PREFIX", "")) or "\0"
    before = _cinder_admin_snapshot(admin_conn, prefix)
    yield
    after = _cinder_admin_snapshot(admin_conn, prefix)
    left = {kind: after[kind] - before[kind] for kind in after if after[kind] - before[kind]}
    for kind in ("QoS specs", "volume type"):
        for ident in sorted(left.get(kind, ())):
            _delete_cinder_admin(admin_conn, kind, ident)
    if left:
        pytest.fail(f"Cinder admin objects left behind: {left}")
