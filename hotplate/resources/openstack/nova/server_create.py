"""How an OS::Nova::Server is made: the one POST /servers body, and what comes before it.

The body (``create_body``) carries, beside the plain properties: the boot data
(base64), the networks as Nova's nics (the ports Heat makes are made and recorded
first, floating IPs associated with them; none given is ``auto`` where Nova takes
it), block device mappings v1 or v2 as novaclient sends them, personality files,
scheduler hints, and the tags, with the attempt tag.

The attempt tag, derived from the action's attempt token, marks the server one
create made: a create retried after its engine died finds that server
(``made_before``) instead of making a second. A replacement whose template gives a
port its predecessor still holds waits for Nova to let go of it
(``ports_held_by_predecessor``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.openstack.attempt_marks import attempt_tag
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.nova.base import is_not_found
from hotplate.resources.openstack.nova.server_checks import (
    MICROVERSION_CREATE_TAGS,
    MICROVERSION_STR_NETWORK,
)
from hotplate.resources.openstack.nova.server_ports import ServerPorts

__all__ = ["attempt_tag", "bdm_v1", "bdm_v2", "create_body", "made_before", "meta_serialize",
           "ports_held_by_predecessor"]


def meta_serialize(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Heat's: non-string values go to Nova as JSON."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()}


def create_body(props: Mapping[str, Any], name: str, user_data: str | None, nova: NovaApi,
                ports: ServerPorts, token: str) -> dict[str, Any]:
    """The POST /servers body; makes the ports Heat makes on the way."""
    groups = list(props.get("security_groups") or [])
    server: dict[str, Any] = {"name": name,
                              "imageRef": props.get("image") or "",
                              "flavorRef": props["flavor"]}
    if user_data:
        server["user_data"] = base64.b64encode(user_data.encode()).decode()
    if props.get("key_name"):
        server["key_name"] = props["key_name"]
    if groups:
        server["security_groups"] = [{"name": g} for g in groups]
    if props.get("metadata"):
        server["metadata"] = meta_serialize(props["metadata"])
    if props.get("availability_zone"):
        server["availability_zone"] = props["availability_zone"]
    nics = _nics(list(props.get("networks") or []), groups, ports)
    if nics is not None:
        server["networks"] = nics
    elif nova.supports(MICROVERSION_STR_NETWORK):
        server["networks"] = "auto"
    if props.get("block_device_mapping"):
        server["block_device_mapping"] = bdm_v1(props["block_device_mapping"])
    if props.get("block_device_mapping_v2"):
        server["block_device_mapping_v2"] = bdm_v2(props["block_device_mapping_v2"])
    if props.get("config_drive") is not None:
        server["config_drive"] = props["config_drive"]
    if props.get("diskConfig"):
        server["OS-DCF:diskConfig"] = props["diskConfig"]
    if props.get("personality"):
        server["personality"] = [
            {"path": p, "contents": base64.b64encode(str(c).encode()).decode()}
            for p, c in props["personality"].items()]
    if props.get("admin_pass"):
        server["adminPass"] = props["admin_pass"]
    if props.get("reservation_id"):
        server["reservation_id"] = props["reservation_id"]
    tags = list(props.get("tags") or [])
    if token and nova.supports(MICROVERSION_CREATE_TAGS):
        tags.append(attempt_tag(token))
    if tags:
        server["tags"] = tags
    body: dict[str, Any] = {"server": server}
    if props.get("scheduler_hints"):
        body["os:scheduler_hints"] = _scheduler_hints(props["scheduler_hints"])
    return body


def _scheduler_hints(hints: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in hints.items() if v is not None}


def _nics(networks: list[Mapping[str, Any]], groups: list[str], ports: ServerPorts) -> Any:
    if not networks:
        return None
    for net in networks:
        if net.get("allocate_network"):
            return net["allocate_network"]
    nics: list[dict[str, Any]] = []
    for index, net in enumerate(networks):
        nic: dict[str, Any] = {}
        net_id = ports.network_id(net)
        if net.get("subnet") and net.get("network") and not net.get("port"):
            subnet_net = ports.neutron().show("subnets", "subnet",
                                              str(net["subnet"]))["network_id"]
            if subnet_net != net["network"]:
                raise StackValidationFailed(f"Specified subnet {net['subnet']} does not "
                                            f"belongs to network {net['network']}.")
        if net.get("port"):
            nic["port"] = net["port"]
        elif net.get("subnet") or net.get("port_extra_properties"):
            nic["port"] = ports.create_internal(net, index, groups)
        elif net_id:
            nic["uuid"] = net_id
        if not nic.get("port") and net.get("fixed_ip"):
            nic["fixed_ip"] = net["fixed_ip"]
        if net.get("floating_ip") and nic.get("port"):
            ports.associate_floating_ip(net["floating_ip"], nic["port"], net.get("fixed_ip"))
        if net.get("tag"):
            nic["tag"] = net["tag"]
        nics.append(nic)
    return nics


def bdm_v1(bdm: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``block_device_mapping`` as novaclient sends it."""
    found = []
    for mapping in bdm:
        item: dict[str, Any] = {"device_name": mapping.get("device_name")}
        if mapping.get("snapshot_id"):
            item.update(snapshot_id=mapping["snapshot_id"])
        else:
            item.update(volume_id=mapping.get("volume_id"))
        if mapping.get("volume_size"):
            item["volume_size"] = mapping["volume_size"]
        if mapping.get("delete_on_termination"):
            item["delete_on_termination"] = True
        found.append(item)
    return found


def bdm_v2(bdm: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``block_device_mapping_v2`` as novaclient sends it: a volume, snapshot or image
    to boot from, or a blank swap or ephemeral disk."""
    found = []
    for mapping in bdm:
        item: dict[str, Any] = {}
        for key, source in (("volume_id", "volume"), ("snapshot_id", "snapshot"),
                            ("image", "image")):
            if mapping.get(key):
                item = {"uuid": mapping[key], "source_type": source,
                        "destination_type": "volume", "boot_index": 0,
                        "delete_on_termination": False}
                break
        else:
            if mapping.get("swap_size"):
                item = {"source_type": "blank", "destination_type": "local",
                        "boot_index": -1, "delete_on_termination": True,
                        "guest_format": "swap", "volume_size": mapping["swap_size"]}
            elif mapping.get("ephemeral_size") or mapping.get("ephemeral_format"):
                item = {"source_type": "blank", "destination_type": "local",
                        "boot_index": -1, "delete_on_termination": True}
                if mapping.get("ephemeral_size"):
                    item["volume_size"] = mapping["ephemeral_size"]
                if mapping.get("ephemeral_format"):
                    item["guest_format"] = mapping["ephemeral_format"]
        if mapping.get("device_name"):
            item["device_name"] = mapping["device_name"]
        for key in ("device_type", "disk_bus", "boot_index", "volume_size",
                    "delete_on_termination", "volume_type"):
            if mapping.get(key) is not None:
                item[key] = mapping[key]
        if item:
            found.append(item)
    return found


def made_before(nova: NovaApi, token: str) -> dict[str, Any] | None:
    """The server an earlier try of this create made, by its attempt tag."""
    if not token or not nova.supports(MICROVERSION_CREATE_TAGS):
        return None
    listed = nova.get(f"/servers?tags={attempt_tag(token)}")
    servers = listed.get("servers") or []
    return servers[0] if len(servers) == 1 else None


def ports_held_by_predecessor(networks: list[Mapping[str, Any]], nova: NovaApi,
                              neutron: NeutronApi, name: str, physical_name: str) -> bool:
    """Whether a port the template gives is still bound to the server this one
    replaces: its ``prepare_for_replace`` asked Nova to let it go, and Nova takes a
    moment. Only a server of this same resource counts (its ``name``, or the physical
    name's prefix): a port another server holds fails the create at once, as in Heat."""
    prefix = physical_name.rsplit("-", 1)[0] + "-"
    for net in networks:
        if not net.get("port"):
            continue
        port = neutron.show("ports", "port", str(net["port"]))
        holder = port.get("device_id")
        if not holder or not str(port.get("device_owner") or "").startswith("compute:"):
            continue
        try:
            found = str(nova.server(str(holder)).get("name") or "")
        except Exception as exc:
            if is_not_found(exc):
                continue
            raise
        if found == name or found.startswith(prefix):
            return True
    return False
