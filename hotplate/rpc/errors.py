"""What can go wrong between a sender and an endpoint.

::

    RpcError
    ├── MessagingTimeout      no answer in time (or nobody serves the target)
    ├── BrokerUnavailable     the message broker cannot be reached now (the API's 503)
    ├── RemoteError           the endpoint raised something that is not a model error
    │   └── NoSuchMethod      refused: not allowlisted, private, or not a method
    └── NotSerializable       (also a TypeError) a value JSON cannot carry, at the sender

Errors from ``hotplate.model.errors`` raised by an endpoint are not wrapped:
the caller gets the same class back (EntityNotFound stays EntityNotFound), so
the API maps it to the same status whichever transport carried it. On the
engine topic over RabbitMQ they travel under Heat's class names, for a stock
heat-api (``heat_faults``), and come back from the name and the text: class
and message survive, a validation error's path stays inside its message, and
a Heat class with no model error of its name is a RemoteError of that name.
"""

from __future__ import annotations


class RpcError(Exception):
    """Base of the transport's own failures."""


class MessagingTimeout(RpcError):
    """A call got no reply in time; the engine may be dead (Heat's liveness rule)."""


class BrokerUnavailable(RpcError):
    """The broker is unreachable (rpc/broker_watch.py): nothing was, or will be, answered.

    ``retry_after``: seconds after which the broker may be back, as a client is told.
    """

    def __init__(self, method: str, retry_after: int) -> None:
        super().__init__(method, retry_after)
        self.method = method
        self.retry_after = retry_after

    def __str__(self) -> str:
        return ("The message broker is unreachable: no engine can be asked now. "
                f"Try again in {self.retry_after} s.")


class RemoteError(RpcError):
    """The endpoint raised; ``exc_type`` and ``message`` say what, as oslo.messaging does."""

    def __init__(self, exc_type: str, message: str, module: str = "") -> None:
        super().__init__(exc_type, message, module)
        self.exc_type = exc_type
        self.message = message
        self.module = module

    def __str__(self) -> str:
        return f"Remote error: {self.exc_type} {self.message}"


class NoSuchMethod(RemoteError):
    """The endpoint refuses the method: only allowlisted public methods are callable."""

    def __init__(self, method: str, reason: str = "not allowed") -> None:
        super().__init__("NoSuchMethod", f"Endpoint does not support RPC method {method} "
                                         f"({reason})", __name__)
        self.method = method


class NotSerializable(RpcError, TypeError):
    """A value that could not cross a wire as JSON; ``path`` names where it sits."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
