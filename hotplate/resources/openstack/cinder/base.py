"""What the Cinder admin types share: Heat's default delete and ``show`` of an entity."""

from __future__ import annotations

from typing import Any, ClassVar

from hotplate.resources.base import Resource
from hotplate.resources.openstack.cinder.api import CinderApi

__all__ = ["CinderEntity"]


class CinderEntity(Resource):
    """A Cinder object at ``entity_path()``: Heat's default delete (gone is fine) and
    ``show`` (the GET's answer, under ``show_key`` when Cinder wraps it)."""

    default_client_name = "cinder"
    live_state = True  # Heat's default reading of the entity's GET (gone: EntityNotFound)
    show_key: ClassVar[str | None] = None

    def cinder(self) -> CinderApi:
        return CinderApi(self.cloud)

    def entity_path(self) -> str:
        raise NotImplementedError

    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            self.cinder().delete(self.delete_path())
        return None

    def delete_path(self) -> str:
        return self.entity_path()

    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        answer = self.cinder().get(self.entity_path())
        return answer[self.show_key] if self.show_key else answer
