"""Attribute declarations, and the ``show`` attribute every resource has.

A plugin declares ``attributes_schema = {"value": Attribute("...", Attribute.STRING)}``
and resolves them in ``_resolve_attribute``. ``get_attr`` on a name that is
neither declared nor ``show`` fails with Heat's InvalidTemplateAttribute text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import InvalidSchemaError
from hotplate.resources.support import SupportStatus

__all__ = ["SHOW", "Attribute", "AttributeType", "InvalidTemplateAttribute", "SHOW_ATTRIBUTE"]


class AttributeType(StrEnum):
    STRING = "String"
    MAP = "Map"
    LIST = "List"
    INTEGER = "Integer"
    BOOLEAN = "Boolean"
    NUMBER = "Number"


_BY_LOWER = {t.value.lower(): t for t in AttributeType}


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute a resource exposes through ``get_attr``.

    ``type`` is documentation for resource-type listings (Heat only warns on
    a mismatch), so values are never coerced to it.
    """

    description: str = ""
    type: AttributeType | str | None = None
    support_status: SupportStatus = field(default_factory=SupportStatus)

    STRING: ClassVar[AttributeType] = AttributeType.STRING
    MAP: ClassVar[AttributeType] = AttributeType.MAP
    LIST: ClassVar[AttributeType] = AttributeType.LIST
    INTEGER: ClassVar[AttributeType] = AttributeType.INTEGER
    BOOLEAN: ClassVar[AttributeType] = AttributeType.BOOLEAN
    NUMBER: ClassVar[AttributeType] = AttributeType.NUMBER

    def __post_init__(self) -> None:
        if self.type is None:
            return
        kind = _BY_LOWER.get(str(self.type).lower())
        if kind is None:
            raise InvalidSchemaError(f"Invalid type ({self.type})")
        object.__setattr__(self, "type", kind)

    def as_dict(self) -> dict[str, Any]:
        """Heat's resource-type view of this attribute."""
        out: dict[str, Any] = {"description": self.description}
        if self.type is not None:
            out["type"] = str(self.type).lower()
        return out


SHOW = "show"
"""Heat's base attribute: a detailed view of the resource."""

SHOW_ATTRIBUTE = Attribute("Detailed information about resource.", AttributeType.MAP)


class InvalidTemplateAttribute(StackValidationFailed):
    """``get_attr`` names an attribute the resource type does not have."""

    def __init__(self, resource: str, key: str) -> None:
        super().__init__(f"The Referenced Attribute ({resource} {key}) is incorrect.")
        self.resource = resource
        self.key = key
