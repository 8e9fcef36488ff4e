"""AWS::EC2::Volume and AWS::EC2::VolumeAttachment (Heat's ``aws/ec2/volume.py``).

Thin wrappers over the Cinder volume and attachment (``volume_base``,
``volume_attachment``) under CloudFormation's names: ``SnapshotId`` is a
*backup* to restore from, as in Heat; ``Tags`` become the volume's metadata;
the name and description are the physical name. Every property is immutable:
an update that changes one fails with Heat's "Update to properties ... is not
supported." Neither type has a ``show`` view (None, as Heat's).
"""

from __future__ import annotations

from typing import Any

from hotplate.resources.constraints import AllowedPattern, CustomConstraint, Range
from hotplate.resources.openstack.cinder.volume_attachment import BaseVolumeAttachment
from hotplate.resources.openstack.cinder.volume_base import BaseVolume
from hotplate.resources.properties import Schema

__all__ = ["Volume", "VolumeAttachment"]

_S = Schema.STRING


class Volume(BaseVolume):
    """An AWS-compatible volume: a Cinder volume of ``Size`` GB, or restored from the
    backup ``SnapshotId``."""

    heat_class_name = "Volume"
    backup_property = "SnapshotId"

    properties_schema = {
        "AvailabilityZone": Schema(_S, "The availability zone in which the volume will be "
                                   "created.", required=True, immutable=True),
        "Size": Schema(Schema.INTEGER, "The size of the volume in GB.", immutable=True,
                       constraints=[Range(min=1)]),
        "SnapshotId": Schema(_S, "If specified, the backup used as the source to create the "
                             "volume.", immutable=True,
                             constraints=[CustomConstraint("cinder.backup")]),
        "Tags": Schema(Schema.LIST, "The list of tags to associate with the volume.",
                       immutable=True, schema=Schema(Schema.MAP, schema={
                           "Key": Schema(_S, required=True),
                           "Value": Schema(_S, required=True)})),
    }

    def create_arguments(self) -> dict[str, Any]:
        tags = self.properties.get("Tags")
        return {"size": self.properties.get("Size"),
                "availability_zone": self.properties.get("AvailabilityZone") or None,
                "metadata": {t["Key"]: t["Value"] for t in tags} if tags else None}

    def _show_resource(self) -> Any:
        return None


class VolumeAttachment(BaseVolumeAttachment):
    """An AWS-compatible attachment of a volume to an instance at a device."""

    heat_class_name = "VolumeAttachment"
    server_key = "InstanceId"
    volume_key = "VolumeId"
    device_key = "Device"

    properties_schema = {
        "InstanceId": Schema(_S, "The ID of the instance to which the volume attaches.",
                             immutable=True, required=True,
                             constraints=[CustomConstraint("nova.server")]),
        "VolumeId": Schema(_S, "The ID of the volume to be attached.", immutable=True,
                           required=True, constraints=[CustomConstraint("cinder.volume")]),
        "Device": Schema(_S, "The device where the volume is exposed on the instance. This "
                         "assignment may not be honored and it is advised that the path "
                         "/dev/disk/by-id/virtio-<VolumeId> be used instead.",
                         immutable=True, required=True,
                         constraints=[AllowedPattern("/dev/vd[b-z]")]),
    }
