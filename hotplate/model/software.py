"""Software configs and deployments as stored (Heat's ``software_config`` and
``software_deployment`` rows).

A config is immutable once made: its ``config`` holds Heat's four keys,
``inputs``, ``outputs``, ``options`` and ``config``. A deployment binds a
config to a server, named by the server's physical id, and carries the
state of applying it there::

    deployment status   meaning
    ------------------  ----------------------------------------------------
    IN_PROGRESS         deploy data available; waiting for the server's signal
    COMPLETE            outputs received (or not waiting for a signal at all)
    FAILED              the server said so (status code, error outputs), or
                        the deployment was cancelled
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["SoftwareConfigRecord", "SoftwareDeploymentRecord"]


@dataclass(frozen=True, slots=True)
class SoftwareConfigRecord:
    id: str
    name: str | None
    group: str | None
    config: dict[str, Any]
    tenant: str
    created_at: datetime
    updated_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SoftwareDeploymentRecord:
    id: str
    config_id: str
    server_id: str
    input_values: dict[str, Any] | None
    output_values: dict[str, Any] | None
    action: str | None
    status: str | None
    status_reason: str | None
    tenant: str
    stack_user_project_id: str | None
    created_at: datetime
    updated_at: datetime | None = None
