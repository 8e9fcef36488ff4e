"""The narrow view of the engine that a resource plugin gets."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from hotplate.engine.hosting.signal_endpoints import EngineSignalEndpoints
from hotplate.model.ids import EngineId, ResourceId, StackId
from hotplate.model.records import ResourceAttempt, ResourceRecord
from hotplate.ports import Clock, RecoveryStorage, ResourceDataStorage, ResourceStorage
from hotplate.resources.base import Attempt, Resource
from hotplate.resources.nested import NestedStacks
from hotplate.resources.scaling import ScalingNotice
from hotplate.resources.signal_responder import SignalKind
from hotplate.resources.software_port import SoftwareConfigs

METADATA_RETRIES = 20
"""Read-modify-write rounds a metadata change tries before giving up on a busy row."""


def short_id(resource_uuid: str) -> str:
    """The 12-character lowercase id Heat derives from a resource's UUID for its
    physical names: the 60 random bits of the UUID's time field, big-endian, in
    base32. The same derivation, so a stack imported from Heat keeps its names (and
    the ARNs built from them) and a stack made here is named as Heat would name it."""
    if not resource_uuid:
        return "a" * 12
    random_bits = uuid.UUID(resource_uuid).time & ((1 << 60) - 1)
    raw = (random_bits << 4).to_bytes(8, "big")  # 60 bits, padded to 64 at the end
    return base64.b32encode(raw).decode("ascii")[:12].lower()


class PluginStorage(ResourceStorage, ResourceDataStorage, RecoveryStorage, Protocol):
    """What a plugin's context reads and writes: its row, its data, its attempts."""


class EngineResourceContext:
    def __init__(
        self,
        store: PluginStorage,
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
        engine_id: EngineId | None = None,
        peers: Callable[[str], Resource | None] | None = None,
        notify_scaling: Callable[[ScalingNotice], None] | None = None,
        software: Callable[[], SoftwareConfigs] | None = None,
        signals: Callable[[EngineResourceContext], EngineSignalEndpoints] | None = None,
        cloud: Callable[[], Any] | None = None,
    ) -> None:
        self._store = store
        self._nested = nested
        self._update_policy = update_policy
        self._engine_id = engine_id
        self._peers = peers
        self._software = software
        self.notify_scaling = notify_scaling
        """A scaling group's notices (Heat's autoscaling notifications); None when off."""
        self._resource_id = resource_id
        self._data: dict[str, str] | None = None
        self._pending: dict[str, tuple[str, bool]] = {}
        self.clock = clock
        self.uuid = uuid
        self.resource_name = resource_name
        self.stack_id = stack_id
        self.stack_name = stack_name
        self.project_id = project_id
        self._signals = signals(self) if signals is not None else None
        self._cloud_factory = cloud
        self._cloud: Any = None

    @property
    def cloud(self) -> Any:
        """The cloud as the stack's owner sees it (``hotplate.cloud.Cloud``): service
        proxies, finders, retried and classified calls. Built on first use, so a plugin
        that never calls a cloud costs nothing."""
        if self._cloud is None:
            if self._cloud_factory is None:
                raise RuntimeError("this context gives no cloud")
            self._cloud = self._cloud_factory()
        return self._cloud

    def nested_stacks(self) -> NestedStacks:
        """Child stacks, for stack-backed plugins (template resources, OS::Heat::Stack)."""
        if self._nested is None:
            raise RuntimeError("this context cannot create nested stacks")
        return self._nested()

    def software_configs(self) -> SoftwareConfigs:
        """Software configs and deployments, for the config and deployment plugins."""
        if self._software is None:
            raise RuntimeError("this context gives no software configs")
        return self._software()

    def update_policy(self) -> Mapping[str, Any]:
        """The resource's ``update_policy`` in the stack's current template."""
        return self._update_policy() if self._update_policy is not None else {}

    def resource_by_reference(self, reference: str) -> Resource | None:
        """Another resource of this stack, by reference id or name (Heat's
        ``resource_by_refid``): a scaling policy finds its group so."""
        return self._peers(reference) if self._peers is not None else None

    # -- signal endpoints (resources.signal_responder.SignalEndpoints) ----------------
    def _endpoints(self) -> EngineSignalEndpoints:
        if self._signals is None:
            raise RuntimeError("this context gives no signal endpoints")
        return self._signals

    def cfn_signal_url(self, kind: SignalKind) -> str:
        return self._endpoints().cfn_signal_url(kind)

    def stack_user_credentials(self) -> tuple[str, str]:
        return self._endpoints().stack_user_credentials()

    def signal_token(self) -> str:
        return self._endpoints().signal_token()

    def heat_signal_url(self, *, stack_user_project: bool = True) -> str:
        return self._endpoints().heat_signal_url(stack_user_project=stack_user_project)

    def heat_signal_credentials(self) -> dict[str, str | None]:
        return self._endpoints().heat_signal_credentials()

    def metadata_server_url(self) -> str:
        return self._endpoints().metadata_server_url()

    def forget_signal_credentials(self) -> None:
        self._endpoints().forget_signal_credentials()

    def create_stack_user(self, password: str | None = None) -> str | None:
        return self._endpoints().create_stack_user(password)

    def enable_stack_user(self, enabled: bool) -> None:
        self._endpoints().enable_stack_user(enabled)

    def forget_keypair(self) -> None:
        self._endpoints().forget_keypair()

    def default_signal_transport(self) -> str:
        return self._endpoints().default_signal_transport()

    def default_software_config_transport(self) -> str:
        return self._endpoints().default_software_config_transport()

    # -- metadata (Heat's metadata_get / metadata_set) --------------------------------
    def metadata_get(self) -> dict[str, Any]:
        """The row's metadata as stored now."""
        row = self._store.get_resource(self._resource_id)
        return dict(row.metadata or {}) if row is not None else {}

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None:
        """Write ``change(metadata, status)`` of the row as read, compare-and-swap.

        A write that loses a race reads the row again and asks ``change``
        again, so two writers never both act on the same metadata (``change``
        may raise to refuse). A row another engine holds is left alone unless
        ``force``. Returns the metadata written, or None if nothing was.
        """
        for _ in range(METADATA_RETRIES):
            row = self._store.get_resource(self._resource_id)
            if row is None:
                return None
            new = dict(change(dict(row.metadata or {}), str(row.status)))
            written = self._write(row, {"metadata": new}, force=force)
            if written is None:
                return None
            if written:
                return new
        return None

    def clear_stored_attributes(self) -> None:
        """Forget the attribute values stored when the last action ended, so views and
        outputs resolve them afresh (Heat's name; a resized group's have changed)."""
        for _ in range(METADATA_RETRIES):
            row = self._store.get_resource(self._resource_id)
            if row is None or self._write(row, {"attr_data": {}}, force=True) is not False:
                return

    def _write(self, row: ResourceRecord, values: Mapping[str, Any], *,
               force: bool) -> bool | None:
        """True: written; False: the row changed meanwhile; None: not ours to write."""
        store = self._store
        if row.engine_id is None:
            return store.update_resource_if_unlocked(row.id, row.atomic_key, values) is not None
        if force or row.engine_id == self._engine_id:
            return store.update_resource_locked(row.id, row.engine_id, values) is not None
        return None

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

    def record_attempt(self, action: str, attempt: Attempt) -> None:
        """Write down one handle_<action> call with its token (the resource_attempt
        table), for plugins that let tests count how often a thing was made."""
        self._store.record_attempt(ResourceAttempt(
            stack_id=StackId(self.stack_id), resource_uuid=self.uuid,
            resource_name=self.resource_name, action=action, token=attempt.token,
            retry=attempt.retry, engine_id=self._engine_id or EngineId("")))

    def take_pending(self) -> dict[str, tuple[str, bool]]:
        """The buffered writes, handed to the caller who writes them."""
        pending, self._pending = self._pending, {}
        if self._data is not None:
            self._data.update({key: value for key, (value, _) in pending.items()})
        return pending

    def flush(self) -> None:
        for key, (value, redact) in self.take_pending().items():
            self._store.set_resource_data(self._resource_id, key, value, redact=redact)
