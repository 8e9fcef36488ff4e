"""Cinder's resource types (``OS::Cinder::*``, and AWS's volumes), as Heat 27.0.1 defines them.

``api`` is the REST call layer (a volume microversion, Cinder's error texts as
Heat shows cinderclient's); ``errors`` Heat's exceptions under their names;
``attachments`` the attach and detach steps (Nova asked, Cinder and Nova
waited on). ``volume_base`` is what every volume does (create, the waits,
delete with the Snapshot policy's backup, check), ``volume`` OS::Cinder::Volume
with its update (``volume_update``: which slow steps, pure),
``volume_attachment`` the attachment, ``aws`` AWS::EC2::Volume and
VolumeAttachment. The admin types: ``volume_type`` (types and their
encryption), ``qos`` (QoS specs and their association with types), ``quota``.
"""
