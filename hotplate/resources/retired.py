"""Types Heat keeps only as stand-ins that do nothing: a retired service's (OS::Sahara::*,
OS::Senlin::*, OS::Monasca::*, Neutron's LBaaS v1 and v2, ...).

Heat's own plugins for them are ``OS::Heat::None`` under another name with a
HIDDEN support status, so a template or an old stack naming one still loads,
creates nothing and is never listed. The registry builds the same here from
Heat's table (``heat_types``) when a template names one.
"""

from __future__ import annotations

from hotplate.resources.base import Resource
from hotplate.resources.heat_types import HEAT_TYPES
from hotplate.resources.none import NoneResource
from hotplate.resources.support import SupportStatus

__all__ = ["placeholder_class"]


def placeholder_class(type_name: str) -> type[Resource] | None:
    """A do-nothing plugin for one of Heat's stand-in types, None for any other type."""
    known = HEAT_TYPES.get(type_name)
    if known is None or not known.placeholder:
        return None
    status = SupportStatus(known.status, known.version, known.message)
    return type(known.heat_class, (NoneResource,), {
        "support_status": status,
        "heat_class_name": known.heat_class,
        "__doc__": f"{type_name}: {known.message or 'kept as a placeholder'}",
        "__module__": __name__,
    })
