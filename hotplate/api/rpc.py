"""EngineRpc: the API's one way to the engine, a call on the engine topic.

A call with no ``host`` goes to the topic's shared queue, where the broker
hands it to one engine's consumer in turn. That engine may be cut off (the
broker keeps its consumers until their connection's heartbeat runs out), and
then the call waits for nothing. So a read, which is safe to ask twice, is
asked again when the first engine does not answer in ``FIRST_TRY`` seconds,
then again after twice as long, and so on, within the call's whole timeout:
the broker hands each try to the next consumer, and drops a silent one's
within its heartbeat timeout. A read an engine could not answer because it
could not reach its database (it is cut off from it, and about to fence
itself) is asked again at once. A write is asked once: the first engine may
have done it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from hotplate.ports import Transport
from hotplate.rpc.errors import MessagingTimeout, RemoteError
from hotplate.rpc.topics import ENGINE_TOPIC

LOG = logging.getLogger(__name__)

FIRST_TRY = 5.0
"""Seconds the first try of a read waits for an answer; each further try twice as long."""

READS = frozenset({
    "describe_stack_resource", "export_stack", "generate_template", "get_environment",
    "get_files", "get_template", "identify_stack", "list_events", "list_outputs",
    "list_resource_types", "list_services", "list_software_configs",
    "list_software_deployments", "list_stack_resources", "list_stacks",
    "list_template_functions", "list_template_versions", "metadata_software_deployments",
    "preview_stack", "preview_update_stack", "resource_schema", "show_output",
    "show_software_config", "show_software_deployment", "show_stack", "validate_template",
})
"""Engine-topic methods that change nothing: asked again when an engine does not answer."""

DATABASE_AWAY = frozenset({"OperationalError", "StoreUnavailable", "InterfaceError"})
"""What an engine that cannot reach its database raises (SQLAlchemy's and the store's)."""


class EngineRpc:
    """Calls EngineService methods by name, as heat-api's EngineClient does.

    With no ``host`` any engine takes the call (the topic's shared queue), as
    heat-api sends them; the embedded server names its one engine.
    """

    def __init__(self, transport: Transport, *, host: str | None = None,
                 timeout: float | None = None, first_try: float = FIRST_TRY) -> None:
        self._transport = transport
        self._host = host
        self._timeout = timeout
        self._first_try = first_try

    def call(self, ctxt: Mapping[str, Any], method: str, **kwargs: Any) -> Any:
        """Invoke ``method`` on the engine and return its JSON result.

        Errors from ``hotplate.model.errors`` come back by class; anything
        else the engine raised arrives as ``hotplate.rpc.RemoteError``.
        """
        whole = self._timeout or getattr(self._transport, "call_timeout", None)
        if method not in READS or self._host is not None or whole is None:
            return self._transport.call(ctxt, ENGINE_TOPIC, method, kwargs,
                                        server=self._host, timeout=self._timeout)
        return self._read(ctxt, method, kwargs, float(whole))

    def _read(self, ctxt: Mapping[str, Any], method: str, kwargs: dict[str, Any],
              whole: float) -> Any:
        deadline = time.monotonic() + whole
        wait = self._first_try
        while True:
            left = deadline - time.monotonic()
            try:
                return self._transport.call(ctxt, ENGINE_TOPIC, method, kwargs,
                                            timeout=max(0.001, min(wait, left)))
            except MessagingTimeout:
                if left <= wait:
                    raise
                LOG.warning("%s: no engine answered in %g s; asking again", method, wait)
                wait *= 2
            except RemoteError as exc:
                if exc.exc_type not in DATABASE_AWAY or time.monotonic() >= deadline:
                    raise
                LOG.warning("%s: the engine could not reach its database; asking again",
                            method)
