"""OS::Heat::None: a placeholder that stands in for any other resource type.

Mapping a type to OS::Heat::None in an environment's resource_registry
disables those resources without editing the template, so this type must
accept whatever the real type would have taken: any properties, any
attribute (always None), and never a replacement on update.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.base import Resource
from hotplate.resources.properties import PropertyPath
from hotplate.resources.support import SupportStatus

__all__ = ["NoneResource"]

IS_PLACEHOLDER = "is_placeholder"


class NoneResource(Resource):
    """Enables easily disabling certain resources via the resource_registry.

    It does nothing, but can effectively stub out any other resource because it
    will accept any properties and return any attribute (as None). It is never
    replaced on update, even where the stubbed type would have been.
    """

    local_only = True
    support_status = SupportStatus(version="5.0.0")

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """Anything goes; the properties are dropped, so an update never sees a change."""
        return {}

    @classmethod
    def needs_replacement(cls, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        return False

    def handle_create(self) -> None:
        # The row's own UUID is unique per physical attempt (a replacement is a
        # new row), and using it keeps the type free of randomness.
        self.resource_id_set(self.ctx.uuid)
        self.data_set(IS_PLACEHOLDER, "True")

    def get_attribute(self, name: str) -> Any:
        return None
