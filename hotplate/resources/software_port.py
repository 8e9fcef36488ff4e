"""What the software config and deployment resources may ask of the engine.

Heat's plugins call the engine's software-config methods over RPC; here the
plugin reaches them through its context (this port), which the engine
implements over the same engine-topic methods. Each call answers Heat's
bodies (``show_software_config`` / ``show_software_deployment`` views).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, cast

from hotplate.resources.base import Resource

__all__ = ["ConfigNotFound", "SoftwareConfigs", "software_configs"]


class ConfigNotFound(Exception):
    """The config or deployment is gone (Heat's ``NotFound``, ignored on delete)."""


class SoftwareConfigs(Protocol):
    def create_config(self, *, name: str | None, group: str | None, config: Any,
                      inputs: list[Any], outputs: list[Any],
                      options: Mapping[str, Any] | None) -> dict[str, Any]: ...

    def show_config(self, config_id: str) -> dict[str, Any]:
        """Raises ConfigNotFound."""
        ...

    def delete_config(self, config_id: str) -> None:
        """Nothing if it is already gone."""
        ...

    def create_deployment(self, **fields: Any) -> dict[str, Any]: ...

    def update_deployment(self, deployment_id: str, **fields: Any) -> dict[str, Any]: ...

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        """Raises ConfigNotFound."""
        ...

    def delete_deployment(self, deployment_id: str) -> None:
        """Nothing if it is already gone."""
        ...

    def signal_deployment(self, deployment_id: str, details: Any) -> str | None: ...


def software_configs(resource: Resource) -> SoftwareConfigs:
    """The resource's software-config port; the engine's context provides it.

    Raises:
        RuntimeError: the context offers none (a preview or validation context).
    """
    port = getattr(resource.ctx, "software_configs", None)
    if not callable(port):
        raise RuntimeError("this engine context gives no software configs")
    return cast(SoftwareConfigs, port())
