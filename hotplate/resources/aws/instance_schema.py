"""AWS::EC2::Instance's properties and attributes, as Heat declares them."""

from __future__ import annotations

from hotplate.resources.attributes import Attribute
from hotplate.resources.aws.launch_config import BLOCK_DEVICE_MAPPING_SCHEMA, SCHEDULER_HINT_SCHEMA
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.properties import Schema

__all__ = ["ATTRIBUTES", "NOT_IMPLEMENTED", "PROPERTIES"]

IMAGE_ID, INSTANCE_TYPE, KEY_NAME, AVAILABILITY_ZONE = (
    "ImageId", "InstanceType", "KeyName", "AvailabilityZone")
DISABLE_API_TERMINATION, KERNEL_ID, MONITORING = "DisableApiTermination", "KernelId", "Monitoring"
PLACEMENT_GROUP_NAME, PRIVATE_IP_ADDRESS = "PlacementGroupName", "PrivateIpAddress"
RAM_DISK_ID, SECURITY_GROUPS, SECURITY_GROUP_IDS = (
    "RamDiskId", "SecurityGroups", "SecurityGroupIds")
NETWORK_INTERFACES, SOURCE_DEST_CHECK, SUBNET_ID = (
    "NetworkInterfaces", "SourceDestCheck", "SubnetId")
TAGS, NOVA_SCHEDULER_HINTS, TENANCY, USER_DATA = (
    "Tags", "NovaSchedulerHints", "Tenancy", "UserData")
VOLUMES, BLOCK_DEVICE_MAPPINGS = "Volumes", "BlockDeviceMappings"
VOLUME_DEVICE, VOLUME_ID = "Device", "VolumeId"
DEVICE_NAME, EBS = "DeviceName", "Ebs"

AVAILABILITY_ZONE_ATTR, PRIVATE_DNS_NAME, PUBLIC_DNS_NAME = (
    "AvailabilityZone", "PrivateDnsName", "PublicDnsName")
PRIVATE_IP, PUBLIC_IP = "PrivateIp", "PublicIp"

NOT_IMPLEMENTED = frozenset({DISABLE_API_TERMINATION, KERNEL_ID, MONITORING,
                             PLACEMENT_GROUP_NAME, PRIVATE_IP_ADDRESS, RAM_DISK_ID,
                             SOURCE_DEST_CHECK, TENANCY})
"""What Heat declares without implementing: refused when set."""

_NI = "Not Implemented."

PROPERTIES = {
    IMAGE_ID: Schema(Schema.STRING, "Glance image ID or name.", required=True,
                     constraints=[CustomConstraint("glance.image")]),
    INSTANCE_TYPE: Schema(Schema.STRING, "Nova instance type (flavor).", required=True,
                          update_allowed=True, constraints=[CustomConstraint("nova.flavor")]),
    KEY_NAME: Schema(Schema.STRING, "Optional Nova keypair name.",
                     constraints=[CustomConstraint("nova.keypair")]),
    AVAILABILITY_ZONE: Schema(Schema.STRING, "Availability zone to launch the instance in."),
    DISABLE_API_TERMINATION: Schema(Schema.STRING, _NI),
    KERNEL_ID: Schema(Schema.STRING, _NI),
    MONITORING: Schema(Schema.BOOLEAN, _NI),
    PLACEMENT_GROUP_NAME: Schema(Schema.STRING, _NI),
    PRIVATE_IP_ADDRESS: Schema(Schema.STRING, _NI),
    RAM_DISK_ID: Schema(Schema.STRING, _NI),
    SECURITY_GROUPS: Schema(Schema.LIST, "Security group names to assign."),
    SECURITY_GROUP_IDS: Schema(Schema.LIST, "Security group IDs to assign."),
    NETWORK_INTERFACES: Schema(Schema.LIST, "Network interfaces to associate with instance.",
                               update_allowed=True),
    SOURCE_DEST_CHECK: Schema(Schema.BOOLEAN, _NI),
    SUBNET_ID: Schema(Schema.STRING, "Subnet ID to launch instance in.", update_allowed=True),
    TAGS: Schema(Schema.LIST, "Tags to attach to instance.", update_allowed=True,
                 schema=Schema(Schema.MAP, schema={
                     "Key": Schema(Schema.STRING, required=True),
                     "Value": Schema(Schema.STRING, required=True)})),
    NOVA_SCHEDULER_HINTS: Schema(Schema.LIST, "Scheduler hints to pass to Nova (Heat "
                                 "extension).", schema=SCHEDULER_HINT_SCHEMA),
    TENANCY: Schema(Schema.STRING, _NI, constraints=[AllowedValues(("dedicated", "default"))]),
    USER_DATA: Schema(Schema.STRING, "User data to pass to instance."),
    VOLUMES: Schema(Schema.LIST, "Volumes to attach to instance.", default=[],
                    schema=Schema(Schema.MAP, schema={
                        VOLUME_DEVICE: Schema(Schema.STRING, "The device where the volume is "
                                              "exposed on the instance. This assignment may "
                                              "not be honored and it is advised that the path "
                                              "/dev/disk/by-id/virtio-<VolumeId> be used "
                                              "instead.", required=True),
                        VOLUME_ID: Schema(Schema.STRING, "The ID of the volume to be attached.",
                                          required=True,
                                          constraints=[CustomConstraint("cinder.volume")])})),
    BLOCK_DEVICE_MAPPINGS: Schema(Schema.LIST, "Block device mappings to attach to instance.",
                                  schema=BLOCK_DEVICE_MAPPING_SCHEMA),
}

ATTRIBUTES = {
    AVAILABILITY_ZONE_ATTR: Attribute("The Availability Zone where the specified instance is "
                                      "launched.", Attribute.STRING),
    PRIVATE_DNS_NAME: Attribute("Private DNS name of the specified instance.", Attribute.STRING),
    PUBLIC_DNS_NAME: Attribute("Public DNS name of the specified instance.", Attribute.STRING),
    PRIVATE_IP: Attribute("Private IP address of the specified instance.", Attribute.STRING),
    PUBLIC_IP: Attribute("Public IP address of the specified instance.", Attribute.STRING),
}
