"""Heat's live-state hooks: a resource's cloud object read back in its properties' terms.

Heat asks a resource for its live state in two places, and so do we:

- an update with ``converge`` (or ``[DEFAULT] observe_on_update``) compares the
  template with what the cloud has, not with what was stored, so a property
  changed behind the engine's back is set back (engine/worker/observed.py);
- ``stack drift`` lists each property whose live value differs from the
  template's (convergence/drift.py compares, engine/service/drift.py reads).

The three hooks keep Heat's names and split::

    get_live_state(props)          what the engine calls
      get_live_resource_data()     the service's document of the object (one GET);
                                   gone: EntityNotFound
      parse_live_resource_data(    that document as property values: only the
          props, data)             properties the type can read back

A type that reads its cloud object sets ``live_state = True`` (every Neutron
type, Cinder volumes, Nova servers...); one that does not (Heat's own types,
whose state is the engine's) is "not checked": its live state is unknown, not
equal to its template. Live values leave hotplate's attempt marks out
(``openstack.attempt_marks``): they are the engine's, never the user's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from hotplate.model.errors import EntityNotFound, HotplateError
from hotplate.resources.properties import PropertyType

if TYPE_CHECKING:
    from hotplate.resources.properties import Schema

__all__ = ["LiveState", "LiveStateUnavailable"]


class LiveStateUnavailable(HotplateError):
    """The cloud object exists but its live state cannot be read now (Heat raises a
    plain error for a server that is not ACTIVE, and the update goes on with the
    stored properties)."""


def _is_not_found(exc: BaseException) -> bool:
    """A 404 from the client layer (plugins read the kind from ``status``)."""
    return getattr(exc, "status", None) == 404


class LiveState:
    """The live-state hooks of ``Resource`` (mixed in; see the module docstring)."""

    live_state: ClassVar[bool] = False
    """Whether the type reads its object's live state back from its cloud."""

    # What ``Resource`` provides.
    name: str
    resource_id: str | None
    properties_schema: ClassVar[Mapping[str, Schema]]

    def _show_resource(self) -> Any:
        raise NotImplementedError

    @property
    def cloud(self) -> Any:
        raise NotImplementedError

    @classmethod
    def free_form_properties(cls) -> frozenset[str]:
        """The map properties without a schema (``metadata``, ``value_specs``): every
        key of theirs is the user's, so a key added behind the engine's back is drift."""
        return frozenset(key for key, schema in cls.properties_schema.items()
                         if schema.type is PropertyType.MAP and schema.schema is None)

    def get_live_state(self, resource_properties: Mapping[str, Any]) -> dict[str, Any]:
        """The live value of each property the type reads back; empty when the type
        reads none (``live_state`` False) or has no object yet.

        ``resource_properties``: the properties the object was last given (stored),
        which some types need to tell how to spell a live value.

        Raises:
            EntityNotFound: the object is gone from the cloud.
            LiveStateUnavailable, or a cloud error: it cannot be read now.
        """
        if not self.live_state or self.resource_id is None:
            return {}
        data = self.get_live_resource_data()
        if data is None:
            return {}
        return self.parse_live_resource_data(resource_properties, data)

    def get_live_resource_data(self) -> Any:
        """The service's document of the object (``_show_resource``, the ``show``
        attribute's); a 404 is ``EntityNotFound`` naming the resource, as in Heat."""
        try:
            return self._show_resource()
        except Exception as exc:
            if _is_not_found(exc):
                raise EntityNotFound("Resource", self.name) from exc
            raise

    def as_given(self, kind: str, given: Any, live: Any) -> Any:
        """``given`` (the template's name or id for an object of ``kind``, as stored)
        when it is the object the service calls ``live`` (an id, or a name), else
        ``live``: a network given by name reads back by that name, not as drift."""
        if given is None or live is None or str(given) == str(live):
            return live
        if self._found(kind, str(live)) == str(given) or self._found(kind, str(given)) == live:
            return given
        return live

    def _found(self, kind: str, name_or_id: str) -> str | None:
        try:
            return str(self.cloud.find(kind, name_or_id))
        except Exception:  # gone, or ambiguous: not the same object
            return None

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's default reading: each update-allowed property the document has under
        the property's own name. ``name`` is left out when the properties gave none:
        the object then carries the physical name the engine chose."""
        result: dict[str, Any] = {}
        for key, schema in self.properties_schema.items():
            if not schema.update_allowed or key not in resource_data:
                continue
            if key == "name" and resource_properties.get(key) is None:
                continue
            result[key] = resource_data[key]
        return result
