"""The catalog's types: OS::Keystone::Region, Service and Endpoint (Heat's ``region.py``,
``service.py``, ``endpoint.py``).

A region is named by its id: the ``id`` property (URL-encoded, as Heat sends
it), else one Keystone chooses; a new id is a new region. A service and an
endpoint change every property in place; their name defaults to the physical
name. An endpoint's service and region are resolved to ids (a service name
that several services share is Heat's KeystoneServiceNameConflict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from hotplate.resources.constraints import AllowedValues, CustomConstraint
from hotplate.resources.openstack.keystone.base import KeystoneResource, keystone_status
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["Endpoint", "Region", "Service"]

_V6 = SupportStatus(version="6.0.0")


class Region(KeystoneResource):
    """Heat Template Resource for Keystone Region.

    This plug-in helps to create, update and delete a keystone region. Also
    it can be used for enable or disable a given keystone region.
    """

    support_status = keystone_status("6.0.0")
    heat_class_name = "KeystoneRegion"
    collection, entity = "regions", "region"
    live_ids = {"parent_region": ("parent_region_id", "region")}
    names_itself = False

    properties_schema = {
        "id": Schema(Schema.STRING, "The user-defined region ID and should unique to the "
                     "OpenStack deployment. While creating the region, heat will url encode "
                     "this ID."),
        "parent_region": Schema(Schema.STRING, "If the region is hierarchically a child of "
                                "another region, set this parameter to the ID of the parent "
                                "region.", update_allowed=True,
                                constraints=[CustomConstraint("keystone.region")]),
        "description": Schema(Schema.STRING, "Description of keystone region.",
                              update_allowed=True),
        "enabled": Schema(Schema.BOOLEAN, "This region is enabled or disabled.", default=True,
                          update_allowed=True),
    }
    translation_rules = (TranslationRule.resolve(("parent_region",), "region"),)

    def create_body(self) -> dict[str, Any]:
        props = self.properties
        body = {"id": quote(props["id"]) if props.get("id") else None,
                "parent_region_id": props.get("parent_region"),
                "description": props.get("description"), "enabled": props["enabled"]}
        return {k: v for k, v in body.items() if v is not None}

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        names = {"parent_region": "parent_region_id", "description": "description",
                 "enabled": "enabled"}
        return {names[k]: v for k, v in prop_diff.items() if k in names and v is not None}


class Service(KeystoneResource):
    """Heat Template Resource for Keystone Service.

    A resource that allows to create new service and manage it by Keystone.
    """

    support_status = keystone_status("5.0.0")
    heat_class_name = "KeystoneService"
    collection, entity = "services", "service"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone service.", update_allowed=True),
        "description": Schema(Schema.STRING, "Description of keystone service.",
                              update_allowed=True),
        "type": Schema(Schema.STRING, "Type of keystone Service.", update_allowed=True,
                       required=True),
        "enabled": Schema(Schema.BOOLEAN, "This service is enabled or disabled.", default=True,
                          update_allowed=True, support_status=_V6),
    }


class Endpoint(KeystoneResource):
    """Heat Template Resource for Keystone Service Endpoint.

    Keystone endpoint is just the URL that can be used for accessing a service
    within OpenStack. Endpoint can be accessed by admin, by services or public,
    i.e. everyone can use this endpoint.
    """

    support_status = keystone_status("5.0.0")
    heat_class_name = "KeystoneEndpoint"
    collection, entity = "endpoints", "endpoint"
    live_ids = {"service": ("service_id", "service"),
                "region": ("region_id", "region")}

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of keystone endpoint.", update_allowed=True),
        "region": Schema(Schema.STRING, "Name or Id of keystone region.", update_allowed=True,
                         constraints=[CustomConstraint("keystone.region")]),
        "service": Schema(Schema.STRING, "Name or Id of keystone service.",
                          update_allowed=True, required=True,
                          constraints=[CustomConstraint("keystone.service")]),
        "interface": Schema(Schema.STRING, "Interface type of keystone service endpoint.",
                            update_allowed=True, required=True,
                            constraints=[AllowedValues(("public", "internal", "admin"))]),
        "url": Schema(Schema.STRING, "URL of keystone service endpoint.", update_allowed=True,
                      required=True),
        "enabled": Schema(Schema.BOOLEAN, "This endpoint is enabled or disabled.",
                          default=True, update_allowed=True, support_status=_V6),
    }
    translation_rules = (TranslationRule.resolve(("service",), "service"),
                         TranslationRule.resolve(("region",), "region"))
    _FIELDS = {"region": "region_id", "service": "service_id", "interface": "interface",
               "url": "url", "enabled": "enabled"}

    def create_body(self) -> dict[str, Any]:
        body = {field: self.properties.get(prop) for prop, field in self._FIELDS.items()}
        return {k: v for k, v in body.items() if v is not None}

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = {self._FIELDS[k]: v for k, v in prop_diff.items()
                if k in self._FIELDS and v is not None}
        if "name" in prop_diff:
            body["name"] = self.name_of(prop_diff["name"])
        return body
