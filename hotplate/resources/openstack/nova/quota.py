"""OS::Nova::Quota (Heat's ``nova/quota.py``): a project's Nova limits (``quota``).

Limits go as Nova's ``quota_set`` at the microversion the other Nova types use;
Nova itself refuses those its API no longer has at that version (fixed and
floating IPs and security groups since 2.36, injected files since 2.57), as it
refuses them to Heat. The delete sets the project back to Nova's defaults; a
project already gone is fine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.quota import PROJECT, PROJECT_SCHEMA, QuotaResource, limit
from hotplate.resources.support import Status, SupportStatus

__all__ = ["NovaQuota"]

_INJECTION = SupportStatus(Status.DEPRECATED, "14.0.0", "File injection is deprecated from "
                           "compute REST API OS::Nova::Quota resource will not support it in "
                           "the future.")
_UNLIMITED = "Setting the value to -1 removes the limit."


class NovaQuota(QuotaResource):
    """A resource for creating nova quotas.

    Nova Quota is used to manage operational limits for projects. Currently,
    this resource can manage Nova's quotas for:

        - cores
        - fixed_ips
        - floating_ips
        - instances
        - injected_files
        - injected_file_content_bytes
        - injected_file_path_bytes
        - key_pairs
        - metadata_items
        - ram
        - security_groups
        - security_group_rules
        - server_groups
        - server_group_members

    Note that default nova security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Nova Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    support_status = SupportStatus(version="8.0.0")
    default_client_name = "nova"

    properties_schema = {
        PROJECT: PROJECT_SCHEMA,
        "cores": limit(f"Quota for the number of cores. {_UNLIMITED}"),
        "fixed_ips": limit(f"Quota for the number of fixed IPs. {_UNLIMITED}"),
        "floating_ips": limit(f"Quota for the number of floating IPs. {_UNLIMITED}"),
        "instances": limit(f"Quota for the number of instances. {_UNLIMITED}"),
        "injected_files": limit(f"Quota for the number of injected files. {_UNLIMITED}",
                                _INJECTION),
        "injected_file_content_bytes": limit("Quota for the number of injected file content "
                                             f"bytes. {_UNLIMITED}", _INJECTION),
        "injected_file_path_bytes": limit("Quota for the number of injected file path bytes. "
                                          f"{_UNLIMITED}", _INJECTION),
        "key_pairs": limit(f"Quota for the number of key pairs. {_UNLIMITED}"),
        "metadata_items": limit(f"Quota for the number of metadata items. {_UNLIMITED}"),
        "ram": limit(f"Quota for the amount of ram (in megabytes). {_UNLIMITED}"),
        "security_groups": limit(f"Quota for the number of security groups. {_UNLIMITED}"),
        "security_group_rules": limit("Quota for the number of security group rules. "
                                      f"{_UNLIMITED}"),
        "server_groups": limit(f"Quota for the number of server groups. {_UNLIMITED}"),
        "server_group_members": limit("Quota for the number of server group members. "
                                      f"{_UNLIMITED}"),
    }

    def _path(self, project: str) -> str:
        return f"/os-quota-sets/{project}"

    def set_limits(self, project: str, limits: Mapping[str, Any]) -> None:
        NovaApi(self.cloud).put(self._path(project), {"quota_set": dict(limits)})

    def reset(self, project: str) -> None:
        NovaApi(self.cloud).delete(self._path(project))  # gone (404) is fine

    def read(self, project: str) -> Any:
        return NovaApi(self.cloud).get(self._path(project))["quota_set"]
