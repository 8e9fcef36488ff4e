"""What a real Heat's stacks made in the cloud, found from Heat's database and by name,
and removed by id as the cloud's admin, so that a test failing half-way leaves nothing.

:func:`recorded` reads Heat's rows for a set of top stacks and their nested stacks:
each resource's physical id by its type (taken from the resource's template), the
servers' ports (``internal_ports``, made by Heat, and ``external_ports``, made by
Nova or given, in ``resource_data``), the stack domain users (``user_id``) and
projects (``stack.stack_user_project_id``: every top stack gets one at create, its
nested stacks share it), and the Keystone trusts of the stacks' stored credentials
(``user_creds.trust_id``, decrypted with ``auth_encryption_key``). :func:`named`
looks in the cloud for what carries the stacks' name prefix, for what a database
lost track of.

:func:`remove` deletes in the order the cloud accepts: servers first (waited for:
they hold ports and volumes), ports (every port of the networks too), subnets,
networks, volumes (once detached; forced by the admin if they stay in use), then
trusts, stack domain users and their projects. Already-gone objects are skipped.
:func:`existing` answers which of them the cloud still has.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import Any

from sqlalchemy import bindparam, create_engine, text

from hotplate.db.crypt import SecretBox

KINDS = ("server", "port", "subnet", "network", "volume", "trust", "user", "project")
"""Each kind, in the order to delete."""
HEAT_TYPES = {"OS::Nova::Server": "server", "OS::Neutron::Port": "port",
              "OS::Neutron::Subnet": "subnet", "OS::Neutron::Net": "network",
              "OS::Cinder::Volume": "volume"}
"""Heat's types whose physical id is a cloud object of a kind above."""
GONE_WAIT = 180.0
"""Seconds a server's delete, or a volume's detach, may take."""

STACK_DOMAIN = "heat"
"""The cloud's stack user domain (``stack_user_domain_name``)."""

Found = dict[str, set[str]]


def empty() -> Found:
    return {kind: set() for kind in KINDS}


def merge(*found: Found) -> Found:
    merged = empty()
    for one in found:
        for kind, ids in one.items():
            merged[kind] |= ids
    return merged


# -- Heat's database ---------------------------------------------------------------------
def stack_tree(conn: Any, top: Iterable[str]) -> list[dict[str, Any]]:
    """The stack rows of ``top`` and every stack nested under them (deleted ones too)."""
    rows: dict[str, dict[str, Any]] = {}
    asked: set[str] = set()
    frontier = set(top)
    while frontier:
        asked |= frontier
        found = conn.execute(text(
            "SELECT id, owner_id, user_creds_id, stack_user_project_id FROM stack "
            "WHERE id IN :ids OR owner_id IN :ids").bindparams(
                bindparam("ids", expanding=True)), {"ids": sorted(frontier)}).mappings().all()
        rows.update({row["id"]: dict(row) for row in found})
        frontier = set(rows) - asked
    return list(rows.values())


def _types_of(conn: Any, template_ids: set[int]) -> dict[tuple[int, str], str]:
    """(template id, resource name) -> the type that template gives the resource."""
    if not template_ids:
        return {}
    rows = conn.execute(text("SELECT id, template FROM raw_template WHERE id IN :ids")
                        .bindparams(bindparam("ids", expanding=True)),
                        {"ids": sorted(template_ids)}).all()
    types = {}
    for template_id, body in rows:
        template = json.loads(body) if isinstance(body, str) else body
        for name, definition in (template.get("resources") or {}).items():
            types[(template_id, name)] = str(definition.get("type", ""))
    return types


def recorded(url: str, top: Iterable[str], key: str) -> Found:
    """The cloud objects, trusts and stack domain users Heat's rows name for ``top``."""
    found = empty()
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            stacks = stack_tree(conn, top)
            if not stacks:
                return found
            _stack_rows(conn, stacks, key, found)
            _resource_rows(conn, [s["id"] for s in stacks], found)
    finally:
        engine.dispose()
    return found


def forget(url: str, top: Iterable[str]) -> None:
    """Mark ``top`` and its nested stacks deleted in Heat's database, as Heat's own
    delete ends (DELETE COMPLETE, ``deleted_at`` set): once their objects are gone,
    a later import from the same database must not see them as live."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            ids = [s["id"] for s in stack_tree(conn, top)]
            if ids:
                conn.execute(text(
                    "UPDATE stack SET action = 'DELETE', status = 'COMPLETE', "
                    "status_reason = 'removed by the test cleanup', "
                    "deleted_at = UTC_TIMESTAMP() WHERE id IN :ids AND deleted_at IS NULL")
                    .bindparams(bindparam("ids", expanding=True)), {"ids": ids})
    finally:
        engine.dispose()


def _stack_rows(conn: Any, stacks: list[dict[str, Any]], key: str, found: Found) -> None:
    found["project"] |= {s["stack_user_project_id"] for s in stacks
                         if s["stack_user_project_id"]}
    creds = {s["user_creds_id"] for s in stacks if s["user_creds_id"]}
    if not creds:
        return
    box = SecretBox(key)
    for method, trust in conn.execute(
            text("SELECT decrypt_method, trust_id FROM user_creds WHERE id IN :ids")
            .bindparams(bindparam("ids", expanding=True)), {"ids": sorted(creds)}).all():
        if trust:
            found["trust"].add(box.decrypt(method, trust, what="user_creds.trust_id"))


def _resource_rows(conn: Any, stack_ids: list[str], found: Found) -> None:
    rows = conn.execute(text(
        "SELECT id, name, nova_instance, current_template_id FROM resource "
        "WHERE stack_id IN :ids").bindparams(bindparam("ids", expanding=True)),
        {"ids": stack_ids}).all()
    types = _types_of(conn, {r[3] for r in rows if r[3] is not None})
    for _, name, physical, template_id in rows:
        kind = HEAT_TYPES.get(types.get((template_id, name), ""))
        if kind and physical:
            found[kind].add(str(physical))
    if not rows:
        return
    data = conn.execute(text(
        "SELECT `key`, value FROM resource_data WHERE resource_id IN :ids "
        "AND `key` IN ('internal_ports', 'external_ports', 'user_id')").bindparams(
            bindparam("ids", expanding=True)), {"ids": [r[0] for r in rows]}).all()
    for data_key, value in data:
        if data_key == "user_id":
            found["user"].add(str(value))
        else:
            found["port"] |= {str(port["id"]) for port in json.loads(value or "[]")}


# -- the cloud ---------------------------------------------------------------------------
def named(admin: Any, project_id: str, prefix: str, stack_ids: Iterable[str] = ()) -> Found:
    """What the project holds whose name starts with ``prefix`` (Heat names what it
    makes after its stack), the ports of those servers, and the stack domain's users
    so named and projects named after ``stack_ids`` (``<project id>-<stack id>``)."""
    found = empty()

    def mine(items: Iterable[Any]) -> set[str]:
        return {str(i.id) for i in items if str(i.name or "").startswith(prefix)}

    found["server"] = mine(admin.compute.servers(all_projects=True, project_id=project_id))
    found["volume"] = mine(admin.block_storage.volumes(all_projects=True,
                                                       project_id=project_id))
    found["network"] = mine(admin.network.networks(project_id=project_id))
    found["subnet"] = mine(admin.network.subnets(project_id=project_id))
    found["port"] = mine(admin.network.ports(project_id=project_id))
    for domain in admin.identity.domains(name=STACK_DOMAIN):
        found["user"] = mine(admin.identity.users(domain_id=domain.id))
        projects = {f"{project_id}-{stack}"[:64] for stack in stack_ids}
        found["project"] = {str(p.id) for p in admin.identity.projects(domain_id=domain.id)
                            if p.name in projects}
    for server in found["server"]:
        found["port"] |= {str(p.id) for p in admin.network.ports(device_id=server)}
    return found


def _getter(admin: Any, kind: str) -> Callable[[str], Any]:
    return {"server": admin.compute.get_server, "port": admin.network.get_port,
            "subnet": admin.network.get_subnet, "network": admin.network.get_network,
            "volume": admin.block_storage.get_volume, "trust": admin.identity.get_trust,
            "user": admin.identity.get_user, "project": admin.identity.get_project}[kind]


def _exists(get: Callable[[str], Any], ident: str) -> bool:
    from openstack.exceptions import NotFoundException

    try:
        get(ident)
    except NotFoundException:
        return False
    return True


def existing(admin: Any, found: Found) -> Found:
    """Which of ``found`` the cloud still has."""
    return {kind: {i for i in sorted(found.get(kind, ())) if _exists(_getter(admin, kind), i)}
            for kind in KINDS}


def _until_gone(admin: Any, kind: str, idents: set[str]) -> None:
    deadline = time.monotonic() + GONE_WAIT
    while idents and time.monotonic() < deadline:
        idents = {i for i in idents if _exists(_getter(admin, kind), i)}
        if idents:
            time.sleep(1.0)


def _remove_volumes(admin: Any, idents: set[str]) -> None:
    """Delete each volume once its server let go of it; force it after ``GONE_WAIT``."""
    storage = admin.block_storage
    deadline = time.monotonic() + GONE_WAIT
    waiting = set(idents)
    while waiting:
        for ident in sorted(waiting):
            with suppress(Exception):
                volume = storage.get_volume(ident)
                if volume.status in ("available", "error") or time.monotonic() > deadline:
                    storage.delete_volume(ident, force=volume.status not in
                                          ("available", "error"))
                    waiting.discard(ident)
                continue
            waiting.discard(ident)  # not found (or not readable): nothing to wait for
        if waiting:
            time.sleep(1.0)
    _until_gone(admin, "volume", set(idents))


def remove(admin: Any, found: Found) -> None:
    """Delete everything in ``found`` the cloud still has, in an order it accepts."""
    net, identity = admin.network, admin.identity
    live = existing(admin, found)
    for ident in live["server"]:
        with suppress(Exception):
            admin.compute.delete_server(ident)
    _until_gone(admin, "server", live["server"])
    ports = set(live["port"])
    for network in live["network"]:
        ports |= {str(p.id) for p in net.ports(network_id=network)
                  if not str(p.device_owner or "").startswith("network:")}
    deleters: list[tuple[set[str], Callable[[str], Any]]] = [
        (ports, net.delete_port), (live["subnet"], net.delete_subnet),
        (live["network"], net.delete_network)]
    for idents, delete in deleters:
        for ident in sorted(idents):
            with suppress(Exception):
                delete(ident)
    _remove_volumes(admin, live["volume"])
    for idents, delete in ((live["trust"], identity.delete_trust),
                           (live["user"], identity.delete_user),
                           (live["project"], identity.delete_project)):
        for ident in sorted(idents):
            with suppress(Exception):
                delete(ident)
