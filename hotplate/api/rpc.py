"""EngineRpc: the API's one way to the engine, a call on the engine topic."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.ports import Transport
from hotplate.rpc.topics import ENGINE_TOPIC


class EngineRpc:
    """Calls EngineService methods by name, as heat-api's EngineClient does.

    With no ``host`` any engine takes the call (the topic's shared queue), as
    heat-api sends them; the embedded server names its one engine.
    """

    def __init__(self, transport: Transport, *, host: str | None = None,
                 timeout: float | None = None) -> None:
        self._transport = transport
        self._host = host
        self._timeout = timeout

    def call(self, ctxt: Mapping[str, Any], method: str, **kwargs: Any) -> Any:
        """Invoke ``method`` on the engine and return its JSON result.

        Errors from ``hotplate.model.errors`` come back by class; anything
        else the engine raised arrives as ``hotplate.rpc.RemoteError``.
        """
        return self._transport.call(ctxt, ENGINE_TOPIC, method, kwargs,
                                    server=self._host, timeout=self._timeout)
