"""What OS::Nova::Quota and OS::Neutron::Quota share (Heat's ``nova/quota.py`` and
``neutron/quota.py``): a project's limits, set whole on create and on each update.

The resource makes no object: its physical id is its physical name, and the
limits belong to the ``project`` (a name or id, resolved). Each create and
update sends every limit the properties set (the project excluded), so one
dropped from the template keeps the value last sent; a delete sets the project
back to the service's defaults. A quota with no limit set is refused, with
Heat's PropertyUnspecifiedError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.base import Resource
from hotplate.resources.constraints import CustomConstraint, Range
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["PROJECT", "PROJECT_SCHEMA", "PropertyUnspecifiedError", "QuotaResource",
           "limit", "limits_of"]

PROJECT = "project"
PROJECT_SCHEMA = Schema(Schema.STRING, "Name or id of the project to set the quota for.",
                        required=True, constraints=[CustomConstraint("keystone.project")])


class PropertyUnspecifiedError(StackValidationFailed):
    """Heat's text for a resource that needs one of several properties."""

    def __init__(self, *names: str) -> None:
        super().__init__("At least one of the following properties must be specified: "
                         f"{', '.join(names)}.")


def limit(description: str, support_status: SupportStatus | None = None) -> Schema:
    """One limit: an integer from -1 (no limit), changed in place."""
    return Schema(Schema.INTEGER, description, constraints=[Range(min=-1)],
                  update_allowed=True, support_status=support_status or SupportStatus())


def limits_of(props: Mapping[str, Any]) -> dict[str, Any]:
    """The limits the properties set (the project is not one)."""
    return {k: v for k, v in props.items() if k != PROJECT and v is not None}


class QuotaResource(Resource):
    """A project's quota in one service; types say how to set, read and reset it.

    Its live state is the project's quota set as the service reads it (``read``), each
    limit under its property's name. (Heat asks for the quota of the resource's id,
    which is its physical name, not the project's.)"""

    translation_rules = (TranslationRule.resolve((PROJECT,), "project"),)
    live_state = True

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        if not limits_of(props) and all(k in props for k in cls.properties_schema):
            raise PropertyUnspecifiedError(*sorted(set(cls.properties_schema) - {PROJECT}))

    def set_limits(self, project: str, limits: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def reset(self, project: str) -> None:
        raise NotImplementedError

    def read(self, project: str) -> Any:
        raise NotImplementedError

    def get_live_resource_data(self) -> Any:
        return self.read(str(self.properties[PROJECT]))

    def handle_create(self) -> Any:
        self.set_limits(str(self.properties[PROJECT]), limits_of(self.properties))
        self.resource_id_set(self.physical_resource_name())
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        self.set_limits(str(new_properties[PROJECT]), limits_of(new_properties))
        return super().handle_update(new_properties, prop_diff)

    def handle_delete(self) -> Any:
        if self.resource_id is not None and self.properties.get(PROJECT):
            self.reset(str(self.properties[PROJECT]))
        return None

    def _show_resource(self) -> Any:
        if self.resource_id is None or not self.properties.get(PROJECT):
            return None
        return self.read(str(self.properties[PROJECT]))
