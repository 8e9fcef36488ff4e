"""What every Neutron type does the same way, as Heat's ``NeutronResource`` does it.

- create: the properties as Neutron's body (None values dropped, ``name``
  defaulting to the physical name, ``value_specs`` merged in, ``tags`` set
  after), the id recorded as soon as Neutron answers; then, for types with a
  ``status``, parked until it leaves BUILD::

      BUILD           not yet (the engine asks again)
      ACTIVE, DOWN    done
      ERROR, DEGRADED ResourceInError: Went to status ERROR due to "Unknown"
      anything else   ResourceUnknownStatus: Resource is not built - Unknown
                      status X due to "Unknown"

- the create's body carries a tag derived from the attempt token
  (``attempt_marks``) where the type's objects take tags (``standard-attr-tag``)
  and Neutron takes them at create (``NeutronApi.TAGS_AT_CREATE``: ports, with
  the extension ``tag-ports-during-bulk-creation``). A retried create (its
  engine died after asking Neutron) first looks for the object carrying that
  tag (``GET /<collection>?tags=<mark>``) and takes it; finding none, it looks
  for an object carrying the physical name it would have made, which no other
  resource carries (how an object Neutron could not mark is found); a name the
  template chose may be shared, so then it creates again, as Heat would.
- update: the changed properties as one PUT (``value_specs`` merged, an unset
  ``name`` back to the physical name, ``tags`` replaced apart, the mark kept).
- delete: DELETE, a 404 meaning already gone; then GET until 404. A 409 (still
  in use, say by ports a server being deleted still holds) is asked again, up to
  ``DELETE_CONFLICT_RETRIES`` times, as Heat retries a delete on a conflict.
- the ``show`` attribute and every attribute: the cloud's view (a GET), less
  the mark among its tags; the live state (Heat's ``parse_live_resource_data``):
  each update-allowed property the object has under its own name, ``tags``
  without hotplate's marks, and of ``value_specs`` the keys the template gave.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.openstack.attempt_marks import (
    attempt_tag,
    tags_with_marks,
    tags_without_marks,
)
from hotplate.resources.openstack.neutron.api import NeutronApi, is_conflict, is_not_found
from hotplate.resources.openstack.status_listing import StatusLister
from hotplate.resources.openstack.waiting import done_waiting, look
from hotplate.resources.properties import PropertyPath
from hotplate.resources.status_errors import ResourceInError, ResourceUnknownStatus
from hotplate.template.implicit_deps import Peer

__all__ = ["DELETE_CONFLICT_RETRIES", "NeutronResource", "ResourceActionNotSupported",
           "ResourceInError", "ResourceUnknownStatus", "either", "is_built", "peers_of",
           "without_marks"]

DELETE_CONFLICT_RETRIES = 5
"""Heat's ``action_retry_limit``: deletes refused with a conflict are asked again so often."""
CONFLICT_PAUSE_SECS = 2.0


class ResourceActionNotSupported(HotplateError):
    def __init__(self, action: str) -> None:
        super().__init__(f"{action} is not supported for resource.")


def is_built(status: str | None) -> bool:
    """Heat's status mapping of a Neutron object (module docstring)."""
    if status == "BUILD":
        return False
    if status in ("ACTIVE", "DOWN"):
        return True
    if status in ("ERROR", "DEGRADED"):
        raise ResourceInError(str(status))
    raise ResourceUnknownStatus(str(status), result="Resource is not built")


def either(props: Mapping[str, Any], *keys: str) -> Any:
    """The first set value among ``keys`` (a property and its deprecated name)."""
    for key in keys:
        if props.get(key):
            return props[key]
    return None


def without_marks(found: dict[str, Any]) -> dict[str, Any]:
    """A Neutron object as a user sees it: its tags less hotplate's marks."""
    if isinstance(found, dict) and found.get("tags"):
        return {**found, "tags": tags_without_marks(found["tags"])}
    return found


def peers_of(peers: Mapping[str, Peer], kind: type) -> list[Peer]:
    """The resources whose plugin is ``kind`` or derives from it (Heat's has_interface)."""
    return [p for p in peers.values() if isinstance(p.kind, type) and issubclass(p.kind, kind)]


@dataclass
class _Deleting:
    conflicts: int = 0
    retry_at: float | None = None


class NeutronResource(Resource):
    """A Neutron object of one collection (``networks``), by its ``entity`` (``network``)."""

    default_client_name = "neutron"
    live_state = True
    entity: ClassVar[str] = ""
    collection: ClassVar[str] = ""
    list_key: ClassVar[str] = ""
    """The key of a listing's answer, when it is not the collection's name
    (``policies`` for ``qos/policies``)."""
    has_status: ClassVar[bool] = False
    """Whether the object has a ``status`` the create and update wait on."""
    taggable: ClassVar[bool] = False
    """Whether the type has Heat's ``tags`` property (set after create, apart on update)."""
    marked: ClassVar[bool] = False
    """Whether the type's objects take tags though it has no ``tags`` property, so a
    create marks them with its attempt (a taggable type's are marked anyway)."""
    names_itself: ClassVar[bool] = True
    """Whether an unset ``name`` becomes the physical name (Heat's prepare_properties)."""
    status_lister: ClassVar[StatusLister | None] = None
    """How the engine's batched waits list objects of this type (``status_lists``); None:
    each check asks for its own object."""

    # -- implicit dependencies (template/implicit_deps.py) ---------------------------
    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """Heat's add_dependencies: what this resource requires though the template does
        not reference it (names of ``peers``). None by default."""
        return ()

    # -- validation ----------------------------------------------------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's check: ``value_specs`` may not set a schema property, ``shared`` or
        ``tenant_id``."""
        specs = props.get("value_specs")
        if isinstance(specs, Mapping):
            banned = ({"shared", "tenant_id"} | set(cls.properties_schema)) & set(specs)
            if banned:
                raise StackValidationFailed(
                    f"{', '.join(sorted(banned))} not allowed in value_specs")

    # -- the cloud ------------------------------------------------------------------
    def neutron(self) -> NeutronApi:
        return NeutronApi(self.cloud)

    def collection_path(self) -> str:
        """Where the objects of this type are (``networks``); types nested under another
        object (a QoS policy's rules) override it."""
        return self.collection

    def show(self) -> dict[str, Any]:
        """The object as Neutron has it, less hotplate's mark."""
        return without_marks(self.neutron().show(self.collection_path(), self.entity,
                                                 str(self.resource_id)))

    def create_body(self) -> dict[str, Any]:
        """Neutron's create body from the properties; types override to rename keys."""
        return self.prepare(self.properties)

    def prepare(self, props: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in props.items() if v is not None}
        if self.names_itself and "name" in props:
            body.setdefault("name", self.physical_resource_name())
        body.pop("tags", None)
        specs = body.pop("value_specs", None)
        if isinstance(specs, Mapping):
            body.update(specs)
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        """Neutron's update body from the changed properties (Heat's
        prepare_update_properties); types override to rename keys."""
        body = dict(prop_diff)
        body.pop("tags", None)
        if "value_specs" in body:
            specs = dict(body.pop("value_specs") or {})
            before = self.properties.get("value_specs") or {}
            body.update({k: v for k, v in specs.items() if before.get(k) != v})
        if self.names_itself and "name" in body and body["name"] is None:
            body["name"] = self.physical_resource_name()
        return body

    # -- create ---------------------------------------------------------------------
    def handle_create(self) -> Any:
        body = self.create_body()
        mark = self.attempt_mark()
        found = self._made_before(body, mark) if self.attempt.retry else None
        made = found or self.neutron().create_marked(self.collection_path(), self.entity,
                                                     body, mark)
        self.resource_id_set(str(made["id"]))
        self.cloud.remember_found(self.entity, str(made["id"]))
        self.after_create(made)
        return made

    def attempt_mark(self) -> str | None:
        """The tag marking what this create makes (where Neutron takes it at create)
        and what its retry looks for; None where the type's objects take no tags."""
        if not self.attempt.token or not (self.taggable or self.marked):
            return None
        if self.collection_path() != self.collection:
            return None
        if not self.neutron().has_extension("standard-attr-tag"):
            return None
        return attempt_tag(self.attempt.token)

    def _made_before(self, body: Mapping[str, Any], mark: str | None,
                     ) -> dict[str, Any] | None:
        """The object an earlier try of this create made: by its mark, else by the
        physical name (which only this resource gives)."""
        api, key = self.neutron(), self.list_key or None
        if mark is not None:
            matches = api.find_all(self.collection_path(), key=key, tags=mark)
            if len(matches) == 1:
                return matches[0]
        name = body.get("name")
        if not name or name != self.physical_resource_name():
            return None
        matches = api.find_all(self.collection_path(), key=key, name=str(name))
        return matches[0] if len(matches) == 1 else None

    def after_create(self, made: Mapping[str, Any]) -> None:
        """Hook: what Heat does once the object exists (tags by default, the mark kept)."""
        if self.taggable and self.properties.get("tags"):
            self.neutron().replace_tags(self.collection, str(self.resource_id), tags_with_marks(
                self.properties["tags"], made.get("tags")))

    def replace_user_tags(self, tags: list[str]) -> None:
        """The user's tags become ``tags``; hotplate's mark stays."""
        api = self.neutron()
        current = api.tags(self.collection, str(self.resource_id))
        api.replace_tags(self.collection, str(self.resource_id),
                         tags_with_marks(tags, current))

    def check_create_complete(self, data: Any) -> CheckResult:
        if not self.has_status:
            return True
        return is_built(self.show().get("status"))

    def resume_data(self, action: str) -> Any:
        return {}

    # -- update ---------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if self.taggable and "tags" in prop_diff:
            self.replace_user_tags(list(prop_diff["tags"] or []))
        body = self.update_body(prop_diff)
        if body:
            self.neutron().update(self.collection_path(), self.entity, str(self.resource_id),
                                  body)
        super().handle_update(new_properties, prop_diff)
        return None

    def check_update_complete(self, data: Any) -> CheckResult:
        if not self.has_status:
            return True
        return is_built(self.show().get("status"))

    # -- delete ---------------------------------------------------------------------
    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        state = _Deleting()
        self._delete(state)
        return state

    def _delete(self, state: _Deleting) -> None:
        try:
            self.delete_object()
        except Exception as exc:
            if not is_conflict(exc):
                raise
            state.conflicts += 1
            if state.conflicts > DELETE_CONFLICT_RETRIES:
                raise
            state.retry_at = self._now() + CONFLICT_PAUSE_SECS
        else:
            state.retry_at = None

    def _now(self) -> float:
        return self.ctx.clock.now().timestamp()

    def delete_object(self) -> None:
        """Ask Neutron to delete (already gone is fine); types override for extra steps."""
        self.neutron().delete(self.collection_path(), str(self.resource_id))

    def check_delete_complete(self, data: Any) -> CheckResult:
        if data is None:
            return True
        if isinstance(data, _Deleting) and data.retry_at is not None:
            if self._now() < data.retry_at:
                return CheckAgain(max(0.1, data.retry_at - self._now()))
            self._delete(data)
            if data.retry_at is not None:
                return CheckAgain(CONFLICT_PAUSE_SECS)
        if self.status_lister is not None:
            return self._gone_by_board(self.status_lister)
        try:
            self.show()
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        return False

    def _gone_by_board(self, lister: StatusLister) -> CheckResult:
        """Wait until Neutron no longer has the object, through the batched waits."""
        seen = look(self, "delete", lister, str(self.resource_id), self.shown_or_none,
                    every=1.0, until_gone=True)
        if seen.pending or seen.record is not None:
            return CheckAgain(seen.after)
        done_waiting(self, "delete", lister, str(self.resource_id))
        return True

    def shown_or_none(self) -> dict[str, Any] | None:
        """The object, or None when Neutron no longer has it."""
        try:
            return self.show()
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def needs_replace_failed(self) -> bool:
        """Heat's rule for Neutron objects: a failed one is replaced when it is gone
        or its status says ERROR; one that has no status and still exists is kept."""
        if self.resource_id is None:
            return True
        try:
            found = self._show_resource()
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        if not isinstance(found, Mapping):
            return True
        return found.get("status") == "ERROR" if "status" in found else False

    # -- attributes -----------------------------------------------------------------
    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        return self.show()

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.show().get(name)

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        result = super().parse_live_resource_data(resource_properties, resource_data)
        if "tags" in result:
            result["tags"] = tags_without_marks(result["tags"])
        if "value_specs" in self.properties_schema:
            given = resource_properties.get("value_specs") or {}
            result["value_specs"] = {k: resource_data[k] for k in given if k in resource_data}
        return result
