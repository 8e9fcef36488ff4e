"""OS::Neutron::RBACPolicy: sharing one Neutron object with a project (Heat's ``RBACPolicy``).

``object_id`` names an object of the kind ``object_type`` says, so its lookup
(a name to an id) depends on that other property: the type resolves it itself
rather than through a fixed translation rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus

__all__ = ["RBACPolicy"]

SUPPORTED_TYPES_ACTIONS: Mapping[str, tuple[str, ...]] = {
    "network": ("access_as_shared", "access_as_external"),
    "qos_policy": ("access_as_shared",),
    "security_group": ("access_as_shared",),
    "address_scope": ("access_as_shared",),
    "subnetpool": ("access_as_shared",),
}
"""Which actions Neutron allows on each kind of object (Heat's table)."""


class RBACPolicy(NeutronResource):
    """A Resource for managing RBAC policy in Neutron.

    This resource creates and manages Neutron RBAC policy, which allows to share
    Neutron networks, qos-policies, security-groups, address-scopes, subnetpools
    to subsets of tenants.
    """

    required_service_extension = "rbac-policies"
    support_status = SupportStatus(version="6.0.0")
    entity = "rbac_policy"
    collection = "rbac-policies"
    names_itself = False

    properties_schema = {
        "object_type": Schema(Schema.STRING, "Type of the object that RBAC policy affects.",
                              required=True,
                              constraints=[AllowedValues(tuple(SUPPORTED_TYPES_ACTIONS))]),
        "target_tenant": Schema(Schema.STRING, "ID of the tenant to which the RBAC policy "
                                "will be enforced.", required=True, update_allowed=True),
        "action": Schema(Schema.STRING, "Action for the RBAC policy. The allowed actions "
                         "differ for different object types - only network objects can have "
                         "an access_as_external action.", required=True,
                         constraints=[AllowedValues(("access_as_shared",
                                                     "access_as_external"))]),
        "object_id": Schema(Schema.STRING, "ID or name of the RBAC object.", required=True),
        "tenant_id": Schema(Schema.STRING, "The owner tenant ID. Only required if the caller "
                            "has an administrative role and wants to create a RBAC for "
                            "another tenant."),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        action, kind = props.get("action"), props.get("object_type")
        allowed = SUPPORTED_TYPES_ACTIONS.get(str(kind))
        if allowed is not None and action not in allowed:
            raise StackValidationFailed(
                f'Invalid action "{action}" for object type {kind}. Valid actions: '
                f"{', '.join(allowed)}", (*path, "action"))

    @classmethod
    def resolves_properties(cls) -> bool:
        return True

    @classmethod
    def resolve_properties(cls, props: Mapping[str, Any], cloud: Any) -> dict[str, Any]:
        """``object_id`` looked up as an object of ``object_type`` (Heat's RESOLVE rule
        with the finder the object type names)."""
        resolved = dict(props)
        if resolved.get("object_id") and resolved.get("object_type"):
            resolved["object_id"] = cloud.find(str(resolved["object_type"]),
                                               str(resolved["object_id"]))
        return resolved

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        return dict(prop_diff)
