"""OS::Heat::SoftwareConfig: a stored, immutable piece of configuration for servers.

The config lives in the software_configs API (the engine's
``create_software_config``); the resource's physical id is the config's id.
Nothing updates in place: any change to the properties makes a new config
and the old one is deleted, as in Heat. Subclasses (StructuredConfig,
CloudConfig, MultipartMime, SoftwareComponent) change only what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources import software_io
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.software_port import ConfigNotFound, software_configs
from hotplate.resources.support import SupportStatus

__all__ = ["SoftwareConfig"]

GROUP, CONFIG, OPTIONS, INPUTS, OUTPUTS = "group", "config", "options", "inputs", "outputs"
CONFIG_ATTR = "config"
UNGROUPED = "Heat::Ungrouped"

GROUP_SCHEMA = Schema(Schema.STRING, "Namespace to group this software config by when "
                      "delivered to a server. This may imply what configuration tool is "
                      "going to perform the configuration.", default=UNGROUPED)
OPTIONS_SCHEMA = Schema(Schema.MAP, "Map containing options specific to the configuration "
                        "management tool used by this resource.")
INPUTS_SCHEMA = Schema(Schema.LIST, "Schema representing the inputs that this software "
                       "config is expecting.",
                       schema=Schema(Schema.MAP, schema=software_io.INPUT_SCHEMA))
OUTPUTS_SCHEMA = Schema(Schema.LIST, "Schema representing the outputs that this software "
                        "config will produce.",
                        schema=Schema(Schema.MAP, schema=software_io.OUTPUT_SCHEMA))


class SoftwareConfig(Resource):
    """A resource for describing and storing software configuration.

    The software_configs API which backs this resource creates immutable
    configs, so any change to the template resource definition will result
    in a new config being created, and the old one being deleted.

    Configs can be defined in the same template which uses them, or they can
    be created in one stack, and passed to another stack via a parameter.

    A config resource can be referenced in other resource properties which
    are config-aware. This includes the properties OS::Nova::Server user_data,
    OS::Heat::SoftwareDeployment config and OS::Heat::MultipartMime parts
    config.

    Along with the config script itself, this resource can define schemas for
    inputs and outputs which the config script is expected to consume and
    produce. Inputs and outputs are optional and will map to concepts which
    are specific to the configuration tool being used.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        GROUP: GROUP_SCHEMA,
        CONFIG: Schema(Schema.STRING, "Configuration script or manifest which specifies "
                       "what actual configuration is performed."),
        OPTIONS: OPTIONS_SCHEMA,
        INPUTS: INPUTS_SCHEMA,
        OUTPUTS: OUTPUTS_SCHEMA,
    }
    attributes_schema = {
        CONFIG_ATTR: Attribute("The config value of the software config.", Attribute.STRING),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        props = super().validate(raw, path)
        for key, check in ((INPUTS, software_io.input_config),
                           (OUTPUTS, software_io.output_config)):
            for index, item in enumerate(props.get(key) or []):
                check(item, (*path, key, index))
        return props

    def config_body(self) -> dict[str, Any]:
        """What ``create_software_config`` is given: group, config, inputs, outputs, options."""
        return {"group": self.properties.get(GROUP) or UNGROUPED,
                "config": self.properties.get(CONFIG),
                "inputs": list(self.properties.get(INPUTS) or []),
                "outputs": list(self.properties.get(OUTPUTS) or []),
                "options": self.properties.get(OPTIONS)}

    def handle_create(self) -> None:
        body = self.config_body()
        made = software_configs(self).create_config(name=self.physical_resource_name(), **body)
        self.resource_id_set(str(made["id"]))

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            software_configs(self).delete_config(self.resource_id)

    def stored_config(self) -> dict[str, Any] | None:
        """This config as the API shows it; None before it exists or after it is gone."""
        if not self.resource_id:
            return None
        try:
            return software_configs(self).show_config(self.resource_id)
        except ConfigNotFound:
            return None

    def _resolve_attribute(self, name: str) -> Any:
        if name == CONFIG_ATTR:
            found = self.stored_config()
            return found.get("config") if found is not None else None
        return None
