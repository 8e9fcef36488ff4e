"""OS::Heat::SoftwareComponent: one config per lifecycle action, stored as group ``component``.

The stored config is ``{"configs": [...]}``; a deployment of it runs only for
the actions some entry lists (software_deployment.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources import software_config as sc
from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import Length
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus

__all__ = ["COMPONENT_GROUP", "SoftwareComponent"]

CONFIGS, ACTIONS, TOOL = "configs", "actions", "tool"
COMPONENT_GROUP = "component"

CONFIG_SCHEMA = Schema(Schema.MAP, schema={
    ACTIONS: Schema(Schema.LIST, "Lifecycle actions to which the configuration applies. The "
                    "string values provided for this property can include the standard "
                    "resource actions CREATE, DELETE, UPDATE, SUSPEND and RESUME supported "
                    "by Heat.", default=["CREATE", "UPDATE"],
                    schema=Schema(Schema.STRING), constraints=[Length(min=1)]),
    sc.CONFIG: sc.SoftwareConfig.properties_schema[sc.CONFIG],
    TOOL: Schema(Schema.STRING, "The configuration tool used to actually apply the "
                 "configuration on a server. This string property has to be understood by "
                 "in-instance tools running inside deployed servers.", required=True),
})


class SoftwareComponent(sc.SoftwareConfig):
    """A resource for describing and storing a software component.

    This resource is similar to OS::Heat::SoftwareConfig. In contrast to
    SoftwareConfig which allows for storing only one configuration (e.g. one
    script), SoftwareComponent allows for storing multiple configurations to
    address handling of all lifecycle hooks (CREATE, UPDATE, SUSPEND, RESUME,
    DELETE) for a software component in one place.

    This resource is backed by the persistence layer and the API of the
    SoftwareConfig resource, and only adds handling for the additional
    'configs' property and attribute.
    """

    support_status = SupportStatus(version="2014.2")
    properties_schema = {
        CONFIGS: Schema(Schema.LIST, "The list of configurations for the different lifecycle "
                        "actions of the represented software component.",
                        schema=CONFIG_SCHEMA, constraints=[Length(min=1)], required=True),
        sc.INPUTS: sc.INPUTS_SCHEMA,
        sc.OUTPUTS: sc.OUTPUTS_SCHEMA,
        sc.OPTIONS: sc.OPTIONS_SCHEMA,
    }
    attributes_schema = {
        CONFIGS: Attribute("The list of configurations for the different lifecycle actions "
                           "of the represented software component.", Attribute.LIST),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        props = super().validate(raw, path)
        seen: set[str] = set()
        name = path[1] if len(path) > 1 else ""
        for config in props.get(CONFIGS) or []:
            actions = list(config.get(ACTIONS) or [])
            if any(action in seen for action in actions):
                raise StackValidationFailed(
                    "Defining more than one configuration for the same action in "
                    f'SoftwareComponent "{name}" is not allowed.', path[:2])
            seen.update(actions)
        return props

    def config_body(self) -> dict[str, Any]:
        return {"group": COMPONENT_GROUP,
                "config": {CONFIGS: list(self.properties.get(CONFIGS) or [])},
                "inputs": list(self.properties.get(sc.INPUTS) or []),
                "outputs": list(self.properties.get(sc.OUTPUTS) or []),
                "options": self.properties.get(sc.OPTIONS)}

    def _resolve_attribute(self, name: str) -> Any:
        if name == CONFIGS:
            found = self.stored_config()
            config = found.get("config") if found is not None else None
            return config.get(CONFIGS) if isinstance(config, Mapping) else None
        return None
