"""OS::Neutron::Quota (Heat's ``neutron/quota.py``): a project's Neutron limits (``quota``).

Needs Neutron's ``quotas`` extension. The delete sets the project back to
Neutron's defaults (a project with nothing of its own set, or gone, is fine).
Heat 27.0.1 asks Neutron to reset the quota of the resource's physical name,
which is no project, and so leaves the project's limits as they were; this
resets the project's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.quota import PROJECT, PROJECT_SCHEMA, QuotaResource, limit
from hotplate.resources.support import SupportStatus

__all__ = ["NeutronQuota"]

_V12 = SupportStatus(version="12.0.0")
_UNLIMITED = "Setting -1 means unlimited."


class NeutronQuota(QuotaResource):
    """A resource for managing neutron quotas.

    Neutron Quota is used to manage operational limits for projects. Currently,
    this resource can manage Neutron's quotas for:

        - subnet
        - network
        - floatingip
        - security_group_rule
        - security_group
        - router
        - port
        - subnetpool
        - rbac_policy

    Note that default neutron security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Neutron Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    support_status = SupportStatus(version="8.0.0")
    default_client_name = "neutron"
    required_service_extension = "quotas"

    properties_schema = {
        PROJECT: PROJECT_SCHEMA,
        "subnet": limit(f"Quota for the number of subnets. {_UNLIMITED}"),
        "network": limit(f"Quota for the number of networks. {_UNLIMITED}"),
        "floatingip": limit(f"Quota for the number of floating IPs. {_UNLIMITED}"),
        "security_group_rule": limit("Quota for the number of security group rules. "
                                     f"{_UNLIMITED}"),
        "security_group": limit(f"Quota for the number of security groups. {_UNLIMITED}"),
        "router": limit(f"Quota for the number of routers. {_UNLIMITED}"),
        "port": limit(f"Quota for the number of ports. {_UNLIMITED}"),
        "subnetpool": limit(f"Quota for the number of subnet pools. {_UNLIMITED}", _V12),
        "rbac_policy": limit(f"Quota for the number of rbac policies. {_UNLIMITED}", _V12),
    }

    def set_limits(self, project: str, limits: Mapping[str, Any]) -> None:
        NeutronApi(self.cloud).request("PUT", f"/quotas/{project}", {"quota": dict(limits)})

    def reset(self, project: str) -> None:
        NeutronApi(self.cloud).delete("quotas", project)  # gone (404) is fine

    def read(self, project: str) -> Any:
        return NeutronApi(self.cloud).request("GET", f"/quotas/{project}")["quota"]
