"""OS::Keystone::Domain (Heat's ``domain.py``).

Every property changes in place. Keystone deletes only a disabled domain: as in
Heat, a stack disables it by an update (``enabled: false``) before its delete,
else the delete fails with Keystone's Forbidden.
"""

from __future__ import annotations

from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.properties import Schema

__all__ = ["Domain"]


class Domain(KeystoneResource):
    """Heat Template Resource for Keystone Domain.

    This plug-in helps to create, update and delete a keystone domain. Also
    it can be used for enable or disable a given keystone domain.
    """

    support_status = keystone_status("8.0.0")
    heat_class_name = "KeystoneDomain"
    collection, entity = "domains", "domain"

    properties_schema = {
        "name": Schema(Schema.STRING, "The name of the domain.", update_allowed=True),
        "description": Schema(Schema.STRING, "Description of keystone domain.",
                              update_allowed=True),
        "enabled": Schema(Schema.BOOLEAN, "This domain is enabled or disabled.", default=True,
                          update_allowed=True),
    }
