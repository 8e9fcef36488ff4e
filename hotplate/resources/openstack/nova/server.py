"""OS::Nova::Server (Heat's ``server.py`` and ``server_network_mixin.py``).

Create: the ports Heat makes itself (a network entry with a ``subnet`` or
``port_extra_properties``) are made first and recorded (``internal_ports``),
floating IPs associated with them, then one POST /servers with the boot data
(``user_data``), block device mappings, networks and tags. The server is
marked with a tag derived from the action's attempt token (microversion 2.52
takes tags at create), so a create retried after its engine died finds the
server the earlier try made instead of making a second one; the tag is hidden
from the ``tags`` attribute and kept across tag updates.

Waiting parks: ACTIVE ends the create, ERROR fails it at once with Nova's
fault (``Went to status ERROR due to "Message: ..., Code: ..."``), a
building server is asked again after ``BUILD_POLL_SECS``. On ACTIVE the ports
Nova made are recorded too (``external_ports``).

Update in place: ``name``, ``metadata``, ``tags``, ``admin_pass`` at once;
``networks`` by interface detach/attach; ``flavor`` by resize, wait for
VERIFY_RESIZE, confirm, wait for ACTIVE (``flavor_update_policy: RESIZE``);
``image`` by rebuild (``REBUILD``/``REBUILD_PRESERVE_EPHEMERAL``); ``user_data``
by nothing (``IGNORE``) or a rebuild with the new data (``REBUILD``). The
``REPLACE`` policies, and any other change, replace the server. The slow
steps run one after another, each parked until Nova is done.

Delete: DELETE (gone is fine), then until Nova no longer has it; then the
ports Heat made are deleted. With ``deletion_policy: Snapshot`` the engine's
snapshot hook (``handle_snapshot_delete``) first saves an image, which stays.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import ipaddress
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.resources.base import DEPLOYMENTS, CheckAgain, CheckResult
from hotplate.resources.deployed_server import (
    POLL_SERVER_HEAT,
    POLL_TEMP_URL,
    REFUSED_TRANSPORTS,
    ZAQAR_MESSAGE,
    DeployedServer,
)
from hotplate.resources.openstack.neutron.api import NeutronApi, ignoring
from hotplate.resources.openstack.neutron.base import either, peers_of
from hotplate.resources.openstack.neutron.subnet import Subnet
from hotplate.resources.openstack.nova import status as st
from hotplate.resources.openstack.nova.base import EndpointNotFound, NovaResource, is_not_found
from hotplate.resources.openstack.nova.server_schema import (
    ATTRIBUTES,
    PROPERTIES,
    RULES,
)
from hotplate.resources.openstack.nova.user_data import build_userdata
from hotplate.resources.properties import PropertyPath
from hotplate.resources.signal_responder import keystone_signals_served, signal_endpoints
from hotplate.resources.signals import row_metadata
from hotplate.resources.software_port import ConfigNotFound, software_configs
from hotplate.template.implicit_deps import Peer

__all__ = ["Server"]

MICROVERSION_TAGS = "2.26"
MICROVERSION_CREATE_TAGS = "2.52"
MICROVERSION_STR_NETWORK = "2.37"
MICROVERSION_NIC_TAGS = "2.42"
MICROVERSION_PERSONALITY_REMOVED = "2.57"
MICROVERSION_VOLUME_TYPE = "2.67"
BUILD_POLL_SECS = 2.0
"""How long a building server is left before the next look (a fake host builds in
seconds; a real one in tens of seconds, so the look is cheap either way)."""
DELETE_POLL_SECS = 1.0
PORT_HANDOVER_SECS = 60.0
"""How long a replacement waits for its predecessor to let go of a given port; then
the create goes ahead, and fails with Nova's 409 if the port is still bound."""
INTERNAL, EXTERNAL = "internal_ports", "external_ports"
OCC = "os-collect-config"
CONSOLES = {"novnc": ("vnc", "novnc"), "xvpvnc": ("vnc", "xvpvnc"),
            "spice-html5": ("spice", "spice-html5"), "rdp-html5": ("rdp", "rdp-html5"),
            "serial": ("serial", "serial"), "webmks": ("mks", "webmks")}
_MANAGED_NET_KEYS = ("port", "network", "fixed_ip", "subnet")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")


class ResourcePropertyConflict(StackValidationFailed):
    def __init__(self, *names: str, path: PropertyPath = ()) -> None:
        super().__init__("Cannot define the following properties at the same time: "
                         f"{', '.join(names)}.", path)


def attempt_tag(token: str) -> str:
    """The tag that marks the server one action made (Nova's tags: at most 60 chars)."""
    return "hotplate-" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _clean(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if v not in (None, "", {}, [])}


@dataclass
class Step:
    """One slow update step: ``kind`` started (``called``) and then waited on."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    called: bool = False


class Server(NovaResource):
    """A resource for managing Nova instances.

    A Server resource manages the running virtual machine instance within an
    OpenStack cloud.
    """

    path = "/servers"
    entity = "server"
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES
    translation_rules = RULES
    managed_metadata = frozenset({OCC, DEPLOYMENTS})

    # -- validation (Heat's validate, the parts that need no cloud) -----------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        cls._check_block_devices(props, path)
        networks = props.get("networks") or []
        for net in networks:
            cls._check_network(net, path)
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

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
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

    @classmethod
    def _check_block_devices(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
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
            if any(s is not None for s in sources[:3]) and mapping.get("boot_index") in (None,
                                                                                        0):
                bootable = True
                bootable_devs.extend(sources[:3])
        if not bootable:
            raise StackValidationFailed("Neither image nor bootable volume is specified for "
                                        f"instance {path[1] if len(path) > 1 else ''}")
        if bdm_v2 and len([d for d in bootable_devs if d is not None]) != 1:
            raise StackValidationFailed("Multiple bootable sources for instance "
                                        f"{path[1] if len(path) > 1 else ''}.")

    @classmethod
    def _check_network(cls, net: Mapping[str, Any], path: PropertyPath) -> None:
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

    def _check_versions(self) -> None:
        """Heat's microversion checks (at create here: they need the cloud)."""
        api = self.nova()
        props = self.properties
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

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        def policy(key: str) -> Any:
            return new.get(key) or old.get(key)

        if "flavor" in changed and policy("flavor_update_policy") == "REPLACE":
            return True
        if "image" in changed and policy("image_update_policy") == "REPLACE":
            return True
        return "user_data" in changed and policy("user_data_update_policy") in (None,
                                                                                 "REPLACE")

    def needs_replace_failed(self) -> bool:
        """Heat's hook: a FAILED server is replaced only when it is gone or broken (ERROR,
        DELETED, SOFT_DELETED); an engine that asks keeps a server that is fine."""
        if self.resource_id is None:
            return True
        server = self._fetch()
        return server is None or st.status_of(server) in ("ERROR", "DELETED", "SOFT_DELETED")

    # -- helpers ---------------------------------------------------------------------------
    def neutron(self) -> NeutronApi:
        return NeutronApi(self.cloud)

    def _server_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def _ports(self, kind: str = INTERNAL) -> list[str]:
        raw = self.data().get(kind)
        return [p["id"] for p in json.loads(raw)] if raw else []

    def _set_ports(self, kind: str, ids: list[str]) -> None:
        self.data_set(kind, json.dumps([{"id": i} for i in ids]))

    def _fetch(self) -> dict[str, Any] | None:
        try:
            return self.nova().server(str(self.resource_id))
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def _metadata(self) -> dict[str, Any]:
        getter = getattr(self.ctx, "metadata_get", None)
        found = getter() if callable(getter) else {}
        return dict(found or {})

    @staticmethod
    def meta_serialize(metadata: Mapping[str, Any]) -> dict[str, str]:
        """Heat's: non-string values go to Nova as JSON."""
        return {k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()}

    # -- create ----------------------------------------------------------------------------
    def _user_data(self) -> str | None:
        props = self.properties
        fmt = str(props["user_data_format"])
        content = str(props.get("user_data") or "")
        if fmt in ("RAW", "SOFTWARE_CONFIG") and _UUID.match(content):
            # A software config's id (get_resource of a CloudConfig...): its config, as
            # Heat loads it; an id no config has stays the text it is.
            with contextlib.suppress(ConfigNotFound):
                content = str(software_configs(self).show_config(content).get("config") or "")
        metadata = self._metadata()
        if fmt == "SOFTWARE_CONFIG":
            metadata = self._software_config_metadata(metadata)
        url = ""
        if fmt == "HEAT_CFNTOOLS":
            url = self._metadata_url()
        return build_userdata(fmt, content, metadata, url)

    def _metadata_url(self) -> str:
        try:
            return signal_endpoints(self).metadata_server_url()
        except Exception:
            return ""

    def _software_config_metadata(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """What an agent polling this server needs (Heat's _populate_deployments_metadata):
        the collector configuration ``OS::Heat::DeployedServer`` writes, in the row's
        metadata and in the boot data. POLL_TEMP_URL and ZAQAR_MESSAGE need Swift and
        Zaqar, which fail here as Heat's clients do when the catalog lacks them."""
        transport = self._transport()
        needs = {POLL_TEMP_URL: ("swift", "object-store"),
                 ZAQAR_MESSAGE: ("zaqar", "messaging")}.get(transport)
        if needs is not None:
            if not self.cloud.endpoint_exists(*needs):
                raise EndpointNotFound()
            raise HotplateError(REFUSED_TRANSPORTS[transport])
        DeployedServer._populate_collector_metadata(self)  # type: ignore[arg-type]
        written = row_metadata(self).metadata_get()
        return {**metadata, **written} if written else metadata

    def _transport(self) -> str:
        return str(self.properties.get("software_config_transport")
                   or signal_endpoints(self).default_software_config_transport())

    def collector_config(self) -> dict[str, Any]:
        """os-collect-config's configuration for this server (DeployedServer's)."""
        found: dict[str, Any] = DeployedServer.collector_config(self)  # type: ignore[arg-type]
        return found

    def _network_id(self, net: Mapping[str, Any]) -> str | None:
        found = net.get("network") or None
        if not found and net.get("subnet"):
            subnet = self.neutron().show("subnets", "subnet", str(net["subnet"]))
            found = subnet["network_id"]
        return str(found) if found else None

    def _security_group_ids(self, groups: list[str]) -> list[str]:
        return [self.cloud.find("security_group", str(g)) for g in groups]

    def _create_internal_port(self, net: Mapping[str, Any], index: int,
                              groups: list[str]) -> str:
        body: dict[str, Any] = {"network_id": self._network_id(net),
                                "name": f"{self.name}-port-{index}"}
        fixed: dict[str, Any] = {}
        if net.get("fixed_ip"):
            fixed["ip_address"] = net["fixed_ip"]
        if net.get("subnet"):
            fixed["subnet_id"] = net["subnet"]
        if fixed:
            body["fixed_ips"] = [fixed]
        extra = dict(net.get("port_extra_properties") or {})
        if extra.pop("no_fixed_ips", False):
            body["fixed_ips"] = []
        if groups:
            body["security_groups"] = self._security_group_ids(groups)
        body.update(extra.pop("value_specs", None) or {})
        qos = extra.pop("qos_policy", None)
        if qos:
            body["qos_policy_id"] = self.cloud.find("qos_policy", str(qos))
        pairs = extra.pop("allowed_address_pairs", None)
        if pairs is not None:
            body["allowed_address_pairs"] = [_clean(p) for p in pairs]
        body.update({k: v for k, v in extra.items() if v is not None})
        port = self.neutron().create("ports", "port", body)
        self._set_ports(INTERNAL, [*self._ports(), str(port["id"])])
        return str(port["id"])

    def _associate_floating_ip(self, fip: str, port: str, fixed_ip: str | None) -> None:
        body: dict[str, Any] = {"port_id": port}
        if fixed_ip:
            body["fixed_ip_address"] = fixed_ip
        self.neutron().update("floatingips", "floatingip", fip, body)

    def _nics(self, networks: list[Mapping[str, Any]], groups: list[str]) -> Any:
        if not networks:
            return None
        for net in networks:
            if net.get("allocate_network"):
                return net["allocate_network"]
        nics: list[dict[str, Any]] = []
        for index, net in enumerate(networks):
            nic: dict[str, Any] = {}
            net_id = self._network_id(net)
            if net.get("subnet") and net.get("network") and not net.get("port"):
                subnet_net = self.neutron().show("subnets", "subnet",
                                                 str(net["subnet"]))["network_id"]
                if subnet_net != net["network"]:
                    raise StackValidationFailed(f"Specified subnet {net['subnet']} does not "
                                                f"belongs to network {net['network']}.")
            if net.get("port"):
                nic["port"] = net["port"]
            elif net.get("subnet") or net.get("port_extra_properties"):
                nic["port"] = self._create_internal_port(net, index, groups)
            elif net_id:
                nic["uuid"] = net_id
            if not nic.get("port") and net.get("fixed_ip"):
                nic["fixed_ip"] = net["fixed_ip"]
            if net.get("floating_ip") and nic.get("port"):
                self._associate_floating_ip(net["floating_ip"], nic["port"], net.get("fixed_ip"))
            if net.get("tag"):
                nic["tag"] = net["tag"]
            nics.append(nic)
        return nics

    @staticmethod
    def _bdm_v1(bdm: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
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

    @staticmethod
    def _bdm_v2(bdm: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
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

    def _create_body(self) -> dict[str, Any]:
        props = self.properties
        groups = list(props.get("security_groups") or [])
        server: dict[str, Any] = {"name": self._server_name(),
                                  "imageRef": props.get("image") or "",
                                  "flavorRef": props["flavor"]}
        user_data = self._user_data()
        if user_data:
            server["user_data"] = base64.b64encode(user_data.encode()).decode()
        if props.get("key_name"):
            server["key_name"] = props["key_name"]
        if groups:
            server["security_groups"] = [{"name": g} for g in groups]
        if props.get("metadata"):
            server["metadata"] = self.meta_serialize(props["metadata"])
        if props.get("availability_zone"):
            server["availability_zone"] = props["availability_zone"]
        nics = self._nics(list(props.get("networks") or []), groups)
        if nics is not None:
            server["networks"] = nics
        elif self.nova().supports(MICROVERSION_STR_NETWORK):
            server["networks"] = "auto"
        if props.get("block_device_mapping"):
            server["block_device_mapping"] = self._bdm_v1(props["block_device_mapping"])
        if props.get("block_device_mapping_v2"):
            server["block_device_mapping_v2"] = self._bdm_v2(props["block_device_mapping_v2"])
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
        if self.attempt.token and self.nova().supports(MICROVERSION_CREATE_TAGS):
            tags.append(attempt_tag(self.attempt.token))
        if tags:
            server["tags"] = tags
        body: dict[str, Any] = {"server": server}
        if props.get("scheduler_hints"):
            body["os:scheduler_hints"] = self._scheduler_hints(props["scheduler_hints"])
        return body

    def _scheduler_hints(self, hints: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in hints.items() if v is not None}

    def _made_before(self) -> dict[str, Any] | None:
        """The server an earlier try of this create made, by its attempt tag."""
        if not self.attempt.token or not self.nova().supports(MICROVERSION_CREATE_TAGS):
            return None
        listed = self.nova().get(f"/servers?tags={attempt_tag(self.attempt.token)}")
        servers = listed.get("servers") or []
        return servers[0] if len(servers) == 1 else None

    def handle_create(self) -> Any:
        self._check_versions()
        made = self._made_before() if self.attempt.retry else None
        if made is None and self._ports_held_by_predecessor():
            return {"started": self._now(), "waiting_for_ports": True}
        self._create(made)
        return {"started": self._now()}

    def _create(self, made: Mapping[str, Any] | None = None) -> None:
        if made is None:
            made = self.nova().post("/servers", self._create_body())["server"]
        self.resource_id_set(str(made["id"]))

    def _ports_held_by_predecessor(self) -> bool:
        """Whether a port the template gives is still bound to the server this one
        replaces: its ``prepare_for_replace`` asked Nova to let it go, and Nova takes a
        moment. Only a server of this same resource counts (its name, or the physical
        name's prefix): a port another server holds fails the create at once, as in Heat."""
        prefix = self.physical_resource_name().rsplit("-", 1)[0] + "-"
        for net in self.properties.get("networks") or []:
            if not net.get("port"):
                continue
            port = self.neutron().show("ports", "port", str(net["port"]))
            holder = port.get("device_id")
            if not holder or not str(port.get("device_owner") or "").startswith("compute:"):
                continue
            try:
                name = str(self.nova().server(str(holder)).get("name") or "")
            except Exception as exc:
                if is_not_found(exc):
                    continue
                raise
            if name == self._server_name() or name.startswith(prefix):
                return True
        return False

    def _now(self) -> float:
        return self.ctx.clock.now().timestamp()

    def check_create_complete(self, data: Any) -> CheckResult:
        if isinstance(data, dict) and data.get("waiting_for_ports"):
            waited = self._now() - float(data["started"])
            if waited < PORT_HANDOVER_SECS and self._ports_held_by_predecessor():
                return CheckAgain(1.0)
            data["waiting_for_ports"] = False
            self._create()
            return CheckAgain(BUILD_POLL_SECS)
        # A server gone while building fails the create (Nova's NotFound), as in Heat.
        if not st.check_active(self.nova().server(str(self.resource_id))):
            return CheckAgain(BUILD_POLL_SECS)
        self.store_external_ports()
        return True

    def store_external_ports(self) -> None:
        """Record the ports Nova made for the server (Heat's ``external_ports``)."""
        internal = set(self._ports())
        ports = self.neutron().find_all("ports", device_id=str(self.resource_id))
        external = sorted(str(p["id"]) for p in ports if str(p["id"]) not in internal)
        self._set_ports(EXTERNAL, external)

    # -- update ----------------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        old = copy.deepcopy(self.properties)
        super().handle_update(new_properties, prop_diff)
        after = self.properties
        api, ident = self.nova(), str(self.resource_id)
        steps: list[Step] = []
        if "metadata" in prop_diff:
            api.put(f"/servers/{ident}/metadata",
                    {"metadata": self.meta_serialize(after.get("metadata") or {})})
        if "tags" in prop_diff:
            self._set_tags(list(after.get("tags") or []))
        if "name" in prop_diff:
            api.put(f"/servers/{ident}", {"server": {"name": self._server_name()}})
        if "networks" in prop_diff:
            steps.extend(self._network_steps(old.get("networks"), after.get("networks"),
                                             list(after.get("security_groups") or [])))
        if "flavor" in prop_diff:
            steps += [Step("resize", {"flavor": after["flavor"]}), Step("confirm")]
        if "user_data" in prop_diff and after.get("user_data_update_policy") == "REBUILD":
            steps.append(Step("rebuild", {"image": after.get("image"), "user_data": True}))
        if "image" in prop_diff:
            steps.append(Step("rebuild", {"image": after.get("image")}))
        elif "admin_pass" in prop_diff and after.get("admin_pass"):
            api.action(ident, {"changePassword": {"adminPass": after["admin_pass"]}})
        return steps

    def _set_tags(self, tags: list[str]) -> None:
        api, ident = self.nova(), str(self.resource_id)
        marks = [t for t in api.get(f"/servers/{ident}/tags").get("tags", [])
                 if t.startswith("hotplate-")]
        api.put(f"/servers/{ident}/tags", {"tags": [*tags, *marks]})

    def check_update_complete(self, data: Any) -> CheckResult:
        steps: list[Step] = list(data or [])
        for step in steps:
            if not step.called:
                self._start(step)
                step.called = True
                return CheckAgain(BUILD_POLL_SECS) if step.kind in ("resize", "rebuild") \
                    else False
            if step.kind == "done":
                continue
            if not self._finished(step):
                return CheckAgain(BUILD_POLL_SECS)
            step.kind = "done"
        self.store_external_ports()
        return True

    def _start(self, step: Step) -> None:
        api, ident = self.nova(), str(self.resource_id)
        args = step.args
        if step.kind == "resize":
            api.action(ident, {"resize": {"flavorRef": args["flavor"]}})
        elif step.kind == "confirm":
            server = self._fetch() or {}
            if st.status_of(server) != "VERIFY_RESIZE":
                raise st.ResourceUnknownStatus(st.status_of(server), result=(
                    f"Could not confirm resize of server {ident}"))
            api.action(ident, {"confirmResize": None})
        elif step.kind == "rebuild":
            props = self.properties
            body: dict[str, Any] = {"imageRef": args.get("image") or self._image_of()}
            if props.get("image_update_policy") == "REBUILD_PRESERVE_EPHEMERAL":
                body["preserve_ephemeral"] = True
            if props.get("admin_pass"):
                body["adminPass"] = props["admin_pass"]
            if props.get("metadata"):
                body["metadata"] = self.meta_serialize(props["metadata"])
            if args.get("user_data"):
                data = self._user_data() or ""
                body["user_data"] = base64.b64encode(data.encode()).decode() if data else None
            api.action(ident, {"rebuild": body})
        elif step.kind == "detach":
            with ignoring(is_not_found):
                api.delete(f"/servers/{ident}/os-interface/{args['port']}")
        elif step.kind == "attach":
            attach: dict[str, Any] = {}
            if args.get("port"):
                attach["port_id"] = args["port"]
            else:
                if args.get("net"):
                    attach["net_id"] = args["net"]
                if args.get("fixed_ip"):
                    attach["fixed_ips"] = [{"ip_address": args["fixed_ip"]}]
            made = api.post(f"/servers/{ident}/os-interface",
                            {"interfaceAttachment": attach})["interfaceAttachment"]
            args["port"] = made.get("port_id")
            if not attach.get("port_id") and args.get("groups"):
                self.neutron().update("ports", "port", str(args["port"]),
                                      {"security_groups": args["groups"]})
            if args.get("floating_ip"):
                self._associate_floating_ip(args["floating_ip"], str(args["port"]),
                                            args.get("fixed_ip"))

    def _image_of(self) -> str:
        image = (self._fetch() or {}).get("image")
        return str(image.get("id")) if isinstance(image, Mapping) else ""

    def _finished(self, step: Step) -> bool:
        server = self._fetch()
        if server is None:
            return False
        if step.kind == "resize":
            return st.check_resized(server, str(step.args["flavor"]))
        if step.kind == "confirm":
            return st.check_verified(server, str(self.resource_id))
        if step.kind == "rebuild":
            return st.check_rebuilt(server)
        if step.kind in ("detach", "attach"):
            port = step.args.get("port")
            if not port:
                return True
            try:
                found = self.neutron().show("ports", "port", str(port))
            except Exception as exc:
                if is_not_found(exc):
                    return step.kind == "detach"
                raise
            attached = found.get("device_id") == str(self.resource_id)
            if step.kind == "attach":
                return attached
            if not attached and step.args.get("internal"):
                # Only once detached: Neutron refuses a member the delete of a bound port.
                self._delete_internal_port(str(port))
            return not attached
        return True

    def _interfaces(self) -> list[dict[str, Any]]:
        found = self.nova().get(f"/servers/{self.resource_id}/os-interface")
        ifaces = []
        for iface in found.get("interfaceAttachments", []):
            fixed = iface.get("fixed_ips") or [{}]
            ifaces.append({"port": iface.get("port_id"), "network": iface.get("net_id"),
                           "fixed_ip": fixed[0].get("ip_address"),
                           "subnet": fixed[0].get("subnet_id")})
        return ifaces

    def _network_steps(self, old: list[Mapping[str, Any]] | None,
                       new: list[Mapping[str, Any]] | None, groups: list[str]) -> list[Step]:
        """Heat's calculate_networks: interfaces to detach and to attach."""
        ifaces = self._interfaces()
        internal = set(self._ports())
        # A nic's tag cannot change on a live server: Heat ignores it in updates.
        old_nets = [_clean({**n, "tag": None}) for n in old or []]
        new_nets = [_clean({**n, "tag": None}) for n in new or []]
        group_ids = self._security_group_ids(groups) if groups else []
        steps: list[Step] = []
        allocating = next((n["allocate_network"] for n in new_nets
                           if n.get("allocate_network")), None)
        if allocating or not old_nets or any(n.get("allocate_network") for n in old_nets):
            steps += [Step("detach", {"port": i["port"], "internal": i["port"] in internal})
                      for i in ifaces]
            if allocating == "auto" or (not allocating and not new_nets):
                steps.append(Step("attach", {"net": None, "groups": group_ids}))
            elif not allocating:
                steps += self._attach_steps(new_nets, group_ids)
            return steps
        kept = [n for n in new_nets if n in old_nets]
        gone = [n for n in old_nets if n not in kept]
        added = [n for n in new_nets if n not in kept]
        for net in gone:
            port = self._match(net, ifaces)
            if port:
                steps.append(Step("detach", {"port": port, "internal": port in internal}))
            if net.get("floating_ip"):
                with ignoring(is_not_found):
                    self.neutron().update("floatingips", "floatingip", net["floating_ip"],
                                          {"port_id": None})
        if not added and not kept:
            steps.append(Step("attach", {"net": None, "groups": group_ids}))
        steps += self._attach_steps(added, group_ids, start=len(kept))
        return steps

    def _match(self, net: Mapping[str, Any], ifaces: list[dict[str, Any]]) -> str | None:
        """The interface a network entry made (Heat's best subset match)."""
        wanted = {k: v for k, v in net.items() if k in _MANAGED_NET_KEYS}
        if "network" not in wanted and wanted.get("subnet") and not wanted.get("port"):
            wanted["network"] = self._network_id(net)
        best, score = None, 0
        for iface in ifaces:
            if all(iface.get(k) == v for k, v in wanted.items()):
                matched = sum(1 for k, v in wanted.items() if iface.get(k) == v)
                if matched >= score:
                    best, score = iface, matched
        if best is None:
            return None
        ifaces.remove(best)
        return str(best["port"])

    def _attach_steps(self, nets: Sequence[Mapping[str, Any]], group_ids: list[str],
                      start: int = 0) -> list[Step]:
        steps = []
        for offset, net in enumerate(nets):
            args: dict[str, Any] = {"port": None, "net": None,
                                    "floating_ip": net.get("floating_ip"),
                                    "fixed_ip": net.get("fixed_ip")}
            if net.get("port"):
                args["port"] = net["port"]
            elif net.get("subnet") or net.get("port_extra_properties"):
                args["port"] = self._create_internal_port(net, start + offset, [])
            else:
                args["net"] = self._network_id(net)
                args["groups"] = group_ids
            steps.append(Step("attach", args))
        return steps

    # -- delete ----------------------------------------------------------------------------
    def _delete_internal_port(self, port: str) -> None:
        self.neutron().delete("ports", port)
        self._set_ports(INTERNAL, [p for p in self._ports() if p != port])

    def _delete_internal_ports(self) -> None:
        for port in self._ports():
            self.neutron().delete("ports", port)
        self.data_delete(INTERNAL)

    def handle_delete(self) -> Any:
        self.data_delete(EXTERNAL)
        if self.properties.get("user_data_format") == "SOFTWARE_CONFIG":
            with ignoring(lambda exc: isinstance(exc, RuntimeError)):
                signal_endpoints(self).forget_signal_credentials()
        if self.resource_id is None:
            self._delete_internal_ports()
            return None
        self.nova().delete(f"/servers/{self.resource_id}")
        return {"deleting": True}

    def check_delete_complete(self, data: Any) -> CheckResult:
        if data is None:
            return True
        if isinstance(data, dict) and data.get("image"):
            return self._check_snapshot(data)
        gone = st.check_deleted(self._fetch())
        if gone == "force":
            self.nova().action(str(self.resource_id), {"forceDelete": None})
            return CheckAgain(DELETE_POLL_SECS)
        if not gone:
            return CheckAgain(DELETE_POLL_SECS)
        self._delete_internal_ports()
        return True

    def resume_data(self, action: str) -> Any:
        if action == "DELETE":
            return {"deleting": True}
        if action == "UPDATE":
            return []
        return {"started": self._now()}

    # -- suspend, resume, check (the engine's stack actions) -------------------------------
    def _for_action(self, verb: str) -> dict[str, Any]:
        if self.resource_id is None:
            raise HotplateError(f"Cannot {verb} {self.name}, resource_id not set")
        server = self._fetch()
        if server is None:
            raise HotplateError(f"Failed to find server {self.resource_id}")
        return server

    def handle_suspend(self) -> Any:
        """Suspend (not again if it is already); the wait is check_suspend_complete's."""
        if st.status_of(self._for_action("suspend")) != "SUSPENDED":
            self.nova().action(str(self.resource_id), {"suspend": None})
        return str(self.resource_id)

    def check_suspend_complete(self, data: Any) -> CheckResult:
        server = self._fetch()
        if server is None:
            return CheckAgain(BUILD_POLL_SECS)
        status = st.status_of(server)
        if status in st.DEFERRED | {"ACTIVE"}:
            return True if status == "SUSPENDED" else CheckAgain(BUILD_POLL_SECS)
        raise st.ResourceUnknownStatus(status, result=(
            f"Suspend of server {server.get('name')} failed"))

    def handle_resume(self) -> Any:
        if st.status_of(self._for_action("resume")) != "ACTIVE":
            self.nova().action(str(self.resource_id), {"resume": None})
        return str(self.resource_id)

    def check_resume_complete(self, data: Any) -> CheckResult:
        server = self._fetch()
        if server is None or not st.check_active(server):
            return CheckAgain(BUILD_POLL_SECS)
        return True

    def handle_check(self) -> None:
        """Heat's check: the server is there and ACTIVE."""
        status = st.status_of(self.nova().server(str(self.resource_id)))
        if status != "ACTIVE":
            raise HotplateError(f"'status': expected 'ACTIVE', got '{status}'")

    # -- Snapshot deletion policy (Heat's handle_snapshot_delete) --------------------------
    def handle_snapshot_delete(self, state: tuple[str, str]) -> Any:
        """Save an image of the server, then delete it (a failed server is just deleted).
        The image stays after the stack is gone, as with Heat."""
        if state[1] != "FAILED" and self.resource_id is not None:
            made = self.nova().request("POST", f"/servers/{self.resource_id}/action",
                                       {"createImage": {"name": self.physical_resource_name()}})
            return {"image": str((made or {}).get("image_id"))}
        return self.handle_delete()

    def _check_snapshot(self, data: dict[str, Any]) -> CheckResult:
        image = self.cloud.call(self.cloud.image.get_image, data["image"])
        status = str(image.status).lower()
        if status in ("error", "deleted"):
            raise HotplateError(status)
        if status != "active":
            return CheckAgain(BUILD_POLL_SECS)
        data.clear()
        data.update(self.handle_delete() or {})
        return self.check_delete_complete(data) if data else True

    # -- replacement (Heat's hooks; the engine calls them once it offers them) -------------
    def prepare_for_replace(self) -> None:
        """Hand this server's ports to its replacement: detach them (an ERROR server's own
        ports are deleted instead), as Heat's prepare_ports_for_replace."""
        if self.resource_id is None:
            return
        server = self._fetch()
        if server is None or st.status_of(server) == "ERROR":
            self._delete_internal_ports()
            return
        for port in [*self._ports(), *self._ports(EXTERNAL)]:
            with ignoring(is_not_found):
                self.nova().delete(f"/servers/{self.resource_id}/os-interface/{port}")

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """Take this server's ports back on rollback: detached from whichever server holds
        them now, attached here again."""
        if self.resource_id is None:
            return
        for port in [*self._ports(), *self._ports(EXTERNAL)]:
            found = self.neutron().show("ports", "port", port)
            holder = found.get("device_id")
            if holder == str(self.resource_id):
                continue
            if holder:
                with ignoring(is_not_found):
                    self.nova().delete(f"/servers/{holder}/os-interface/{port}")
            self.nova().post(f"/servers/{self.resource_id}/os-interface",
                             {"interfaceAttachment": {"port_id": port}})

    # -- attributes ------------------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "name":
            return self._server_name()
        if name == "os_collect_config":
            return self._metadata().get(OCC, {})
        server = self._fetch()
        if server is None:
            return ""
        if name == "first_address":
            networks = self._networks(server)
            for label in sorted(networks, reverse=True):
                if networks[label]:
                    return networks[label][0]
            return ""
        if name == "addresses":
            return self._extend(self._addresses())
        if name == "networks":
            return self._extend(self._networks(server))
        if name == "instance_name":
            return server.get("OS-EXT-SRV-ATTR:instance_name")
        if name in ("accessIPv4", "accessIPv6"):
            return server.get(name)
        if name == "console_urls":
            return {kind: self._console_url(kind) for kind in CONSOLES}
        if name == "tags":
            tags = self.nova().get(f"/servers/{self.resource_id}/tags").get("tags", [])
            return [t for t in tags if not t.startswith("hotplate-")]
        return None

    @staticmethod
    def _networks(server: Mapping[str, Any]) -> dict[str, list[str]]:
        """novaclient's ``server.networks``: each network label's addresses."""
        return {label: [a["addr"] for a in addrs]
                for label, addrs in (server.get("addresses") or {}).items()}

    def _extend(self, nets: dict[str, Any]) -> dict[str, Any]:
        """Each network also under its id (Heat's _extend_networks)."""
        extended = dict(nets)
        for label in list(nets):
            try:
                extended[self.cloud.find("network", label)] = nets[label]
            except Exception as exc:
                if getattr(exc, "status", None) not in (404, None):
                    raise
        return extended

    def _addresses(self) -> dict[str, list[dict[str, Any]]]:
        api = self.neutron()
        nets: dict[str, list[dict[str, Any]]] = {}
        for port in api.find_all("ports", device_id=str(self.resource_id)):
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

    def _console_url(self, kind: str) -> str:
        protocol, console = CONSOLES[kind]
        try:
            made = self.nova().post(f"/servers/{self.resource_id}/remote-consoles",
                                    {"remote_console": {"protocol": protocol,
                                                        "type": console}})
            return str((made.get("remote_console") or made.get("console") or {})["url"])
        except Exception as exc:
            return f"Cannot get console url: {exc}"

