"""The narrow view of the engine that a resource plugin gets."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from hotplate.model.ids import ResourceId
from hotplate.ports import Clock, Store
from hotplate.resources.nested import NestedStacks


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
        nested: Callable[[], NestedStacks] | None = None,
        update_policy: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self._store = store
        self._nested = nested
        self._update_policy = update_policy
        self._resource_id = resource_id
        self._data: dict[str, str] | None = None
        self._pending: dict[str, tuple[str, bool]] = {}
        self.clock = clock
        self.uuid = uuid
        self.resource_name = resource_name
        self.stack_id = stack_id
        self.stack_name = stack_name
        self.project_id = project_id

    def nested_stacks(self) -> NestedStacks:
        """Child stacks, for stack-backed plugins (template resources, OS::Heat::Stack)."""
        if self._nested is None:
            raise RuntimeError("this context cannot create nested stacks")
        return self._nested()

    def update_policy(self) -> Mapping[str, Any]:
        """The resource's ``update_policy`` in the stack's current template."""
        return self._update_policy() if self._update_policy is not None else {}

    def physical_resource_name(self) -> str:
        return f"{self.stack_name.rstrip('*')}-{self.resource_name}-{short_id(self.uuid)}"

    def data(self) -> Mapping[str, str]:
        if self._data is None:
            self._data = self._store.get_resource_data(self._resource_id)
        merged = dict(self._data)
        merged.update({key: value for key, (value, _) in self._pending.items()})
        return merged

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        """Buffered: written with the resource's next state change, in its transaction.

        The engine flushes the buffer before it waits on a slow action, so
        what a plugin recorded is durable before anything can go wrong.
        """
        self._pending[key] = (value, redact)

    def data_delete(self, key: str) -> None:
        self.flush()
        self._store.delete_resource_data(self._resource_id, key)
        if self._data is not None:
            self._data.pop(key, None)

    def take_pending(self) -> dict[str, tuple[str, bool]]:
        """The buffered writes, handed to the caller who writes them."""
        pending, self._pending = self._pending, {}
        if self._data is not None:
            self._data.update({key: value for key, (value, _) in pending.items()})
        return pending

    def flush(self) -> None:
        for key, (value, redact) in self.take_pending().items():
            self._store.set_resource_data(self._resource_id, key, value, redact=redact)
