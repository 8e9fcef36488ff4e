"""The ports of an OS::Nova::Server (the bookkeeping of Heat's ``server_network_mixin``).

The resource data keeps two lists, each as Heat keeps it (JSON, ``[{"id": ...}]``):

- ``internal_ports``: the ports Heat makes itself, for a network entry with a
  ``subnet`` or ``port_extra_properties``; recorded as soon as Neutron answers,
  deleted with the server (or once detached by an update). Each is marked with
  a tag of the action's attempt and its entry (``attempt_marks.part_tag``), so
  a create retried after its engine died takes the port it made before;
- ``external_ports``: the ports Nova made for the server, recorded once it is
  ACTIVE (and after an update); Nova deletes them.

On a replacement both are handed over: detached from the old server so the new
one can take them, and taken back by the old one on rollback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.openstack.attempt_marks import part_tag
from hotplate.resources.openstack.cloud_errors import is_conflict
from hotplate.resources.openstack.neutron.api import NeutronApi, ignoring
from hotplate.resources.openstack.nova.base import NovaResource, is_not_found

__all__ = ["EXTERNAL", "INTERNAL", "ServerPorts", "without_empty"]

INTERNAL, EXTERNAL = "internal_ports", "external_ports"
HANDOVER_WAIT_SECS = 300.0
"""How long a rollback waits for a replacement to finish building, and for each
interface to be detached from it and attached back (Heat waits on Nova as long)."""
HANDOVER_POLL_SECS = 1.0


def without_empty(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The entry without its unset keys (None, empty text, empty map or list)."""
    return {k: v for k, v in entry.items() if v not in (None, "", {}, [])}


class ServerPorts:
    """The ports of one server resource.

    ``plugin`` gives the resource data, the cloud, and the server's id, read at each
    call (a create sets it after the first ports are made).
    """

    def __init__(self, plugin: NovaResource) -> None:
        self._plugin = plugin

    def neutron(self) -> NeutronApi:
        return NeutronApi(self._plugin.cloud)

    def ids(self, kind: str = INTERNAL) -> list[str]:
        raw = self._plugin.data().get(kind)
        return [p["id"] for p in json.loads(raw)] if raw else []

    def record(self, kind: str, ids: list[str]) -> None:
        self._plugin.data_set(kind, json.dumps([{"id": i} for i in ids]))

    def network_id(self, net: Mapping[str, Any]) -> str | None:
        """The network of a network entry: given, or its subnet's."""
        found = net.get("network") or None
        if not found and net.get("subnet"):
            subnet = self.neutron().show("subnets", "subnet", str(net["subnet"]))
            found = subnet["network_id"]
        return str(found) if found else None

    def security_group_ids(self, groups: list[str]) -> list[str]:
        return [self._plugin.cloud.find("security_group", str(g)) for g in groups]

    # -- the ports Heat makes --------------------------------------------------------------
    def create_internal(self, net: Mapping[str, Any], index: int, groups: list[str]) -> str:
        """Make the port a network entry asks for, and record it before anything else."""
        body: dict[str, Any] = {"network_id": self.network_id(net),
                                "name": f"{self._plugin.name}-port-{index}"}
        fixed: dict[str, Any] = {}
        if net.get("fixed_ip"):
            fixed["ip_address"] = net["fixed_ip"]
        if net.get("subnet"):
            fixed["subnet_id"] = net["subnet"]
        if fixed:
            body["fixed_ips"] = [fixed]
        extra = net.get("port_extra_properties") or {}
        if extra.get("no_fixed_ips"):
            body["fixed_ips"] = []
        if groups:
            body["security_groups"] = self.security_group_ids(groups)
        body.update(self._extra_body(extra))
        mark = self._mark(index)
        port = self._made_before(mark) if mark and self._plugin.attempt.retry else None
        if port is None:
            port = self.neutron().create_marked("ports", "port", body, mark)
        made = self.ids()
        if str(port["id"]) not in made:
            self.record(INTERNAL, [*made, str(port["id"])])
        return str(port["id"])

    def _mark(self, index: int) -> str | None:
        """The tag marking the port of network entry ``index`` this attempt makes; None
        where Neutron's objects take no tags."""
        token = self._plugin.attempt.token
        if not token or not self.neutron().has_extension("standard-attr-tag"):
            return None
        return part_tag(token, f"port-{index}")

    def _made_before(self, mark: str) -> dict[str, Any] | None:
        """The port an earlier try of this attempt made for the entry, by its mark."""
        found = self.neutron().find_all("ports", tags=mark)
        return found[0] if len(found) == 1 else None

    def update_internal(self, port: str, extra: Mapping[str, Any]) -> None:
        """A port this server made takes new ``port_extra_properties`` in place."""
        body = self._extra_body(extra)
        if body:
            self.neutron().update("ports", "port", port, body)

    def _extra_body(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Neutron's port fields for a network entry's ``port_extra_properties``."""
        extra = dict(given)
        extra.pop("no_fixed_ips", None)
        body: dict[str, Any] = dict(extra.pop("value_specs", None) or {})
        qos = extra.pop("qos_policy", None)
        if qos:
            body["qos_policy_id"] = self._plugin.cloud.find("qos_policy", str(qos))
        pairs = extra.pop("allowed_address_pairs", None)
        if pairs is not None:
            body["allowed_address_pairs"] = [without_empty(p) for p in pairs]
        body.update({k: v for k, v in extra.items() if v is not None})
        return body

    def associate_floating_ip(self, fip: str, port: str, fixed_ip: str | None) -> None:
        body: dict[str, Any] = {"port_id": port}
        if fixed_ip:
            body["fixed_ip_address"] = fixed_ip
        self.neutron().update("floatingips", "floatingip", fip, body)

    def delete_internal(self, port: str) -> None:
        self.neutron().delete("ports", port)
        self.record(INTERNAL, [p for p in self.ids() if p != port])

    def delete_all_internal(self) -> None:
        for port in self.ids():
            self.neutron().delete("ports", port)
        self._plugin.data_delete(INTERNAL)

    # -- the ports Nova makes --------------------------------------------------------------
    def store_external(self) -> None:
        """Record the ports Nova made for the server (Heat's ``external_ports``)."""
        internal = set(self.ids())
        ports = self.neutron().find_all("ports", device_id=str(self._plugin.resource_id))
        external = sorted(str(p["id"]) for p in ports if str(p["id"]) not in internal)
        self.record(EXTERNAL, external)

    def record_given(self, given: list[str]) -> None:
        """Record the ports the template gave as the server's external ones (those not
        made here), as Neutron would list them on the server."""
        internal = set(self.ids())
        self.record(EXTERNAL, sorted({p for p in given if p not in internal}))

    # -- handing them over on a replacement ------------------------------------------------
    def detach_all(self) -> None:
        """Let go of every port, for the replacement to take (Heat's
        prepare_ports_for_replace)."""
        nova, ident = self._plugin.nova(), self._plugin.resource_id
        for port in [*self.ids(), *self.ids(EXTERNAL)]:
            with ignoring(is_not_found):
                nova.delete(f"/servers/{ident}/os-interface/{port}")

    def take_back(self, replacement: str | None) -> None:
        """Detach each port from whichever server holds it now, and attach it here again
        (Heat's restore_ports_after_rollback).

        As Heat does, the replacement is first let finish building: a server in BUILD
        cannot give an interface up, and one still scheduling binds the port later.
        Each detach is seen through (the port let go) before the attach: Nova detaches
        asynchronously, and an attach racing it finds the port still in use.

        A replacement whose id was not recorded yet (its create cancelled while Nova
        answered) shows no holder until Nova binds the port to it, which may happen
        just before or just after the attach here: Nova then refuses the attach as in
        use, or answers that this server has no such port, or the port ends up bound
        to that server, which may end in ERROR still holding it. Each time the port is
        looked at again and taken from its holder, until it is here or the wait is over.
        """
        ident = str(self._plugin.resource_id)
        if replacement:
            self._wait_built(replacement)
        clock = self._plugin.ctx.clock
        for port in [*self.ids(), *self.ids(EXTERNAL)]:
            deadline = clock.now().timestamp() + HANDOVER_WAIT_SECS
            while (holder := self._holder(port)) != ident:
                if clock.now().timestamp() >= deadline:
                    raise HotplateError(
                        f"Failed to attach interface ({port}) to server ({ident})")
                if holder:
                    self._let_go(port, holder, built=holder == replacement)
                if not self._attached(ident, port):
                    clock.sleep(HANDOVER_POLL_SECS)

    def _let_go(self, port: str, holder: str, *, built: bool) -> None:
        """Detach ``port`` from ``holder`` (let finish building first) and see it done.
        Nova refuses to detach from a server in ERROR: the port is then unbound in
        Neutron, as Nova would unbind it."""
        if not built:
            self._wait_built(holder)
        try:
            self._plugin.nova().delete(f"/servers/{holder}/os-interface/{port}")
        except Exception as exc:
            if is_conflict(exc) and self._status(holder) == "ERROR":
                self.neutron().update("ports", "port", port,
                                      {"device_id": "", "device_owner": ""})
            elif not is_not_found(exc):
                raise
        self._wait_port(port, lambda now, was=holder: now != was,
                        f"Failed to detach interface ({port}) from server ({holder})")

    def _attached(self, ident: str, port: str) -> bool:
        """Ask Nova to attach ``port`` here; False when it lost a race to another
        server (refused as in use, or answered that this server has no such port:
        another server bound it as Nova attached it here). This server gone fails."""
        try:
            self._plugin.nova().post(f"/servers/{ident}/os-interface",
                                     {"interfaceAttachment": {"port_id": port}})
        except Exception as exc:
            if is_conflict(exc) or (is_not_found(exc) and self._status(ident) is not None):
                return False
            raise
        return True

    def _status(self, server: str) -> str | None:
        """The server's status (without a task's suffix); None when it is gone."""
        try:
            found = self._plugin.nova().server(server)
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return str(found.get("status") or "").split("(")[0]

    def _holder(self, port: str) -> str | None:
        found = self.neutron().show("ports", "port", port)
        return str(found["device_id"]) if found.get("device_id") else None

    def _wait_built(self, server: str) -> None:
        """Wait while ``server`` builds (it may end ACTIVE, in ERROR, or gone)."""
        clock = self._plugin.ctx.clock
        deadline = clock.now().timestamp() + HANDOVER_WAIT_SECS
        while clock.now().timestamp() < deadline and self._status(server) == "BUILD":
            clock.sleep(HANDOVER_POLL_SECS)

    def _wait_port(self, port: str, done: Callable[..., bool], failed: str) -> None:
        """Wait until the port's holder satisfies ``done``; Heat's text if it never does."""
        clock = self._plugin.ctx.clock
        deadline = clock.now().timestamp() + HANDOVER_WAIT_SECS
        while not done(self._holder(port)):
            if clock.now().timestamp() >= deadline:
                raise HotplateError(failed)
            clock.sleep(HANDOVER_POLL_SECS)
