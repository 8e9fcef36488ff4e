"""Deployments as Heat pushes them into a server's metadata (``deployments``)."""

from __future__ import annotations

from typing import Any


def deployment(deployment_id: str, config: str, signal_url: str | None, *,
               group: str = "script", transport: str = "CFN_SIGNAL",
               outputs: tuple[str, ...] = (), **inputs: Any) -> dict[str, Any]:
    """One item of ``deployments``: a derived config with Heat's ``deploy_*`` inputs."""
    derived = [{"name": k, "value": v, "type": "String"} for k, v in inputs.items()]
    derived += [
        {"name": "deploy_server_id", "value": "server-1"},
        {"name": "deploy_action", "value": "CREATE"},
        {"name": "deploy_stack_id", "value": "stack/4b1d"},
        {"name": "deploy_resource_name", "value": f"dep-{deployment_id}"},
        {"name": "deploy_signal_transport", "value": transport},
    ]
    if signal_url is not None:
        derived += [{"name": "deploy_signal_id", "value": signal_url},
                    {"name": "deploy_signal_verb", "value": "POST"}]
    return {"id": deployment_id, "name": f"config-{deployment_id}", "group": group,
            "config": config, "inputs": derived, "outputs": [{"name": o} for o in outputs],
            "options": {}, "creation_time": "2026-12-02T05:00:00Z"}
