"""The REST API: Heat's orchestration API v1 in front of the engine topic.

The API is thin: it turns HTTP requests into engine-topic calls (through the
RPC transport only, never the engine or the database directly) and the
engine's answers into Heat's API views.
"""

from hotplate.api.app import create_app
from hotplate.api.rpc import EngineRpc

__all__ = ["EngineRpc", "create_app"]
