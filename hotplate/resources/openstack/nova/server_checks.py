"""OS::Nova::Server's checks (Heat's ``validate`` and ``add_dependencies``).

Three kinds, by what they need:

- ``check_properties``: what a template's properties alone can get wrong (block
  devices, network entries, conflicting properties, a refused config transport);
  asked at validation, no cloud.
- ``check_versions``: what the compute service's microversion must offer for the
  properties given (``allocate_network``, ``personality``, ``tags``, a volume
  type); asked at create, since it needs the cloud.
- ``implicit_requires``: the subnets a server waits for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.deployed_server import POLL_SERVER_HEAT, REFUSED_TRANSPORTS
from hotplate.resources.openstack.neutron.base import either, peers_of
from hotplate.resources.openstack.neutron.subnet import Subnet
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.properties import PropertyPath
from hotplate.resources.signal_responder import keystone_signals_served
from hotplate.template.implicit_deps import Peer

__all__ = ["MICROVERSION_CREATE_TAGS", "MICROVERSION_NIC_TAGS",
           "MICROVERSION_PERSONALITY_REMOVED", "MICROVERSION_STR_NETWORK", "MICROVERSION_TAGS",
           "MICROVERSION_VOLUME_TYPE", "ResourcePropertyConflict", "check_properties",
           "check_versions", "implicit_requires"]

MICROVERSION_TAGS = "2.26"
MICROVERSION_CREATE_TAGS = "2.52"
MICROVERSION_STR_NETWORK = "2.37"
MICROVERSION_NIC_TAGS = "2.42"
MICROVERSION_PERSONALITY_REMOVED = "2.57"
MICROVERSION_VOLUME_TYPE = "2.67"


class ResourcePropertyConflict(StackValidationFailed):
    def __init__(self, *names: str, path: PropertyPath = ()) -> None:
        super().__init__("Cannot define the following properties at the same time: "
                         f"{', '.join(names)}.", path)


def check_properties(props: Mapping[str, Any], path: PropertyPath) -> None:
    """Refuse, with Heat's texts, what the properties alone get wrong."""
    _check_block_devices(props, path)
    networks = props.get("networks") or []
    for net in networks:
        _check_network(net, path)
    allocating = [n for n in networks if n.get("allocate_network")]
    if allocating and len(networks) != 1:
        raise StackValidationFailed('Property "allocate_network" can not be specified if '
                                    "multiple network interfaces set for server.")
    if any(n.get("port") is not None for n in networks) and props.get("security_groups"):
        raise ResourcePropertyConflict("security_groups", "networks/port")
    if (props.get("user_data_format") == "SOFTWARE_CONFIG"
            and props.get("software_config_transport") == POLL_SERVER_HEAT
            and not keystone_signals_served()):
        raise StackValidationFailed(REFUSED_TRANSPORTS[POLL_SERVER_HEAT],
                                    (*path, "software_config_transport"))


def implicit_requires(me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
    """Heat's add_dependencies: every subnet of a network the server is on, and any
    subnet whose network is not known yet (which one gives the address is Neutron's
    choice)."""
    nets = me.properties.get("networks")
    if not isinstance(nets, list) or not nets:
        return []
    found = []
    for subnet in peers_of(peers, Subnet):
        subnet_net = either(subnet.properties, "network", "network_id")
        for net in nets:
            net_id = either(net, "network", "uuid") if isinstance(net, Mapping) else None
            if not subnet_net or not net_id or net_id == subnet_net:
                found.append(subnet.name)
                break
    return found


_BOOT_SOURCES = ("image", "block_device_mapping", "block_device_mapping_v2")
"""Properties that may give a server what it boots from; one absent from the checked
properties is not known yet (``Resource.validate_known`` leaves such keys out)."""


def _check_block_devices(props: Mapping[str, Any], path: PropertyPath) -> None:
    bdm = props.get("block_device_mapping") or []
    bdm_v2 = props.get("block_device_mapping_v2") or []
    image = props.get("image")
    if bdm and bdm_v2:
        raise ResourcePropertyConflict("block_device_mapping", "block_device_mapping_v2")
    bootable = image is not None
    for mapping in bdm:
        if mapping.get("device_name") == "vda":
            bootable = True
        volume, snapshot = mapping.get("volume_id"), mapping.get("snapshot_id")
        if volume is not None and snapshot is not None:
            raise ResourcePropertyConflict("volume_id", "snapshot_id")
        if volume is None and snapshot is None:
            raise StackValidationFailed("Either volume_id or snapshot_id must be specified "
                                        f"for device mapping {mapping.get('device_name')}")
    bootable_devs = [image]
    for mapping in bdm_v2:
        sources = (mapping.get("volume_id"), mapping.get("snapshot_id"),
                   mapping.get("image"), mapping.get("swap_size"),
                   mapping.get("ephemeral_size") or mapping.get("ephemeral_format"))
        if sources.count(None) < 4:
            raise ResourcePropertyConflict("volume_id", "snapshot_id", "image",
                                           "swap_size", "ephemeral_size",
                                           "ephemeral_format")
        if sources.count(None) == 5:
            raise StackValidationFailed("Either volume_id, snapshot_id, image_id, "
                                        "swap_size, ephemeral_size or ephemeral_format "
                                        "must be specified.")
        if any(s is not None for s in sources[:3]) and mapping.get("boot_index") in (None, 0):
            bootable = True
            bootable_devs.extend(sources[:3])
    if any(key not in props for key in _BOOT_SOURCES):
        # A source still to be made by the stack (a volume of its own): Heat counts it
        # as given, and the create finds out.
        return
    if not bootable:
        raise StackValidationFailed("Neither image nor bootable volume is specified for "
                                    f"instance {path[1] if len(path) > 1 else ''}")
    if bdm_v2 and len([d for d in bootable_devs if d is not None]) != 1:
        raise StackValidationFailed("Multiple bootable sources for instance "
                                    f"{path[1] if len(path) > 1 else ''}.")


def _check_network(net: Mapping[str, Any], path: PropertyPath) -> None:
    server = path[1] if len(path) > 1 else ""
    if (net.get("network") is None and net.get("port") is None
            and net.get("subnet") is None and not net.get("allocate_network")):
        raise StackValidationFailed(
            'One of the properties "network", "port", "allocate_network" or "subnet" '
            f'should be set for the specified network of server "{server}".')
    if net.get("allocate_network") and len([v for v in net.values() if v is not None]) != 1:
        raise StackValidationFailed('Can not specify "allocate_network" with other keys '
                                    "of networks at the same time.")
    if net.get("fixed_ip") and net.get("port") is not None:
        raise ResourcePropertyConflict("networks/fixed_ip", "networks/port")
    if (net.get("floating_ip") is not None and net.get("network") is not None
            and net.get("port") is None and net.get("subnet") is None
            and not net.get("port_extra_properties")):
        raise StackValidationFailed(
            'Property "floating_ip" is not supported if only "network" is specified, '
            "because the corresponding port can not be retrieved.")


def check_versions(api: NovaApi, props: Mapping[str, Any]) -> None:
    """Heat's microversion checks (at create here: they need the cloud)."""
    networks = props.get("networks") or []
    if any(n.get("allocate_network") for n in networks) and not api.supports(
            MICROVERSION_STR_NETWORK):
        raise StackValidationFailed('Cannot use "allocate_network" property - compute '
                                    "service does not support the required api "
                                    "microversion.")
    if props.get("personality") and api.supports(MICROVERSION_PERSONALITY_REMOVED):
        raise StackValidationFailed("Cannot use the personality parameter as nova no "
                                    "longer supports it. Use user_data instead.")
    if props.get("tags") and not api.supports(MICROVERSION_TAGS):
        raise StackValidationFailed('Cannot use "tags" property - nova does not support '
                                    "required api microversion.")
    if any(m.get("volume_type") for m in props.get("block_device_mapping_v2") or []) \
            and not api.supports(MICROVERSION_VOLUME_TYPE):
        raise StackValidationFailed('Cannot use "volume_type" property in '
                                    "block_device_mapping_v2 - nova does not support "
                                    "required api microversion 2.67.")
