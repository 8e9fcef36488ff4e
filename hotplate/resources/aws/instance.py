"""AWS::EC2::Instance: a Nova server under EC2's property names, as Heat's Instance.

- ``ImageId`` and ``InstanceType`` are found by name or id when the server is
  made (Heat's finders), so the properties keep what the template says.
- ``UserData`` goes to the server in Heat's cfn-init multipart form, with this
  resource's metadata as ``cfn-init-data`` and the metadata server's URL
  (``user_data.build_userdata``, format ``HEAT_CFNTOOLS``).
- Networking: ``NetworkInterfaces`` (port ids, or ``{NetworkInterfaceId,
  DeviceIndex}`` in device order); else ``SubnetId``, for which a port is made
  on that subnet (with the security groups) and deleted with the server;
  else Nova's default. ``SecurityGroups`` and ``SecurityGroupIds`` together
  name the server's groups; with ``NetworkInterfaces`` they are refused.
- ``Tags`` become the server's metadata; ``Volumes`` are attached once the
  server is ACTIVE, one after the other; ``BlockDeviceMappings`` (snapshots)
  go as Nova's v1 mapping strings.
- Updates in place: ``Tags`` (the server's metadata), ``InstanceType`` (resize,
  then confirm); any other change replaces the server, and changed
  ``NetworkInterfaces`` or ``SubnetId`` replace it too (a simplification of
  Heat's detach/attach).
- Attributes: ``PublicIp``, ``PrivateIp``, ``PublicDnsName`` and
  ``PrivateDnsName`` are the server's first address (Heat answers all four so),
  ``AvailabilityZone`` Nova's ``OS-EXT-AZ:availability_zone``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.resources.aws.instance_schema import (
    ATTRIBUTES,
    AVAILABILITY_ZONE,
    AVAILABILITY_ZONE_ATTR,
    BLOCK_DEVICE_MAPPINGS,
    DEVICE_NAME,
    EBS,
    IMAGE_ID,
    INSTANCE_TYPE,
    KEY_NAME,
    NETWORK_INTERFACES,
    NOT_IMPLEMENTED,
    NOVA_SCHEDULER_HINTS,
    PROPERTIES,
    SECURITY_GROUP_IDS,
    SECURITY_GROUPS,
    SUBNET_ID,
    TAGS,
    USER_DATA,
    VOLUMES,
)
from hotplate.resources.aws.launch_config import (
    DELETE_ON_TERMINATION,
    HINT_KEY,
    HINT_VALUE,
    SNAPSHOT_ID,
    VOLUME_SIZE,
    check_block_device_mapping,
    refuse_unimplemented,
)
from hotplate.resources.base import CheckAgain, CheckResult
from hotplate.resources.openstack.cloud_errors import ignoring, is_not_found
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.nova import status as st
from hotplate.resources.openstack.nova.base import NovaResource
from hotplate.resources.openstack.nova.user_data import build_userdata
from hotplate.resources.properties import PropertyPath
from hotplate.resources.signal_responder import signal_endpoints

__all__ = ["Instance"]

PORT_KEY = "port_id"
"""Where the port made for ``SubnetId`` is recorded (Heat's key), to delete it after."""
POLL = 2.0
STR_NETWORKS = "2.37"
"""From this microversion on Nova needs ``networks``; ``auto`` is its own choice."""
NO_ADDRESS = "0.0.0.0"


class Instance(NovaResource):
    """An AWS-compatible instance: a Nova server."""

    path = "/servers"
    entity = "server"
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES
    metadata_follows_template = True

    # -- validation -------------------------------------------------------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's checks: nothing unimplemented, groups or interfaces (not both), block
        device mappings from snapshots."""
        refuse_unimplemented(props, NOT_IMPLEMENTED)
        if _groups(props) and props.get(NETWORK_INTERFACES):
            raise StackValidationFailed(
                f"Cannot define the following properties at the same time: "
                f"{SECURITY_GROUPS}/{SECURITY_GROUP_IDS}, {NETWORK_INTERFACES}.")
        for mapping in props.get(BLOCK_DEVICE_MAPPINGS) or []:
            check_block_device_mapping(mapping)

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        return bool(changed & {NETWORK_INTERFACES, SUBNET_ID})

    def neutron(self) -> NeutronApi:
        return NeutronApi(self.cloud)

    # -- create -----------------------------------------------------------------------
    def handle_create(self) -> dict[str, Any]:
        props = self.properties
        server: dict[str, Any] = {
            "name": self.physical_resource_name(),
            "imageRef": self.cloud.find("image", str(props[IMAGE_ID])),
            "flavorRef": self.cloud.find("flavor", str(props[INSTANCE_TYPE])),
            "user_data": base64.b64encode(self._user_data().encode()).decode(),
        }
        groups = _groups(props)
        if props[KEY_NAME]:
            server["key_name"] = props[KEY_NAME]
        if groups:
            server["security_groups"] = [{"name": group} for group in groups]
        if props[TAGS]:
            server["metadata"] = _tags(props[TAGS])
        if props[AVAILABILITY_ZONE]:
            server["availability_zone"] = props[AVAILABILITY_ZONE]
        nics = self._nics(groups)
        if nics is not None:
            server["networks"] = nics
        elif self.nova().supports(STR_NETWORKS):  # Heat's 2.1 leaves the choice to Nova
            server["networks"] = "auto"
        mappings = _block_devices(props[BLOCK_DEVICE_MAPPINGS])
        if mappings:
            server["block_device_mapping"] = mappings
        body: dict[str, Any] = {"server": server}
        hints = _scheduler_hints(props[NOVA_SCHEDULER_HINTS])
        if hints:
            body["os:scheduler_hints"] = hints
        made = self.nova().post("/servers", body)["server"]
        self.resource_id_set(str(made["id"]))
        return {"attached": 0}

    def _user_data(self) -> str:
        getter = getattr(self.ctx, "metadata_get", None)
        metadata = dict(getter() or {}) if callable(getter) else {}
        try:
            url = signal_endpoints(self).metadata_server_url()
        except Exception:
            url = ""
        return build_userdata("HEAT_CFNTOOLS", self.properties[USER_DATA] or "", metadata,
                              url) or ""

    def _nics(self, groups: list[str]) -> list[dict[str, str]] | None:
        """Heat's ``_build_nics``: the interfaces in device order, else a port made on
        ``SubnetId``, else None (Nova chooses)."""
        interfaces = self.properties[NETWORK_INTERFACES]
        if interfaces:
            entries = [entry if isinstance(entry, Mapping)
                       else {"NetworkInterfaceId": entry, "DeviceIndex": index}
                       for index, entry in enumerate(interfaces)]
            entries.sort(key=lambda entry: int(entry["DeviceIndex"]))
            return [{"port": str(entry["NetworkInterfaceId"])} for entry in entries]
        subnet = self.properties[SUBNET_ID]
        if not subnet:
            return None
        network = self.neutron().show("subnets", "subnet", str(subnet))["network_id"]
        port: dict[str, Any] = {"admin_state_up": True, "network_id": network,
                                "fixed_ips": [{"subnet_id": subnet}]}
        if groups:
            port["security_groups"] = [self.cloud.find("security_group", g) for g in groups]
        made = self.neutron().create("ports", "port", port)
        self.data_set(PORT_KEY, str(made["id"]))
        return [{"port": str(made["id"])}]

    def check_create_complete(self, data: Any) -> CheckResult:
        if not data.get("active"):
            if not st.check_active(self.nova().server(str(self.resource_id)), "Instance"):
                return CheckAgain(POLL)
            data["active"] = True
        return self._attach_volumes(data)

    def _attach_volumes(self, data: dict[str, Any]) -> CheckResult:
        """Attach each of ``Volumes`` in turn, waiting for each to be in use."""
        volumes = list(self.properties[VOLUMES] or [])
        while data["attached"] < len(volumes):
            volume = volumes[data["attached"]]
            if not data.get("requested"):
                self.nova().post(f"/servers/{self.resource_id}/os-volume_attachments",
                                 {"volumeAttachment": {"volumeId": volume["VolumeId"],
                                                       "device": volume["Device"]}})
                data["requested"] = True
                return CheckAgain(POLL)
            if not self._attached(str(volume["VolumeId"])):
                return CheckAgain(POLL)
            data["attached"] += 1
            data["requested"] = False
        return True

    def _attached(self, volume: str) -> bool:
        listed = self.nova().get(f"/servers/{self.resource_id}/os-volume_attachments")
        return any(str(a.get("volumeId")) == volume
                   for a in listed.get("volumeAttachments") or [])

    # -- update -----------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        """Tags at once; a new flavor by resize and confirm (checked after)."""
        super().handle_update(new_properties, prop_diff)
        if TAGS in prop_diff:
            self.nova().put(f"/servers/{self.resource_id}/metadata",
                            {"metadata": _tags(prop_diff[TAGS] or [])})
        data: dict[str, Any] = {}
        if INSTANCE_TYPE in prop_diff:
            flavor = self.cloud.find("flavor", str(prop_diff[INSTANCE_TYPE]))
            self.nova().action(str(self.resource_id), {"resize": {"flavorRef": flavor}})
            data["resizing"] = flavor
        return data

    def check_update_complete(self, data: Any) -> CheckResult:
        flavor = data.get("resizing") if isinstance(data, dict) else None
        if flavor is None:
            return True
        server = self.nova().server(str(self.resource_id))
        if not data.get("confirmed"):
            if not st.check_resized(server, flavor):
                return CheckAgain(POLL)
            self.nova().action(str(self.resource_id), {"confirmResize": None})
            data["confirmed"] = True
            return CheckAgain(POLL)
        return True if st.check_verified(server, str(self.resource_id)) else CheckAgain(POLL)

    # -- delete -----------------------------------------------------------------------
    def handle_delete(self) -> Any:
        if self.resource_id is None:
            self._delete_port()
            return None
        self.nova().delete(f"/servers/{self.resource_id}")
        return {"deleting": True}

    def check_delete_complete(self, data: Any) -> CheckResult:
        if data is None:
            return True
        gone = st.check_deleted(self._fetch())
        if gone == "force":
            self.nova().action(str(self.resource_id), {"forceDelete": None})
            return CheckAgain(POLL)
        if not gone:
            return CheckAgain(POLL)
        self._delete_port()
        return True

    def _delete_port(self) -> None:
        port = self.data().get(PORT_KEY)
        if port:
            with ignoring(is_not_found):
                self.neutron().delete("ports", port)
            self.data_delete(PORT_KEY)

    def resume_data(self, action: str) -> Any:
        return {"deleting": True} if action == "DELETE" else {"attached": 0}

    def _fetch(self) -> dict[str, Any] | None:
        try:
            return self.nova().server(str(self.resource_id))
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    # -- suspend, resume, check -------------------------------------------------------
    def _for_action(self, verb: str) -> dict[str, Any]:
        if self.resource_id is None:
            raise HotplateError(f"Cannot {verb} {self.name}, resource_id not set")
        server = self._fetch()
        if server is None:
            raise HotplateError(f"Failed to find instance {self.resource_id}")
        return server

    def handle_suspend(self) -> None:
        if st.status_of(self._for_action("suspend")) != "SUSPENDED":
            self.nova().action(str(self.resource_id), {"suspend": None})

    def check_suspend_complete(self, data: Any) -> CheckResult:
        server = self._fetch()
        if server is None:
            return CheckAgain(POLL)
        status = st.status_of(server)
        if status in st.DEFERRED | {"ACTIVE"}:
            return True if status == "SUSPENDED" else CheckAgain(POLL)
        raise st.ResourceUnknownStatus(status, result=(
            f"Suspend of instance {server.get('name')} failed"))

    def handle_resume(self) -> None:
        if st.status_of(self._for_action("resume")) != "ACTIVE":
            self.nova().action(str(self.resource_id), {"resume": None})

    def check_resume_complete(self, data: Any) -> CheckResult:
        server = self._fetch()
        if server is None or not st.check_active(server, "Instance"):
            return CheckAgain(POLL)
        return True

    def handle_check(self) -> None:
        status = st.status_of(self.nova().server(str(self.resource_id)))
        if status != "ACTIVE":
            raise HotplateError(f"Instance is not ACTIVE (was: {status})")

    # -- attributes -------------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        server = self._fetch()
        if server is None:
            return None
        if name == AVAILABILITY_ZONE_ATTR:
            zone = server.get("OS-EXT-AZ:availability_zone")
            return str(zone) if zone else None
        return first_address(server.get("addresses") or {})


def first_address(addresses: Mapping[str, Any]) -> str:
    """Heat's ``_set_ipaddress``: the first address of the last network by name."""
    for network in sorted(addresses, reverse=True):
        entries = addresses[network] or []
        if entries:
            return str(entries[0].get("addr") if isinstance(entries[0], Mapping)
                       else entries[0])
    return NO_ADDRESS


def _groups(props: Mapping[str, Any]) -> list[str]:
    return [*(props.get(SECURITY_GROUPS) or []), *(props.get(SECURITY_GROUP_IDS) or [])]


def _tags(tags: list[Mapping[str, Any]]) -> dict[str, str]:
    return {str(tag["Key"]): str(tag["Value"]) for tag in tags}


def _scheduler_hints(hints: list[Mapping[str, Any]] | None) -> dict[str, Any]:
    """Heat's: a key given twice collects its values in a list."""
    found: dict[str, Any] = {}
    for hint in hints or []:
        key, value = hint[HINT_KEY], hint[HINT_VALUE]
        if key in found:
            if isinstance(found[key], str):
                found[key] = [found[key]]
            found[key].append(value)
        else:
            found[key] = value
    return found


def _block_devices(mappings: list[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """Nova's (v1) block device mapping of each snapshot, as novaclient reads Heat's
    ``<snapshot>:snap:<size>:<delete>`` strings."""
    out = []
    for mapping in mappings or []:
        ebs = mapping.get(EBS) or {}
        device: dict[str, Any] = {"device_name": mapping[DEVICE_NAME],
                                  "snapshot_id": ebs.get(SNAPSHOT_ID)}
        if ebs.get(VOLUME_SIZE):
            device["volume_size"] = str(int(ebs[VOLUME_SIZE]))
        if ebs.get(DELETE_ON_TERMINATION) is not None:
            device["delete_on_termination"] = str(ebs[DELETE_ON_TERMINATION])
        out.append(device)
    return out
