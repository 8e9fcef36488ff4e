"""The narrow view of the engine that a resource plugin gets."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping

from hotplate.model.ids import ResourceId
from hotplate.ports import Clock, Store


def short_id(resource_uuid: str) -> str:
    """A 12-character lowercase id derived from a UUID, as Heat's physical names use."""
    raw = uuid.UUID(resource_uuid).bytes[:8] if resource_uuid else b"\0" * 8
    return base64.b32encode(raw).decode().lower().rstrip("=")[:12]


class EngineResourceContext:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        resource_id: ResourceId,
        uuid: str,
        resource_name: str,
        stack_id: str,
        stack_name: str,
        project_id: str,
    ) -> None:
        self._store = store
        self._resource_id = resource_id
        self._data: dict[str, str] | None = None
        self.clock = clock
        self.uuid = uuid
        self.resource_name = resource_name
        self.stack_id = stack_id
        self.stack_name = stack_name
        self.project_id = project_id

    def physical_resource_name(self) -> str:
        return f"{self.stack_name.rstrip('*')}-{self.resource_name}-{short_id(self.uuid)}"

    def data(self) -> Mapping[str, str]:
        if self._data is None:
            self._data = self._store.get_resource_data(self._resource_id)
        return dict(self._data)

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        self._store.set_resource_data(self._resource_id, key, value, redact=redact)
        if self._data is not None:
            self._data[key] = value

    def data_delete(self, key: str) -> None:
        self._store.delete_resource_data(self._resource_id, key)
        if self._data is not None:
            self._data.pop(key, None)
