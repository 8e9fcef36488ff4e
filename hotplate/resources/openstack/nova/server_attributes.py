"""OS::Nova::Server's attributes read from the server as Nova has it (Heat's
``_resolve_attribute``).

``networks`` and ``first_address`` come from the server's ``addresses`` (each
network label's addresses, as novaclient's ``server.networks``); ``addresses``
from Neutron: each port of the server, its fixed IPs and the floating IPs on them,
with the port's network and subnets. Both give each network under its id too.
A console URL that cannot be had reads as its error, as in Heat.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from hotplate.resources.openstack.attempt_marks import tags_without_marks
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.nova.base import NovaResource

__all__ = ["CONSOLES", "server_attribute"]

CONSOLES = {"novnc": ("vnc", "novnc"), "xvpvnc": ("vnc", "xvpvnc"),
            "spice-html5": ("spice", "spice-html5"), "rdp-html5": ("rdp", "rdp-html5"),
            "serial": ("serial", "serial"), "webmks": ("mks", "webmks")}


def server_attribute(plugin: NovaResource, name: str, server: Mapping[str, Any]) -> Any:
    """The attribute ``name`` of ``plugin``'s server, ``server`` being Nova's document
    of it (None for a name it does not answer)."""
    if name == "first_address":
        networks = _networks(server)
        for label in sorted(networks, reverse=True):
            if networks[label]:
                return networks[label][0]
        return ""
    if name == "addresses":
        return _extend(plugin, _addresses(plugin))
    if name == "networks":
        return _extend(plugin, _networks(server))
    if name == "instance_name":
        return server.get("OS-EXT-SRV-ATTR:instance_name")
    if name in ("accessIPv4", "accessIPv6"):
        return server.get(name)
    if name == "console_urls":
        return {kind: _console_url(plugin, kind) for kind in CONSOLES}
    if name == "tags":
        return tags_without_marks(
            plugin.nova().get(f"/servers/{plugin.resource_id}/tags").get("tags", []))
    return None


def _networks(server: Mapping[str, Any]) -> dict[str, list[str]]:
    """novaclient's ``server.networks``: each network label's addresses."""
    return {label: [a["addr"] for a in addrs]
            for label, addrs in (server.get("addresses") or {}).items()}


def _extend(plugin: NovaResource, nets: dict[str, Any]) -> dict[str, Any]:
    """Each network also under its id (Heat's _extend_networks)."""
    extended = dict(nets)
    for label in list(nets):
        try:
            extended[plugin.cloud.find("network", label)] = nets[label]
        except Exception as exc:
            if getattr(exc, "status", None) not in (404, None):
                raise
    return extended


def _addresses(plugin: NovaResource) -> dict[str, list[dict[str, Any]]]:
    api = NeutronApi(plugin.cloud)
    nets: dict[str, list[dict[str, Any]]] = {}
    for port in api.find_all("ports", device_id=str(plugin.resource_id)):
        network = api.show("networks", "network", port["network_id"])
        found = nets.setdefault(network["name"], [])
        for fixed in port.get("fixed_ips", []):
            ip = fixed.get("ip_address")
            try:
                version: Any = (ipaddress.ip_address(ip).version,)  # a 1-tuple, as Heat's
            except ValueError:
                version = None
            addr = {"addr": ip, "OS-EXT-IPS-MAC:mac_addr": port["mac_address"],
                    "OS-EXT-IPS:type": "fixed", "port": port["id"], "version": version}
            if ip:
                for fip in api.find_all("floatingips", fixed_ip_address=str(ip)):
                    found.append({"addr": fip["floating_ip_address"], "version": version,
                                  "OS-EXT-IPS-MAC:mac_addr": port["mac_address"],
                                  "OS-EXT-IPS:type": "floating", "port": None})
            addr["subnets"] = [api.show("subnets", "subnet", f["subnet_id"])
                               for f in port.get("fixed_ips", []) if f.get("subnet_id")]
            addr["network"] = network
            found.append(addr)
    return nets


def _console_url(plugin: NovaResource, kind: str) -> str:
    protocol, console = CONSOLES[kind]
    try:
        made = plugin.nova().post(f"/servers/{plugin.resource_id}/remote-consoles",
                                  {"remote_console": {"protocol": protocol,
                                                      "type": console}})
        return str((made.get("remote_console") or made.get("console") or {})["url"])
    except Exception as exc:
        return f"Cannot get console url: {exc}"
