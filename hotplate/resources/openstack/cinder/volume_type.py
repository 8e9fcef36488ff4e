"""OS::Cinder::VolumeType and OS::Cinder::EncryptedVolumeType (Heat's ``volume_type.py``
and ``encrypted_volume_type.py``); by Cinder's default policy, for admins only.

A volume type: its name, description and visibility, its extra specs
(``metadata``) set after it is made, and, for a private type, the projects
(names or ids) given access. Everything updates in place: the names and
visibility by one PUT, the extra specs by removing every old key and setting
the new ones, the projects (of a private type) by the difference.

An encryption of a volume type: made under the type (found by name or id)
and named by it (the physical id is the type's id); its settings update in
place, a new type replaces it. Delete removes the encryption, not the type.

Both delete as Heat's default does: DELETE, already gone being fine; ``show``
is Cinder's view (``GET /types/<id>``, ``GET /types/<id>/encryption``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.base import CinderEntity
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus

__all__ = ["CinderEncryptedVolumeType", "CinderVolumeType"]


class CinderVolumeType(CinderEntity):
    """A resource for creating cinder volume types.

    Volume type resource allows to define, whether volume, which will be use
    this type, will public and which projects are allowed to work with it.
    Also, there can be some user-defined metadata.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only.
    """

    heat_class_name = "CinderVolumeType"
    support_status = SupportStatus(version="2015.1")
    required_service_extension = "os-types-manage"
    show_key = "volume_type"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of the volume type.", required=True,
                       update_allowed=True),
        "metadata": Schema(Schema.MAP, "The extra specs key and value pairs of the volume "
                           "type.", update_allowed=True),
        "is_public": Schema(Schema.BOOLEAN, "Whether the volume type is accessible to the "
                            "public.", default=True, update_allowed=True,
                            support_status=SupportStatus(version="5.0.0")),
        "description": Schema(Schema.STRING, "Description of the volume type.",
                              update_allowed=True,
                              support_status=SupportStatus(version="5.0.0")),
        "projects": Schema(Schema.LIST, "Projects to add volume type access to. NOTE: This "
                           "property is only supported since Cinder API V2.",
                           update_allowed=True, default=[],
                           support_status=SupportStatus(version="5.0.0"),
                           schema=Schema(Schema.STRING,
                                         constraints=[CustomConstraint("keystone.project")])),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        if props.get("projects") and props.get("is_public"):
            raise StackValidationFailed('Can not specify property "projects" if the volume '
                                        "type is public.")

    def entity_path(self) -> str:
        return f"/types/{self.resource_id}"

    def handle_create(self) -> Any:
        api = self.cinder()
        made = api.post("/types", {"volume_type": {
            "name": self.properties["name"], "description": self.properties["description"],
            "os-volume-type-access:is_public": self.properties["is_public"]}})
        self.resource_id_set(str(made["volume_type"]["id"]))
        if self.properties.get("metadata"):
            api.post(f"{self.entity_path()}/extra_specs",
                     {"extra_specs": dict(self.properties["metadata"])})
        self._grant(self.properties.get("projects") or [])
        return None

    def _grant(self, projects: Iterable[str]) -> None:
        for project in projects:
            ident = self.cloud.find("project", str(project))
            self.cinder().post(f"{self.entity_path()}/action",
                               {"addProjectAccess": {"project": ident}})

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        api = self.cinder()
        is_public = self.properties.get("is_public")
        body: dict[str, Any] = {}
        if "description" in prop_diff:
            body["description"] = prop_diff["description"]
        if "name" in prop_diff:
            body["name"] = prop_diff["name"]
        if "is_public" in prop_diff:
            is_public = prop_diff["is_public"]
            body["is_public"] = is_public
        if body:
            api.put(self.entity_path(), {"volume_type": {"name": body.get("name"),
                                                         "description": body.get("description"),
                                                         **body}})
        if "metadata" in prop_diff:
            path = f"{self.entity_path()}/extra_specs"
            for key in api.get(path).get("extra_specs") or {}:
                api.delete(f"{path}/{key}")
            if prop_diff["metadata"] is not None:
                api.post(path, {"extra_specs": dict(prop_diff["metadata"])})
        if "projects" in prop_diff and not is_public:
            self._update_access(api, list(prop_diff["projects"] or []))
        super().handle_update(new_properties, prop_diff)
        return None

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a volume type: name, description, its extra specs as
        ``metadata``, ``is_public``, and for a private one the projects that may use it
        (as the template named them when they are the same projects)."""
        is_public = resource_data.get("is_public",
                                      resource_data.get("os-volume-type-access:is_public"))
        result = {"name": resource_data.get("name"),
                  "description": resource_data.get("description"),
                  "metadata": dict(resource_data.get("extra_specs") or {}),
                  "is_public": is_public}
        if not is_public:
            listed = self.cinder().get(f"{self.entity_path()}/os-volume-type-access")
            live = sorted(str(a["project_id"]) for a in listed.get("volume_type_access") or [])
            given = resource_properties.get("projects") or []
            same = sorted(str(self._found("project", str(p))) for p in given) == live
            result["projects"] = list(given) if same else live
        return result

    def _update_access(self, api: CinderApi, new: list[str]) -> None:
        listed = api.get(f"{self.entity_path()}/os-volume-type-access")
        old = [a["project_id"] for a in listed.get("volume_type_access") or []]
        for project in set(old) - set(new):
            api.post(f"{self.entity_path()}/action",
                     {"removeProjectAccess": {"project": project}})
        self._grant(sorted(set(new) - set(old)))


class CinderEncryptedVolumeType(CinderEntity):
    """A resource for encrypting a cinder volume type.

    A Volume Encryption Type is a collection of settings used to conduct
    encryption for a specific volume type.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only.
    """

    heat_class_name = "CinderEncryptedVolumeType"
    support_status = SupportStatus(version="5.0.0")
    required_service_extension = "encryption"

    properties_schema = {
        "provider": Schema(Schema.STRING, "The class that provides encryption support. For "
                           "example, nova.volume.encryptors.luks.LuksEncryptor.",
                           required=True, update_allowed=True),
        "control_location": Schema(Schema.STRING, "Notional service where encryption is "
                                   "performed For example, front-end. For Nova.",
                                   default="front-end", update_allowed=True,
                                   constraints=[AllowedValues(("front-end", "back-end"))]),
        "cipher": Schema(Schema.STRING, "The encryption algorithm or mode. For example, "
                         "aes-xts-plain64.", update_allowed=True,
                         constraints=[AllowedValues(("aes-xts-plain64", "aes-cbc-essiv"))]),
        "key_size": Schema(Schema.INTEGER, "Size of encryption key, in bits. For example, "
                           "128 or 256.", update_allowed=True),
        "volume_type": Schema(Schema.STRING, "Name or id of volume type "
                              "(OS::Cinder::VolumeType).", required=True,
                              constraints=[CustomConstraint("cinder.vtype")]),
    }

    def entity_path(self) -> str:
        return f"/types/{self.resource_id}/encryption"

    def delete_path(self) -> str:
        return f"{self.entity_path()}/provider"

    def handle_create(self) -> Any:
        vtype = self.cloud.find("volume_type", str(self.properties["volume_type"]))
        specs = {k: self.properties[k] for k in ("provider", "cipher", "key_size",
                                                 "control_location")}
        made = self.cinder().post(f"/types/{vtype}/encryption", {"encryption": specs})
        self.resource_id_set(str(made["encryption"]["volume_type_id"]))
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if prop_diff:
            self.cinder().put(f"{self.entity_path()}/provider", {"encryption": dict(prop_diff)})
        super().handle_update(new_properties, prop_diff)
        return None
