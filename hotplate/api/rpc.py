"""EngineRpc: the API's one way to the engine, a call on the engine topic.

A call with no ``host`` goes to the topic's shared queue, where the broker
hands it to one engine's consumer in turn. That engine may be cut off (the
broker keeps its consumers until their connection's heartbeat runs out), and
then the call waits for nothing. So a call that is safe to ask twice is
asked again when the first engine does not answer in ``FIRST_TRY`` seconds,
then again after twice as long, and so on, within the call's whole timeout:
the broker hands each try to the next consumer, and drops a silent one's
within its heartbeat timeout. A call an engine could not answer because it
could not reach its database (it is cut off from it, and about to fence
itself) is asked again at once.

Safe to ask twice: a read (rpc/requests.py ``READS``), and a write that
carries a request id, which every write from this API does (the request's
own, or its Idempotency-Key's): the engines keep each write's answer by its
id (engine/service/request_ledger.py), so a write the first engine did is
answered, not done again, and one it is still doing is waited for; an
engine that answers ``RequestInProgress`` is asked again after ``PAUSE``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import RequestInProgress
from hotplate.ports import Transport
from hotplate.rpc.errors import MessagingTimeout, RemoteError
from hotplate.rpc.requests import READS, WRITES, request_id_of
from hotplate.rpc.topics import ENGINE_TOPIC

LOG = logging.getLogger(__name__)

FIRST_TRY = 5.0
"""Seconds the first try waits for an answer; each further try twice as long."""
PAUSE = 1.0
"""Seconds before asking again about a write whose first asking still runs."""

DATABASE_AWAY = frozenset({"OperationalError", "StoreUnavailable", "InterfaceError"})
"""What an engine that cannot reach its database raises (SQLAlchemy's and the store's)."""

__all__ = ["DATABASE_AWAY", "FIRST_TRY", "READS", "EngineRpc"]


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
        if self._host is not None or whole is None or not _repeatable(ctxt, method):
            return self._transport.call(ctxt, ENGINE_TOPIC, method, kwargs,
                                        server=self._host, timeout=self._timeout)
        return self._again(ctxt, method, kwargs, float(whole))

    def _again(self, ctxt: Mapping[str, Any], method: str, kwargs: dict[str, Any],
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
            except RequestInProgress:
                if deadline - time.monotonic() <= PAUSE:
                    raise
                time.sleep(PAUSE)
            except RemoteError as exc:
                if exc.exc_type not in DATABASE_AWAY or time.monotonic() >= deadline:
                    raise
                LOG.warning("%s: the engine could not reach its database; asking again",
                            method)


def _repeatable(ctxt: Mapping[str, Any], method: str) -> bool:
    return method in READS or (method in WRITES and request_id_of(ctxt) is not None)
