"""OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation (Heat's ``qos_specs.py``); by
Cinder's default policy, for admins only.

QoS specs: a name (else the physical name) and key/value specs; the specs
update in place (new and changed keys set, dropped keys unset), a new name
replaces them. Delete first takes the specs off every volume type, then
deletes them (already gone being fine, for both steps).

An association ties QoS specs (name or id) to volume types (names or ids):
both are looked up to ids before create and before an update is diffed, so a
name and its id are the same value. The types update in place (the new ones
associated, the dropped ones disassociated); new specs replace it. Its
physical id is the resource's own uuid, as in Heat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.base import Resource
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.base import CinderEntity
from hotplate.resources.openstack.cloud_errors import ignoring, is_not_found
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["QoSAssociation", "QoSSpecs"]


class QoSSpecs(CinderEntity):
    """A resource for creating cinder QoS specs.

    Users can ask for a specific volume type. Part of that volume type is a
    string that defines the QoS of the volume IO (fast, normal, or slow).
    Backends that can handle all of the demands of the volume type become
    candidates for scheduling. Usage of this resource restricted to admins
    only by default policy.
    """

    support_status = SupportStatus(version="7.0.0")
    required_service_extension = "qos-specs"
    show_key = "qos_specs"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of the QoS."),
        "specs": Schema(Schema.MAP, "The specs key and value pairs of the QoS.", required=True,
                        update_allowed=True),
    }

    def entity_path(self) -> str:
        return f"/qos-specs/{self.resource_id}"

    def delete_path(self) -> str:
        return f"{self.entity_path()}?force=False"

    def handle_create(self) -> Any:
        name = self.properties.get("name") or self.physical_resource_name()
        body = {"name": name, **dict(self.properties["specs"])}
        made = self.cinder().post("/qos-specs", {"qos_specs": body})
        self.resource_id_set(str(made["qos_specs"]["id"]))
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        new = dict(prop_diff.get("specs") or {})
        old = dict(self.properties.get("specs") or {})
        added = {k: v for k, v in new.items() if k not in old or old[k] != v}
        removed = [k for k in old if k not in new]
        if self.resource_id is not None:
            if added:
                self.cinder().put(self.entity_path(), {"qos_specs": added})
            if removed:
                self.cinder().put(f"{self.entity_path()}/delete_keys", {"keys": removed})
        super().handle_update(new_properties, prop_diff)
        return None

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            with ignoring(is_not_found):  # already gone: nothing is tied to it
                self.cinder().get(f"{self.entity_path()}/disassociate_all")
        return super().handle_delete()


class QoSAssociation(Resource):
    """A resource to associate cinder QoS specs with volume types.

    Usage of this resource restricted to admins only by default policy.
    """

    default_client_name = "cinder"
    support_status = SupportStatus(version="8.0.0")
    required_service_extension = "qos-specs"

    properties_schema = {
        "qos_specs": Schema(Schema.STRING, "ID or Name of the QoS specs.", required=True,
                            constraints=[CustomConstraint("cinder.qos_specs")]),
        "volume_types": Schema(Schema.LIST, "List of volume type IDs or Names to be attached "
                               "to QoS specs.", required=True, update_allowed=True,
                               schema=Schema(Schema.STRING, "A volume type to attach specs.",
                                             constraints=[CustomConstraint("cinder.vtype")])),
    }

    translation_rules = (TranslationRule.resolve(("volume_types",), "volume_type"),
                         TranslationRule.resolve(("qos_specs",), "qos_specs"))

    def cinder(self) -> CinderApi:
        return CinderApi(self.cloud)

    def _tie(self, verb: str, specs: str, vtype: str) -> None:
        self.cinder().get(f"/qos-specs/{specs}/{verb}", vol_type_id=vtype)

    def handle_create(self) -> Any:
        for vtype in self.properties["volume_types"]:
            self._tie("associate", str(self.properties["qos_specs"]), str(vtype))
        self.resource_id_set(self.ctx.uuid)
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        specs = str(self.properties["qos_specs"])
        new = list(prop_diff.get("volume_types") or [])
        old = list(self.properties.get("volume_types") or [])
        for vtype in [v for v in dict.fromkeys(new) if v not in old]:
            self._tie("associate", specs, str(vtype))
        for vtype in [v for v in dict.fromkeys(old) if v not in new]:
            self._tie("disassociate", specs, str(vtype))
        super().handle_update(new_properties, prop_diff)
        return None

    def handle_delete(self) -> Any:
        for vtype in self.properties.get("volume_types") or []:
            self._tie("disassociate", str(self.properties["qos_specs"]), str(vtype))
        return None

    def _show_resource(self) -> Any:
        return None  # Heat's association has no entity to show
