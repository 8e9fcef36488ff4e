"""OS::Nova::Server's properties and attributes, as Heat 27.0.1 declares them."""

from __future__ import annotations

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Length, Range
from hotplate.resources.properties import Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["ATTRIBUTES", "NETWORK_KEYS", "PORT_EXTRA", "PROPERTIES", "RULES"]

NETWORK_KEYS = ("uuid", "network", "fixed_ip", "port", "subnet", "port_extra_properties",
                "floating_ip", "allocate_network", "tag")

_S, _B, _I, _M, _L = Schema.STRING, Schema.BOOLEAN, Schema.INTEGER, Schema.MAP, Schema.LIST

PORT_EXTRA: dict[str, Schema] = {
    "value_specs": Schema(_M, "Extra parameters to include in the request.", default={},
                          update_allowed=True),
    "admin_state_up": Schema(_B, "The administrative state of this port.", default=True,
                             update_allowed=True),
    "mac_address": Schema(_S, "MAC address to give to this port. The default update policy "
                          "of this property in neutron is that allow admin role only.",
                          constraints=[CustomConstraint("mac_addr")]),
    "allowed_address_pairs": Schema(
        _L, "Additional MAC/IP address pairs allowed to pass through the port.",
        update_allowed=True,
        schema=Schema(_M, schema={
            "mac_address": Schema(_S, "MAC address to allow through this port.",
                                  constraints=[CustomConstraint("mac_addr")]),
            "ip_address": Schema(_S, "IP address to allow through this port.", required=True,
                                 constraints=[CustomConstraint("net_cidr")]),
        })),
    "binding:vnic_type": Schema(_S, "The vnic type to be bound on the neutron port.",
                                update_allowed=True,
                                constraints=[AllowedValues(("normal", "direct", "macvtap",
                                                            "direct-physical", "baremetal",
                                                            "virtio-forwarder",
                                                            "smart-nic"))]),
    "port_security_enabled": Schema(_B, "Flag to enable/disable port security on the port.",
                                    update_allowed=True),
    "qos_policy": Schema(_S, "The name or ID of QoS policy to attach to this port.",
                         update_allowed=True, constraints=[CustomConstraint(
                             "neutron.qos_policy")]),
    "propagate_uplink_status": Schema(_B, "Flag to enable/disable propagate uplink status "
                                      "on the port.", update_allowed=True),
    "no_fixed_ips": Schema(_B, "Flag to disable all fixed ips on the port.",
                           update_allowed=True, default=False),
}
"""Heat's ``Port.extra_properties_schema`` (``networks[].port_extra_properties``)."""

_BDM_V1 = Schema(_M, schema={
    "device_name": Schema(_S, "A device name where the volume will be attached in the system "
                          "at /dev/device_name. This value is typically vda.", required=True),
    "volume_id": Schema(_S, "The ID of the volume to boot from. Only one of volume_id or "
                        "snapshot_id should be provided.",
                        constraints=[CustomConstraint("cinder.volume")]),
    "snapshot_id": Schema(_S, "The ID of the snapshot to create a volume from.",
                          constraints=[CustomConstraint("cinder.snapshot")]),
    "volume_size": Schema(_I, "The size of the volume, in GB. It is safe to leave this blank "
                          "and have the Compute service infer the size."),
    "delete_on_termination": Schema(_B, "Indicate whether the volume should be deleted when "
                                    "the server is terminated."),
})

_BDM_V2 = Schema(_M, schema={
    "device_name": Schema(_S, "A device name where the volume will be attached in the system "
                          "at /dev/device_name. This value is typically vda."),
    "volume_id": Schema(_S, "The volume_id can be boot or non-boot device to the server.",
                        constraints=[CustomConstraint("cinder.volume")]),
    "image_id": Schema(_S, "The ID of the image to create a volume from.",
                       constraints=[CustomConstraint("glance.image")],
                       support_status=SupportStatus(
                           Status.HIDDEN, "9.0.0", "Use property image.",
                           SupportStatus(Status.DEPRECATED, "7.0.0",
                                         previous_status=SupportStatus(version="5.0.0")))),
    "image": Schema(_S, "The ID or name of the image to create a volume from.",
                    constraints=[CustomConstraint("glance.image")],
                    support_status=SupportStatus(version="7.0.0")),
    "snapshot_id": Schema(_S, "The ID of the snapshot to create a volume from.",
                          constraints=[CustomConstraint("cinder.snapshot")]),
    "swap_size": Schema(_I, "The size of the swap, in MB."),
    "ephemeral_size": Schema(_I, "The size of the local ephemeral block device, in GB.",
                             constraints=[Range(min=1)],
                             support_status=SupportStatus(version="8.0.0")),
    "ephemeral_format": Schema(_S, "The format of the local ephemeral block device. If no "
                               "format is specified, uses default value, defined in nova "
                               "configuration file.",
                               constraints=[AllowedValues(("ext2", "ext3", "ext4", "xfs",
                                                           "ntfs"))],
                               support_status=SupportStatus(version="8.0.0")),
    "device_type": Schema(_S, "Device type: at the moment we can make distinction only "
                          "between disk and cdrom.",
                          constraints=[AllowedValues(("cdrom", "disk"))]),
    "disk_bus": Schema(_S, "Bus of the device: hypervisor driver chooses a suitable default "
                       "if omitted.", constraints=[AllowedValues(("ide", "lame_bus", "sata",
                                                                  "scsi", "usb", "virtio"))]),
    "boot_index": Schema(_I, 'Integer used for ordering the boot disks. If it is not '
                         'specified, value "0" will be set for bootable sources (volume, '
                         'snapshot, image); value "-1" will be set for non-bootable '
                         'sources.'),
    "volume_size": Schema(_I, "Size of the block device in GB. If it is omitted, hypervisor "
                          "driver calculates size."),
    "delete_on_termination": Schema(_B, 'Indicate whether the volume should be deleted when '
                                    'the server is terminated. Defaults to "False" in case of '
                                    'a volume, snapshot or image and to "True" in case of '
                                    'swap or ephemeral.'),
    "volume_type": Schema(_S, "The type of volume to use when creating a volume from image, "
                          "snapshot, or blank source. Maps to a specific Cinder backend. "
                          "Requires Nova API microversion 2.67 or later.",
                          constraints=[CustomConstraint("cinder.vtype")],
                          support_status=SupportStatus(version="26.0.0")),
})

_NETWORK = Schema(_M, schema={
    "uuid": Schema(_S, "ID of network to create a port on.",
                   constraints=[CustomConstraint("neutron.network")],
                   support_status=SupportStatus(
                       Status.HIDDEN, "5.0.0",
                       previous_status=SupportStatus(Status.DEPRECATED, "2014.1",
                                                     "Use property network."))),
    "network": Schema(_S, "Name or ID of network to create a port on.",
                      constraints=[CustomConstraint("neutron.network")]),
    "allocate_network": Schema(
        _S, "The special string values of network, auto: means either a network that is "
        "already available to the project will be used, or if one does not exist, will be "
        "automatically created for the project; none: means no networking will be "
        'allocated for the created server. Supported by Nova API since version "2.37". '
        "This property can not be used with other network keys.",
        constraints=[AllowedValues(("none", "auto"))], update_allowed=True,
        support_status=SupportStatus(version="9.0.0")),
    "fixed_ip": Schema(_S, "Fixed IP address to specify for the port created on the "
                       "requested network.", constraints=[CustomConstraint("ip_addr")]),
    "port": Schema(_S, "ID of an existing port to associate with this server.",
                   constraints=[CustomConstraint("neutron.port")]),
    "port_extra_properties": Schema(_M, "Dict, which has expand properties for port. Used "
                                    "only if port property is not specified for creating "
                                    "port.", schema=PORT_EXTRA, update_allowed=True,
                                    support_status=SupportStatus(version="6.0.0")),
    "subnet": Schema(_S, "Subnet in which to allocate the IP address for port. Used for "
                     "creating port, based on derived properties. If subnet is specified, "
                     "network property becomes optional.",
                     support_status=SupportStatus(version="5.0.0")),
    "floating_ip": Schema(_S, "ID of the floating IP to associate.",
                          support_status=SupportStatus(version="6.0.0")),
    "tag": Schema(_S, "Port tag. Heat ignores any update on this property as nova does not "
                  "support it.", support_status=SupportStatus(version="9.0.0")),
})

PROPERTIES: dict[str, Schema] = {
    "name": Schema(_S, "Server name.", update_allowed=True),
    "image": Schema(_S, "The ID or name of the image to boot with.", update_allowed=True,
                    constraints=[CustomConstraint("glance.image")]),
    "block_device_mapping": Schema(_L, "Block device mappings for this server.",
                                   schema=_BDM_V1),
    "block_device_mapping_v2": Schema(_L, "Block device mappings v2 for this server.",
                                      schema=_BDM_V2,
                                      support_status=SupportStatus(version="2015.1")),
    "flavor": Schema(_S, "The ID or name of the flavor to boot onto.", required=True,
                     update_allowed=True, constraints=[CustomConstraint("nova.flavor")]),
    "flavor_update_policy": Schema(_S, "Policy on how to apply a flavor update; either by "
                                   "requesting a server resize or by replacing the entire "
                                   "server.", default="RESIZE", update_allowed=True,
                                   constraints=[AllowedValues(("RESIZE", "REPLACE"))]),
    "image_update_policy": Schema(_S, "Policy on how to apply an image-id update; either by "
                                  "requesting a server rebuild or by replacing the entire "
                                  "server.", default="REBUILD", update_allowed=True,
                                  constraints=[AllowedValues(("REBUILD", "REPLACE",
                                                              "REBUILD_PRESERVE_EPHEMERAL"))]),
    "key_name": Schema(_S, "Name of keypair to inject into the server.",
                       constraints=[CustomConstraint("nova.keypair")]),
    "admin_user": Schema(_S, "Name of the administrative user to use on the server.",
                         support_status=SupportStatus(
                             Status.HIDDEN, "5.0.0",
                             'The default cloud-init user set up for each image (e.g. '
                             '"ubuntu" for Ubuntu 12.04+, "fedora" for Fedora 19+ and '
                             '"cloud-user" for CentOS/RHEL 6.5).',
                             SupportStatus(Status.DEPRECATED, "2014.1",
                                           previous_status=SupportStatus(version="2013.2")))),
    "availability_zone": Schema(_S, "Name of the availability zone for server placement."),
    "security_groups": Schema(_L, "List of security group names or IDs. Cannot be used if "
                              "neutron ports are associated with this server; assign "
                              "security groups to the ports instead.", default=[]),
    "networks": Schema(_L, "An ordered list of nics to be added to this server, with "
                       "information about connected networks, fixed ips, port etc.",
                       schema=_NETWORK, update_allowed=True),
    "scheduler_hints": Schema(_M, "Arbitrary key-value pairs specified by the client to help "
                              "boot a server."),
    "metadata": Schema(_M, "Arbitrary key/value metadata to store for this server. Both keys "
                       "and values must be 255 characters or less. Non-string values will "
                       "be serialized to JSON (and the serialized string must be 255 "
                       "characters or less).", update_allowed=True, default={}),
    "user_data_format": Schema(_S, "How the user_data should be formatted for the server. For "
                               "HEAT_CFNTOOLS, the user_data is bundled as part of the "
                               "heat-cfntools cloud-init boot configuration data. For RAW the "
                               "user_data is passed to Nova unmodified. For SOFTWARE_CONFIG "
                               "user_data is bundled as part of the software config data, "
                               "and metadata is derived from any associated "
                               "SoftwareDeployment resources. And if the user_data is in "
                               "CoreOS ignition(json) format, the metadata will be injected "
                               "into the user_data automatically by Heat.",
                               default="HEAT_CFNTOOLS",
                               constraints=[AllowedValues(("HEAT_CFNTOOLS", "RAW",
                                                           "SOFTWARE_CONFIG"))]),
    "software_config_transport": Schema(
        _S, "How the server should receive the metadata required for software "
        "configuration. POLL_SERVER_CFN will allow calls to the cfn API action "
        "DescribeStackResource authenticated with the provided keypair. POLL_SERVER_HEAT "
        "will allow calls to the Heat API resource-show using the provided keystone "
        "credentials. POLL_TEMP_URL will create and populate a Swift TempURL with metadata "
        "for polling. ZAQAR_MESSAGE will create a dedicated zaqar queue and post the "
        "metadata for polling.", default="POLL_SERVER_CFN", update_allowed=True,
        constraints=[AllowedValues(("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL",
                                    "ZAQAR_MESSAGE"))]),
    "user_data_update_policy": Schema(_S, "Policy on how to apply a user_data update; by "
                                      "ignoring it, by replacing the entire server, or "
                                      "rebuild the server.", default="REPLACE",
                                      update_allowed=True,
                                      constraints=[AllowedValues(("REPLACE", "IGNORE",
                                                                  "REBUILD"))],
                                      support_status=SupportStatus(version="6.0.0")),
    "user_data": Schema(_S, "User data script to be executed by cloud-init or CoreOS "
                        "ignition. Changes cause replacement of the resource by default, "
                        "but can be ignored altogether by setting the "
                        "`user_data_update_policy` property.", default="",
                        update_allowed=True),
    "reservation_id": Schema(_S, "A UUID for the set of servers being requested."),
    "config_drive": Schema(_B, "If True, enable config drive on the server."),
    "diskConfig": Schema(_S, "Control how the disk is partitioned when the server is "
                         "created.", constraints=[AllowedValues(("AUTO", "MANUAL"))]),
    "personality": Schema(_M, "A map of files to create/overwrite on the server upon boot. "
                          "Keys are file names and values are the file contents.", default={},
                          support_status=SupportStatus(
                              Status.DEPRECATED, "12.0.0",
                              "This is not supported with nova api microversion 2.57 and "
                              "above. OS::Nova::Server resource will not support it in the "
                              "future. Please use user_data or metadata instead. However, "
                              "you can set heat config option max_nova_api_microversion < "
                              "2.57 to use this property in the meantime.")),
    "admin_pass": Schema(_S, "The administrator password for the server.",
                         update_allowed=True),
    "tags": Schema(_L, "Server tags. Supported since client version 2.26.",
                   schema=Schema(_S), update_allowed=True,
                   support_status=SupportStatus(version="8.0.0")),
    "deployment_swift_data": Schema(
        _M, "Swift container and object to use for storing deployment data for the server "
        "resource. The parameter is a map value with the keys \"container\" and \"object\", "
        "and the values are the corresponding container and object names. The "
        "software_config_transport parameter must be set to POLL_TEMP_URL for swift to be "
        "used. If not specified, and software_config_transport is set to POLL_TEMP_URL, a "
        "container will be automatically created from the resource name, and the object "
        "name will be a generated uuid.", default={}, update_allowed=True,
        support_status=SupportStatus(version="9.0.0"),
        schema={"container": Schema(_S, "Name of the container.", constraints=[Length(min=1)]),
                "object": Schema(_S, "Name of the object.", constraints=[Length(min=1)])}),
}

ATTRIBUTES: dict[str, Attribute] = {
    "name": Attribute("Name of the server.", Attribute.STRING),
    "addresses": Attribute(
        "A dict of all network addresses with corresponding port_id and subnets. Each "
        "network will have two keys in dict, they are network name and network id. The port "
        "ID may be obtained through the following expression: ``{get_attr: [<server>, "
        "addresses, <network name_or_id>, 0, port]}``. The subnets may be obtained trough "
        "the following expression: ``{get_attr: [<server>, addresses, <network name_or_id>, "
        "0, subnets]}``. The network may be obtained through the following expression: "
        "``{get_attr: [<server>, addresses, <network name_or_id>, 0, network]}``.",
        Attribute.MAP,
        SupportStatus(version="11.0.0", message="The attribute was extended to include "
                      "subnets and network with version 11.0.0.",
                      previous_status=SupportStatus())),
    "networks": Attribute(
        'A dict of assigned network addresses of the form: {"public": [ip1, ip2...], '
        '"private": [ip3, ip4], "public_uuid": [ip1, ip2...], "private_uuid": [ip3, ip4]}. '
        "Each network will have two keys in dict, they are network name and network id.",
        Attribute.MAP),
    "first_address": Attribute(
        "Convenience attribute to fetch the first assigned network address, or an empty "
        "string if nothing has been assigned at this time. Result may not be predictable if "
        "the server has addresses from more than one network.", Attribute.STRING,
        SupportStatus(Status.HIDDEN, "5.0.0", 'Use the networks attribute instead of '
                      'first_address. For example: "{get_attr: [<server name>, networks, '
                      '<network name>, 0]}"',
                      SupportStatus(Status.DEPRECATED, "2014.2",
                                    previous_status=SupportStatus(version="2013.2")))),
    "instance_name": Attribute("AWS compatible instance name.", Attribute.STRING),
    "accessIPv4": Attribute("The manually assigned alternative public IPv4 address of the "
                            "server.", Attribute.STRING,
                            SupportStatus(Status.DEPRECATED, "14.0.0",
                                          previous_status=SupportStatus(version="2015.1"))),
    "accessIPv6": Attribute("The manually assigned alternative public IPv6 address of the "
                            "server.", Attribute.STRING,
                            SupportStatus(Status.DEPRECATED, "14.0.0",
                                          previous_status=SupportStatus(version="2015.1"))),
    "console_urls": Attribute(
        "URLs of server's consoles. To get a specific console type, the requested type can "
        "be specified as parameter to the get_attr function, e.g. get_attr: [ <server>, "
        "console_urls, novnc ]. Currently supported types are novnc, xvpvnc, spice-html5, "
        "rdp-html5, serial and webmks.", Attribute.MAP, SupportStatus(version="2015.1")),
    "tags": Attribute("Tags from the server. Supported since client version 2.26.",
                      Attribute.LIST, SupportStatus(version="8.0.0")),
    "os_collect_config": Attribute(
        "The os-collect-config configuration for the server's local agent to be configured "
        "to connect to Heat to retrieve deployment data.", Attribute.MAP,
        SupportStatus(version="9.0.0")),
}

RULES: tuple[TranslationRule, ...] = (
    TranslationRule.replace(("networks", "network"), "uuid"),
    TranslationRule.resolve(("flavor",), "flavor"),
    TranslationRule.resolve(("image",), "image"),
    TranslationRule.replace(("block_device_mapping_v2", "image"), "image_id"),
    TranslationRule.resolve(("block_device_mapping_v2", "image"), "image"),
    TranslationRule.resolve(("networks", "network"), "network"),
    TranslationRule.resolve(("networks", "subnet"), "subnet"),
    TranslationRule.resolve(("networks", "port"), "port"),
)
"""Heat's translation rules for the server, in its order."""
