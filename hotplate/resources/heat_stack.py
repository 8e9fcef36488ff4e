"""OS::Heat::Stack: a stack created from a template given as a property.

In Heat this type may create its stack in another region or cloud; here it
is always this engine's (``context.region_name`` is accepted and has no
effect). As in Heat, the stack is one of its own (not nested under the
parent in listings) and is deleted with the resource.
"""

from __future__ import annotations

from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.properties import Schema
from hotplate.resources.stack_resource import StackResource
from hotplate.resources.support import SupportStatus

__all__ = ["HeatStack"]


class HeatStack(StackResource):
    """A resource representing a stack which can be created from a template."""

    heat_class_name = "RemoteStack"

    owned = False
    support_status = SupportStatus(version="6.0.0")
    properties_schema = {
        "context": Schema(Schema.MAP, "Context for this stack.", schema={
            "region_name": Schema(Schema.STRING, "Region name in which this stack "
                                  "will be created."),
        }),
        "template": Schema(Schema.STRING, "Template that specifies the stack to be created "
                           "as a resource.", required=True, update_allowed=True),
        "timeout": Schema(Schema.NUMBER, "Number of minutes to wait for this stack "
                          "creation.", update_allowed=True),
        "parameters": Schema(Schema.MAP, "Set of parameters passed to this stack.",
                             default={}, update_allowed=True),
    }
    attributes_schema = {
        "stack_name": Attribute("Name of the stack.", Attribute.STRING),
        "outputs": Attribute("A dict of key-value pairs output from the stack.",
                             Attribute.MAP),
    }

    def child_template(self) -> str:
        return str(self.properties["template"])

    def child_parameters(self) -> dict[str, Any]:
        return dict(self.properties.get("parameters") or {})

    def _resolve_attribute(self, name: str) -> Any:
        if name == "stack_name":
            return self.physical_resource_name() if self.resource_id else None
        if name == "outputs":
            return self.child_outputs()
        return None
