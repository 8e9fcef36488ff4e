"""Heat's topic names and RPC API versions.

A stock heat-api publishes on ``engine`` with server = the engine host, so
that topic and its version must match Heat exactly. The engine-to-engine
topics keep Heat's names and roles (server = engine id); their payloads are
ours, but keeping the names lets operators read a broker's queues as Heat's.
"""

from __future__ import annotations

from typing import Final

ENGINE_TOPIC: Final = "engine"
"""API <-> engine: Heat's EngineClient methods (server = [DEFAULT]/host)."""

WORKER_TOPIC: Final = "engine_worker"
"""Engine <-> engine: check_resource and cancel_check_resource (server = engine id)."""

LISTENER_TOPIC: Final = "heat-engine-listener"
"""Liveness probes: an engine that answers ``listening`` holds its locks legitimately."""

ENGINE_API_VERSION: Final = "1.36"
"""heat/rpc/client.py EngineClient.BASE_RPC_API_VERSION on stable/2026.2."""

WORKER_API_VERSION: Final = "1.9"
"""heat/rpc/worker_client.py WorkerClient.BASE_RPC_API_VERSION."""

LISTENER_API_VERSION: Final = "1.0"
"""heat/rpc/listener_client.py EngineListenerClient.BASE_RPC_API_VERSION."""
