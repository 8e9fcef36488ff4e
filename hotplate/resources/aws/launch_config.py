"""AWS::AutoScaling::LaunchConfiguration: what an instance group's members are made of.

The resource makes nothing: an ``OS::Heat::InstanceGroup`` or
``AWS::AutoScaling::AutoScalingGroup`` that names it (by reference) gives each
member the properties set here, plus the group's ``Tags``, and this
resource's metadata (``member_properties``, ``member_metadata``).

- Its reference is its physical name (``<stack>-<name>-<short id>``), so any
  change, metadata included, replaces it and the group that reads it sees a
  new name: that is what starts a group's rolling update.
- ``InstanceId`` takes ``ImageId``, ``InstanceType``, ``KeyName`` and
  ``SecurityGroups`` from that Nova server, where the template does not set
  them (Heat's ``rebuild_lc_properties``).
- ``ImageId`` and ``InstanceType`` are checked against the cloud (the
  ``glance.image`` and ``nova.flavor`` constraints) when the stack is
  validated, as in Heat, though no server is made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed, UpdateReplace
from hotplate.resources.base import Resource
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.signals import row_metadata

__all__ = ["LaunchConfiguration", "without_unset"]

IMAGE_ID, INSTANCE_TYPE, KEY_NAME, USER_DATA = "ImageId", "InstanceType", "KeyName", "UserData"
SECURITY_GROUPS, KERNEL_ID, RAM_DISK_ID = "SecurityGroups", "KernelId", "RamDiskId"
BLOCK_DEVICE_MAPPINGS, NOVA_SCHEDULER_HINTS = "BlockDeviceMappings", "NovaSchedulerHints"
INSTANCE_ID = "InstanceId"
DEVICE_NAME, EBS, NO_DEVICE, VIRTUAL_NAME = "DeviceName", "Ebs", "NoDevice", "VirtualName"
DELETE_ON_TERMINATION, IOPS, SNAPSHOT_ID = "DeleteOnTermination", "Iops", "SnapshotId"
VOLUME_SIZE, VOLUME_TYPE = "VolumeSize", "VolumeType"
HINT_KEY, HINT_VALUE = "Key", "Value"

NOT_IMPLEMENTED = frozenset({KERNEL_ID, RAM_DISK_ID})
NOT_IMPLEMENTED_BDM = frozenset({NO_DEVICE, VIRTUAL_NAME})
NOT_IMPLEMENTED_EBS = frozenset({IOPS, VOLUME_TYPE})

_NO_SNAPSHOT = "SnapshotId is missing, this is required when specifying BlockDeviceMappings."
_NO_EBS = "Ebs is missing, this is required when specifying BlockDeviceMappings."
_NO_IMAGE_OR_TYPE = "If without InstanceId, ImageId and InstanceType are required."

EBS_SCHEMA = {
    DELETE_ON_TERMINATION: Schema(Schema.BOOLEAN, "Indicate whether the volume should be "
                                  "deleted when the instance is terminated.", default=True),
    IOPS: Schema(Schema.NUMBER, "The number of I/O operations per second that the volume "
                 "supports."),
    SNAPSHOT_ID: Schema(Schema.STRING, "The ID of the snapshot to create a volume from.",
                        constraints=[CustomConstraint("cinder.snapshot")]),
    VOLUME_SIZE: Schema(Schema.STRING, "The size of the volume, in GB. Must be equal or "
                        "greater than the size of the snapshot. It is safe to leave this "
                        "blank and have the Compute service infer the size."),
    VOLUME_TYPE: Schema(Schema.STRING, "The volume type."),
}

BLOCK_DEVICE_MAPPING_SCHEMA = Schema(Schema.MAP, schema={
    DEVICE_NAME: Schema(Schema.STRING, "A device name where the volume will be attached in "
                        "the system at /dev/device_name.e.g. vdb", required=True),
    EBS: Schema(Schema.MAP, "The ebs volume to attach to the instance.", schema=EBS_SCHEMA),
    NO_DEVICE: Schema(Schema.MAP, "The can be used to unmap a defined device."),
    VIRTUAL_NAME: Schema(Schema.STRING, "The name of the virtual device. The name must be in "
                         "the form ephemeralX where X is a number starting from zero (0); "
                         "for example, ephemeral0."),
})
"""One of ``BlockDeviceMappings`` (AWS::EC2::Instance takes the same)."""

SCHEDULER_HINT_SCHEMA = Schema(Schema.MAP, schema={
    HINT_KEY: Schema(Schema.STRING, required=True),
    HINT_VALUE: Schema(Schema.STRING, required=True),
})
"""One of ``NovaSchedulerHints`` (AWS::EC2::Instance takes the same)."""


def without_unset(value: Any) -> Any:
    """``value`` with the keys of maps (at any depth) whose value is None left out:
    validated properties hold every declared key, a member gets only those set."""
    if isinstance(value, Mapping):
        return {k: without_unset(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_unset(v) for v in value]
    return value


class LaunchConfiguration(Resource):
    """The launch configuration of an AWS-style instance group's members."""

    properties_schema = {
        IMAGE_ID: Schema(Schema.STRING, "Glance image ID or name.",
                         constraints=[CustomConstraint("glance.image")]),
        INSTANCE_TYPE: Schema(Schema.STRING, "Nova instance type (flavor).",
                              constraints=[CustomConstraint("nova.flavor")]),
        INSTANCE_ID: Schema(Schema.STRING, "The ID of an existing instance you want to use to "
                            "create the launch configuration. All properties are derived "
                            "from the instance with the exception of BlockDeviceMapping.",
                            constraints=[CustomConstraint("nova.server")]),
        KEY_NAME: Schema(Schema.STRING, "Optional Nova keypair name.",
                         constraints=[CustomConstraint("nova.keypair")]),
        USER_DATA: Schema(Schema.STRING, "User data to pass to instance."),
        SECURITY_GROUPS: Schema(Schema.LIST, "Security group names to assign."),
        KERNEL_ID: Schema(Schema.STRING, "Not Implemented."),
        RAM_DISK_ID: Schema(Schema.STRING, "Not Implemented."),
        BLOCK_DEVICE_MAPPINGS: Schema(Schema.LIST, "Block device mappings to attach to "
                                      "instance.", schema=BLOCK_DEVICE_MAPPING_SCHEMA),
        NOVA_SCHEDULER_HINTS: Schema(Schema.LIST, "Scheduler hints to pass to Nova (Heat "
                                     "extension).", schema=SCHEDULER_HINT_SCHEMA),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """The properties, then Heat's rule: without ``InstanceId``, both ``ImageId`` and
        ``InstanceType``."""
        props = super().validate(raw, path)
        if not props[INSTANCE_ID] and not (props[IMAGE_ID] and props[INSTANCE_TYPE]):
            raise StackValidationFailed(_NO_IMAGE_OR_TYPE)
        return props

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """What Heat declares but does not implement is refused; a block device mapping
        needs an ``Ebs`` with a ``SnapshotId``."""
        refuse_unimplemented(props, NOT_IMPLEMENTED)
        for mapping in props.get(BLOCK_DEVICE_MAPPINGS) or []:
            check_block_device_mapping(mapping)

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> None:
        """Reached only when the metadata alone changed: replaced too, as in Heat (a
        group sees the change only through a new reference)."""
        raise UpdateReplace(self.name)

    def get_reference_id(self) -> str:
        """Heat's ``physical_resource_name_or_FnGetRefId``."""
        return self.physical_resource_name()

    # -- what a group reads ---------------------------------------------------------
    def member_properties(self) -> dict[str, Any]:
        """The properties set here, as a member takes them; ``InstanceId`` replaced by
        what its server has (unless set here)."""
        props = {key: value for key, value in without_unset(self.properties).items()
                 if key != INSTANCE_ID}
        instance = self.properties[INSTANCE_ID]
        if instance:
            for key, value in server_properties(self.cloud, str(instance)).items():
                props.setdefault(key, value)
        return props

    def member_metadata(self) -> dict[str, Any]:
        """This resource's metadata as resolved from the template."""
        try:
            return row_metadata(self).metadata_get()
        except RuntimeError:  # a context that keeps no metadata (validation)
            return {}


def refuse_unimplemented(props: Mapping[str, Any], names: frozenset[str]) -> None:
    """Heat's text for a property it declares without implementing, when one is set."""
    for key in sorted(names):
        if props.get(key) is not None:
            raise StackValidationFailed(f"Property {key} not implemented yet")


def check_block_device_mapping(mapping: Mapping[str, Any]) -> None:
    """One of ``BlockDeviceMappings``: Heat's checks, as the launch configuration and
    the instance make them.

    Raises:
        StackValidationFailed: Heat's texts.
    """
    refuse_unimplemented(mapping, NOT_IMPLEMENTED_BDM)
    ebs = mapping.get(EBS)
    if not ebs:
        raise StackValidationFailed(_NO_EBS)
    refuse_unimplemented(ebs, NOT_IMPLEMENTED_EBS)
    if not ebs.get(SNAPSHOT_ID):
        raise StackValidationFailed(_NO_SNAPSHOT)


def server_properties(cloud: Any, server_id: str) -> dict[str, Any]:
    """What a launch configuration takes from an existing server (Heat's
    ``rebuild_lc_properties``): its image, flavor, key pair and security groups."""
    server = NovaApi(cloud).server(server_id)
    image = server.get("image") or {}
    flavor = server.get("flavor") or {}
    return {
        IMAGE_ID: image.get("id") if isinstance(image, Mapping) else None,
        INSTANCE_TYPE: flavor.get("id") or flavor.get("original_name"),
        KEY_NAME: server.get("key_name"),
        SECURITY_GROUPS: [group["name"] for group in server.get("security_groups") or []],
    }

