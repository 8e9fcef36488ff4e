"""What a command reports when it cannot do what it was asked.

::

    CommandError        printed as one line, ``ERROR: <message>``; exit status 1
     ├── ApiError       the server answered with an error (Heat's fault body)
     └── Unreachable    no answer at all: connection refused, timeout, bad URL

Every remote command turns these into that one line: a user never sees a
traceback for something the server or the network did.
"""

from __future__ import annotations


class CommandError(Exception):
    """A failure the user can act on; ``message`` is what gets printed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ApiError(CommandError):
    """The server refused the request; ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str, error_type: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type

    @property
    def missing(self) -> bool:
        """Something named does not exist (a stack, a resource, an output).

        Not a route the server lacks: routing errors carry webob's class
        names (``HTTPNotFound``), the engine's carry its own (``EntityNotFound``).
        """
        return self.status == 404 and not self.error_type.startswith("HTTP")


class Unreachable(CommandError):
    """The server could not be reached at all."""
