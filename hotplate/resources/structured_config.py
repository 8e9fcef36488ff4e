"""OS::Heat::StructuredConfig: a SoftwareConfig whose ``config`` is a map, not a string.

Tools that read YAML or JSON (cfn-init, os-apply-config) take the structure
as it is; its ``{get_input: name}`` snippets are filled in per deployment by
OS::Heat::StructuredDeployment (structured_deployment.py).
"""

from __future__ import annotations

from hotplate.resources import software_config as sc
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus

__all__ = ["StructuredConfig"]


class StructuredConfig(sc.SoftwareConfig):
    """A resource which has same logic with OS::Heat::SoftwareConfig.

    This resource is like OS::Heat::SoftwareConfig except that the config
    property is represented by a Map rather than a String.

    This is useful for configuration tools which use YAML or JSON as their
    configuration syntax. The resulting configuration is transferred,
    stored and returned by the software_configs API as parsed JSON.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        sc.GROUP: sc.GROUP_SCHEMA,
        sc.OPTIONS: sc.OPTIONS_SCHEMA,
        sc.INPUTS: sc.INPUTS_SCHEMA,
        sc.OUTPUTS: sc.OUTPUTS_SCHEMA,
        sc.CONFIG: Schema(Schema.MAP, "Map representing the configuration data structure "
                          "which will be serialized to JSON format."),
    }
