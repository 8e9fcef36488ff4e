"""What every Keystone type does the same way, as Heat's keystone plugins do it.

- create: Keystone's body from the properties (None values left out, as
  keystoneclient leaves them out), ``name`` defaulting to the physical name;
  the id recorded as soon as Keystone answers. A retried create (its engine
  died after asking) first looks for an object carrying the physical name,
  which no other resource carries; a name the template chose may be shared, so
  then it creates again, as Heat would (Keystone then says Conflict).
- update: the changed properties as one PATCH; a ``name`` set back to nothing
  becomes the physical name again. Every property Heat marks ``update_allowed``
  changes in place; any other change replaces the object.
- delete: DELETE, a 404 meaning already gone (Heat's ``ignore_not_found``).
- the ``show`` attribute: Keystone's view of the object (a GET), as Heat's
  ``entity`` types show it; declared attributes read from that same view.
- the live state (Heat's ``parse_live_resource_data`` of each type): the
  update-allowed properties Keystone's view has under their own names, and those
  it holds as ids under another key (``live_ids``: a project's ``domain`` is its
  ``domain_id``), read as the template named the object when it is the same one.
  Role assignments are not read back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hotplate.model.errors import EntityNotFound
from hotplate.resources.base import Resource
from hotplate.resources.openstack.cloud_errors import is_not_found
from hotplate.resources.openstack.keystone.api import KeystoneApi, quoted
from hotplate.resources.support import SupportStatus

__all__ = ["KEYSTONE_V3", "KeystoneResource", "keystone_status"]

KEYSTONE_V3 = "Supported versions: keystone v3"


def keystone_status(version: str) -> SupportStatus:
    """Heat's support status of every Keystone type: a version, and keystone v3 only."""
    return SupportStatus(version=version, message=KEYSTONE_V3)


class KeystoneResource(Resource):
    """A Keystone object of one collection (``users``), by its ``entity`` (``user``)."""

    default_client_name = "keystone"
    collection: ClassVar[str] = ""
    entity: ClassVar[str] = ""
    names_itself: ClassVar[bool] = True
    """Whether an unset ``name`` becomes the physical name (Heat's handle_create)."""
    domain_scoped: ClassVar[bool] = False
    """Whether names are unique within a domain (the ``domain`` property), not globally."""
    live_state = True
    live_ids: ClassVar[Mapping[str, tuple[str, str]]] = {}
    """Properties Keystone's view holds as an id under another key: property ->
    (the view's key, the finder's kind), e.g. ``{"domain": ("domain_id", "domain")}``."""

    def keystone(self) -> KeystoneApi:
        return KeystoneApi(self.cloud)

    def path(self) -> str:
        return f"/{self.collection}/{quoted(str(self.resource_id))}"

    def show(self) -> dict[str, Any]:
        return self.keystone().show(self.collection, self.entity, str(self.resource_id))

    def name_of(self, value: Any) -> str:
        """The name to give: the property's, else the physical name."""
        return str(value) if value else self.physical_resource_name()

    # -- create -------------------------------------------------------------------------
    def create_body(self) -> dict[str, Any]:
        """Keystone's create body; types override to rename keys."""
        return {k: v for k, v in self.properties.items() if v is not None}

    def handle_create(self) -> Any:
        body = self.create_body()
        if self.names_itself:
            body["name"] = self.name_of(self.properties.get("name"))
        found = self._made_before(body) if self.attempt.retry else None
        made = found or self.keystone().create(self.collection, self.entity, body)
        self.resource_id_set(str(made["id"]))
        self.after_create(made)
        return None

    def _made_before(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        name = body.get("name")
        if not self.names_itself or name != self.physical_resource_name():
            return None
        query = {"name": str(name)}
        if self.domain_scoped and body.get("domain_id"):
            query["domain_id"] = str(body["domain_id"])
        matches = [m for m in self.keystone().listing(self.collection, **query)
                   if m.get("name") == name]  # not every collection filters by name
        return matches[0] if len(matches) == 1 else None

    def after_create(self, made: Mapping[str, Any]) -> None:
        """Hook: what Heat does once the object exists (group memberships, roles)."""

    # -- update -------------------------------------------------------------------------
    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        """Keystone's PATCH body from the changed properties; types override."""
        body = {k: v for k, v in prop_diff.items() if v is not None}
        if self.names_itself and "name" in prop_diff:
            body["name"] = self.name_of(prop_diff["name"])
        return body

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if prop_diff:
            body = self.update_body(prop_diff)
            if body:
                self.keystone().update(self.collection, self.entity, str(self.resource_id),
                                       body)
            self.after_update(prop_diff)
        return super().handle_update(new_properties, prop_diff)

    def after_update(self, prop_diff: Mapping[str, Any]) -> None:
        """Hook: what Heat changes apart from the object's own fields (still seeing the
        old properties in ``self.properties``)."""

    # -- delete -------------------------------------------------------------------------
    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            self.keystone().delete(self.path())
        return None

    # -- live state ---------------------------------------------------------------------
    def get_live_resource_data(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            return self.show()
        except Exception as exc:
            if is_not_found(exc):
                raise EntityNotFound("Resource", self.name) from exc
            raise

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        result = super().parse_live_resource_data(resource_properties, resource_data)
        for key, (field, kind) in self.live_ids.items():
            result[key] = self.as_given(kind, resource_properties.get(key),
                                        resource_data.get(field))
        return result

    # -- attributes ---------------------------------------------------------------------
    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            return self.show()
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.show().get(name)
