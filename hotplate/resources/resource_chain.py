"""OS::Heat::ResourceChain: a list of resource types, one member each, in a nested stack.

Members are named by position (``0``, ``1``, ...), all take
``resource_properties``, and unless ``concurrent`` each depends on the one
before it, so they are created in order and deleted in reverse. Attributes
are the group ones (``member_group.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.member_group import ATTRIBUTES, REFS, MemberGroup
from hotplate.resources.properties import Schema, with_defaults
from hotplate.resources.support import SupportStatus

__all__ = ["ResourceChain"]

RESOURCES, CONCURRENT, RESOURCE_PROPERTIES = "resources", "concurrent", "resource_properties"


class ResourceChain(MemberGroup):
    """Creates one or more resources with the same configuration.

    The types of the resources are given by the ``resources`` list; each is
    given the ``resource_properties``. The ``concurrent`` property controls
    whether they are created concurrently: if omitted or false, each resource
    depends on the one before it in the list.
    """

    support_status = SupportStatus(version="6.0.0")
    properties_schema = {
        RESOURCES: Schema(Schema.LIST, "The list of resource types to create. This list may "
                          "contain type names or aliases defined in the resource registry. "
                          "Specific template names are not supported.",
                          required=True, update_allowed=True),
        CONCURRENT: Schema(Schema.BOOLEAN, "If true, the resources in the chain will be "
                           "created concurrently. If false or omitted, each resource will be "
                           "treated as having a dependency on the previous resource in the "
                           "list.", default=False),
        RESOURCE_PROPERTIES: Schema(Schema.MAP, "Properties to pass to each resource being "
                                    "created in the chain."),
    }
    attributes_schema = {
        REFS: Attribute("A list of resource IDs for the resources in the chain.",
                        Attribute.LIST),
        ATTRIBUTES: Attribute("A map of resource names to the specified attribute of each "
                              "individual resource.", Attribute.MAP),
    }

    def _names(self, size: int | None = None) -> list[str]:
        return [str(i) for i in range(len(self.properties[RESOURCES] or ()))]

    def child_template(self) -> dict[str, Any]:
        return self.chain_template(self.properties)

    @classmethod
    def chain_template(cls, properties: Mapping[str, Any]) -> dict[str, Any]:
        props = with_defaults(cls.properties_schema, properties)
        members: list[tuple[str, Mapping[str, Any]]] = []
        for index, type_name in enumerate(props[RESOURCES] or ()):
            snippet: dict[str, Any] = {"type": str(type_name)}
            if props[RESOURCE_PROPERTIES]:
                snippet["properties"] = dict(props[RESOURCE_PROPERTIES])
            if index > 0 and not props[CONCURRENT]:
                snippet["depends_on"] = [str(index - 1)]
            members.append((str(index), snippet))
        return {"heat_template_version": "2015-04-30",
                "resources": {name: dict(defn) for name, defn in members}}

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        return cls.chain_template(properties)

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        self.properties = with_defaults(self.properties_schema, new_properties)
        return self.apply_child_template(self.child_template())

    def check_update_complete(self, data: Any) -> bool:
        return self.child_done(data) if isinstance(data, str) else self.child_done("UPDATE")
