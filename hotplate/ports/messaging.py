"""The engine's messaging, as Protocols: RPC in Heat's shape (rpc/ adapts
oslo.messaging and the in-process transport to it) and the notifier."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from hotplate.model.notifications import Notification

Endpoint = Any
"""An object whose allowlisted methods are called as ``method(ctxt, **kwargs)``."""


class Transport(Protocol):
    """RPC in Heat's shape: topics, servers, call and cast.

    Everything that crosses it is JSON: kwargs and results are serialised and
    parsed back even in-process, so nothing passes that could not cross a wire.
    """

    def serve(
        self, topic: str, server: str, endpoint: Endpoint, allowed: frozenset[str],
        *, gate: Any = None,
    ) -> None:
        """Start delivering messages for (topic, server) to ``endpoint``.

        Only methods named in ``allowed`` can be invoked; anything else is refused
        (a cast is dropped and logged, a call raises RemoteError). ``gate``, if
        given (an object with ``held()`` and ``contended()``), bounds how many
        of the server's threads work at once; transports may ignore it.
        """
        ...

    def unserve(self, topic: str, server: str) -> None: ...

    def cast(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None,
    ) -> None:
        """Fire and forget; with no server, any server of the topic takes it (round-robin)."""
        ...

    def call(
        self, ctxt: Mapping[str, Any], topic: str, method: str,
        kwargs: Mapping[str, Any], *, server: str | None = None, timeout: float | None = None,
    ) -> Any:
        """Invoke and wait for the JSON result; raises MessagingTimeout or RemoteError."""
        ...

    def stop(self) -> None: ...


class Notifier(Protocol):
    """Where stack and scaling notifications go (rpc/notifier.py: oslo.messaging's).

    EngineDeps holds None when no notification driver is configured: the
    engine then builds nothing and sends nothing.
    """

    def send(self, notification: Notification) -> None:
        """Hand one notification on without waiting for a broker.

        It may raise; the engine logs that and carries on, since a stack's
        state is already written when it is told.
        """
        ...

    def close(self) -> None:
        """Send what is still queued (for a bounded time), then let go of the broker."""
        ...

