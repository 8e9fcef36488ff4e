"""Which methods of an endpoint a message may invoke.

Heat serves its endpoints with oslo.messaging's DefaultRPCAccessPolicy, which
exposes every public method, so anyone who can publish on the engine topics
can also reach methods no client was meant to call (SPEC.md, summary). Here
each endpoint names what is callable, and a name that starts with an
underscore is refused even if listed: an allowlist typo must not open up
internals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hotplate.rpc.errors import NoSuchMethod


@dataclass(frozen=True)
class AccessPolicy:
    """An explicit allowlist of method names for one endpoint."""

    allowed: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> AccessPolicy:
        return cls(frozenset(names))

    def permits(self, method: str) -> bool:
        return method in self.allowed and not method.startswith("_")

    def check(self, method: str) -> None:
        """Raise NoSuchMethod unless ``method`` may be invoked remotely."""
        if method.startswith("_"):
            raise NoSuchMethod(method, "private")
        if method not in self.allowed:
            raise NoSuchMethod(method, "not allowed")
