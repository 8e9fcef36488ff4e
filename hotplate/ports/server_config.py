"""What configuring servers stores: signals received (applied once) and software configs
and deployments. Both are roles of the Store (``hotplate.ports.Store``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Protocol

from hotplate.model.ids import ResourceId, StackId
from hotplate.model.signals import MetadataWrite, StoredSignal
from hotplate.model.software import SoftwareConfigRecord, SoftwareDeploymentRecord


class SignalStorage(Protocol):
    """Signals stored before they are answered, applied once (db/signals.py)."""

    def record_signal(self, stack_id: StackId, resource_id: ResourceId, signal_id: str,
                      details: Any) -> StoredSignal | None:
        """Store a received signal; None when one of that id is stored already."""
        ...

    def get_signal(self, resource_id: ResourceId, signal_id: str) -> StoredSignal | None: ...

    def list_signals(self, resource_id: ResourceId) -> list[StoredSignal]: ...

    def mark_signal_applied(self, signal: int) -> bool: ...

    def write_signal_metadata(self, signal: int, resource_id: ResourceId,
                              expected_atomic_key: int,
                              metadata: dict[str, Any]) -> MetadataWrite:
        """The unlocked row's metadata (compare-and-swap on atomic_key) and the
        signal's applied mark, in one transaction."""
        ...

    def signals_to_redrive(self, attempted_before: datetime,
                           limit: int = 100) -> list[StoredSignal]: ...

    def claim_signal(self, signal: StoredSignal) -> StoredSignal | None: ...

    def delete_orphan_signals(self) -> int: ...


class SoftwareStorage(Protocol):
    """Software configs and deployments (db/software.py); ``project`` None is an admin."""

    def create_software_config(self, config_id: str, *, name: str | None, group: str | None,
                               config: Mapping[str, Any], tenant: str
                               ) -> SoftwareConfigRecord: ...

    def get_software_config(self, config_id: str, project: str | None = None
                            ) -> SoftwareConfigRecord | None: ...

    def list_software_configs(self, project: str | None, *, limit: int | None = None,
                              marker: str | None = None) -> list[SoftwareConfigRecord]: ...

    def delete_software_config(self, config_id: str, project: str | None = None
                               ) -> str | None: ...

    def create_software_deployment(self, values: Mapping[str, Any]
                                   ) -> SoftwareDeploymentRecord | None: ...

    def get_software_deployment(self, deployment_id: str, project: str | None = None
                                ) -> SoftwareDeploymentRecord | None: ...

    def list_software_deployments(self, project: str | None, server_id: str | None = None
                                  ) -> list[SoftwareDeploymentRecord]: ...

    def server_configs(self, server_id: str, project: str | None = None
                       ) -> list[SoftwareConfigRecord]: ...

    def update_software_deployment(self, deployment_id: str, values: Mapping[str, Any]
                                   ) -> SoftwareDeploymentRecord | None: ...

    def delete_software_deployment(self, deployment_id: str) -> bool: ...

    def server_exists(self, server_id: str, project: str) -> bool:
        """A live, unreplaced, undeleted resource of ``project`` has that physical id."""
        ...

    def push_server_metadata(self, server_id: str, project: str | None,
                             deployments: Callable[[], list[dict[str, Any]]]) -> bool:
        """The server row's ``metadata.deployments``, compare-and-swap on atomic_key."""
        ...
