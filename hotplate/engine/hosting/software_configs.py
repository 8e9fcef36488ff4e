"""The engine's side of ``SoftwareConfigs``: the engine topic's software-config methods.

Calls go out as heat-api would make them, in the stack's project, so a
deployment made by a resource is the same row (and pushes the same server
metadata) as one made through the API, on whichever engine takes the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.model.records import StackRecord
from hotplate.resources.software_port import ConfigNotFound
from hotplate.rpc.errors import RemoteError
from hotplate.rpc.topics import ENGINE_TOPIC


class EngineSoftwareConfigs:
    def __init__(self, deps: EngineDeps, stack: StackRecord) -> None:
        self._deps = deps
        self._stack = stack

    def create_config(self, *, name: str | None, group: str | None, config: Any,
                      inputs: list[Any], outputs: list[Any],
                      options: Mapping[str, Any] | None) -> dict[str, Any]:
        found: dict[str, Any] = self._call(
            "create_software_config", name=name, group=group, config=config,
            inputs=inputs, outputs=outputs, options=dict(options or {}))
        return found

    def show_config(self, config_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._call("show_software_config", config_id=config_id)
        return found

    def delete_config(self, config_id: str) -> None:
        try:
            self._call("delete_software_config", config_id=config_id)
        except ConfigNotFound:
            return

    def create_deployment(self, **fields: Any) -> dict[str, Any]:
        found: dict[str, Any] = self._call("create_software_deployment", **fields)
        return found

    def update_deployment(self, deployment_id: str, **fields: Any) -> dict[str, Any]:
        found: dict[str, Any] = self._call("update_software_deployment",
                                           deployment_id=deployment_id, **fields)
        return found

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._call("show_software_deployment",
                                           deployment_id=deployment_id)
        return found

    def delete_deployment(self, deployment_id: str) -> None:
        try:
            self._call("delete_software_deployment", deployment_id=deployment_id)
        except ConfigNotFound:
            return

    def signal_deployment(self, deployment_id: str, details: Any) -> str | None:
        now = self._deps.clock.now().astimezone(UTC).isoformat()
        found: str | None = self._call("signal_software_deployment",
                                       deployment_id=deployment_id, details=details,
                                       updated_at=now)
        return found

    def server_exists(self, server_id: str) -> bool:
        """Whether a resource whose physical id is ``server_id`` lives on in a stack of
        this project, not replaced and not deleted.

        Heat asks Nova; hotplate's servers are resource rows, the ones a deployment
        pushes its metadata to, found by their physical id in one query. Asked only
        by a deployment waiting on its DELETE action.
        """
        return self._deps.store.server_exists(server_id, self._stack.project_id)

    def _call(self, method: str, **kwargs: Any) -> Any:
        stack = self._stack
        ctxt = {"project_id": stack.project_id, "tenant_id": stack.project_id,
                "user_id": stack.user_id, "username": stack.username, "is_admin": False}
        try:
            return self._deps.transport.call(ctxt, ENGINE_TOPIC, method, kwargs)
        except RemoteError as exc:
            if exc.exc_type == "NotFound":
                raise ConfigNotFound(exc.message) from exc
            raise
