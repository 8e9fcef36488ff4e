"""OS::Heat::CloudConfig: cloud-init's cloud-config, stored as ``#cloud-config`` YAML."""

from __future__ import annotations

from typing import Any

import yaml

from hotplate.resources import software_config as sc
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus

__all__ = ["CloudConfig"]

CLOUD_CONFIG = "cloud_config"


def cloud_config_text(data: Any) -> str:
    """The stored config: the header cloud-init looks for, then the map as block YAML."""
    return "#cloud-config\n" + yaml.dump(data, Dumper=yaml.SafeDumper)


class CloudConfig(sc.SoftwareConfig):
    """A configuration resource for representing cloud-init cloud-config.

    This resource allows cloud-config YAML to be defined and stored by the
    config API. Any intrinsic functions called in the config will be resolved
    before storing the result.

    This resource will generally be referenced by OS::Nova::Server user_data,
    or OS::Heat::MultipartMime parts config. Since cloud-config is boot-only
    configuration, any changes to the definition will result in the
    replacement of all servers which reference it.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        CLOUD_CONFIG: Schema(Schema.MAP, "Map representing the cloud-config data structure "
                             "which will be formatted as YAML."),
    }

    def config_body(self) -> dict[str, Any]:
        return {"group": sc.UNGROUPED,
                "config": cloud_config_text(self.properties.get(CLOUD_CONFIG)),
                "inputs": [], "outputs": [], "options": None}
