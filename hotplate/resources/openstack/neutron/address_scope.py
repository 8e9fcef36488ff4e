"""OS::Neutron::AddressScope: a scope subnet pools share (Heat's ``AddressScope``)."""

from __future__ import annotations

from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus

__all__ = ["AddressScope"]


class AddressScope(NeutronResource):
    """A resource for Neutron address scope.

    This resource can be associated with multiple subnet pools in a one-to-many
    relationship. The subnet pools under an address scope must not overlap.
    """

    required_service_extension = "address-scope"
    support_status = SupportStatus(version="6.0.0")
    entity = "address_scope"
    collection = "address-scopes"

    properties_schema = {
        "name": Schema(Schema.STRING, "The name for the address scope.", update_allowed=True),
        "shared": Schema(Schema.BOOLEAN, "Whether the address scope should be shared to other "
                         "tenants. Note that the default policy setting restricts usage of "
                         "this attribute to administrative users only, and restricts changing "
                         "of shared address scope to unshared with update.", default=False,
                         update_allowed=True),
        "tenant_id": Schema(Schema.STRING, "The owner tenant ID of the address scope. Only "
                            "administrative users can specify a tenant ID other than their "
                            "own.", constraints=[CustomConstraint("keystone.project")]),
        "ip_version": Schema(Schema.INTEGER, "Address family of the address scope, which is 4 "
                             "or 6.", default=4, constraints=[AllowedValues((4, 6))]),
    }
