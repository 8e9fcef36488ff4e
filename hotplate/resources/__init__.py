"""The resource plugin API and the built-in resource types.

Plugins import what they need from here::

    from hotplate.resources import Attribute, Range, Resource, Schema

Built-in types live one per module (``none``, ``test_resource``,
``random_string``, ``value``) and are found, like third-party ones, through
the ``hotplate.resources`` entry point group (see ``registry``). This
package imports ``hotplate.model`` and ``hotplate.ports`` only, never the
engine.
"""

from hotplate.resources.attributes import (
    SHOW,
    Attribute,
    AttributeType,
    InvalidTemplateAttribute,
)
from hotplate.resources.base import Resource, ResourceContext
from hotplate.resources.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    InvalidSchemaError,
    Length,
    Modulo,
    Range,
)
from hotplate.resources.properties import (
    PropertyType,
    Schema,
    coerce_value,
    validate_properties,
    with_defaults,
)
from hotplate.resources.registry import ENTRY_POINT_GROUP, Registry
from hotplate.resources.support import Status, SupportStatus

__all__ = [
    "ENTRY_POINT_GROUP",
    "SHOW",
    "AllowedPattern",
    "AllowedValues",
    "Attribute",
    "AttributeType",
    "Constraint",
    "InvalidSchemaError",
    "InvalidTemplateAttribute",
    "Length",
    "Modulo",
    "PropertyType",
    "Range",
    "Registry",
    "Resource",
    "ResourceContext",
    "Schema",
    "Status",
    "SupportStatus",
    "coerce_value",
    "validate_properties",
    "with_defaults",
]
