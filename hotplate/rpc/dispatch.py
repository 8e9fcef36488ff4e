"""The receiving side shared by every transport: routing and invoking an endpoint.

``Routes`` answers "who takes a message for (topic, server)": a named server,
or with no server the next one of the topic in turn (Heat casts check_resource
to any engine this way). ``Served`` checks the access policy *before* looking
the method up, so a refused name never even reaches ``getattr`` on the
endpoint, then invokes ``method(ctxt, **kwargs)`` with freshly decoded values.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Literal, TypeVar

from hotplate.model.errors import HotplateError, UpdateReplace
from hotplate.rpc import codec
from hotplate.rpc.errors import NoSuchMethod
from hotplate.rpc.policy import AccessPolicy

LOG = logging.getLogger(__name__)

ResultForm = Literal["value", "text", "copy"]
"""How ``Served.invoke`` gives a result back (see there)."""

T = TypeVar("T")

EXPECTED_ERRORS = (HotplateError, UpdateReplace)
"""What an endpoint raises on purpose for its caller: logged without a traceback."""


class Outcome(StrEnum):
    DELIVERED = "delivered"  # the method ran and returned
    FAILED = "failed"        # the method ran and raised
    REFUSED = "refused"      # the policy refused it (or the message was malformed)


@dataclass(frozen=True)
class Counters:
    """A snapshot of what a transport has carried, for tests and benchmarks."""

    cast: int = 0        # casts accepted for sending
    called: int = 0      # calls sent
    delivered: int = 0   # messages whose method ran (returned or raised)
    failed: int = 0      # of those, how many raised
    refused: int = 0     # refused by the access policy (or malformed): never ran
    dropped: int = 0     # messages nobody took: no server, unserved or stopped first
    duplicated: int = 0  # re-deliveries injected (DeterministicTransport only)


def outcome_keys(outcome: Outcome) -> tuple[str, ...]:
    """The Counters fields an outcome adds one to."""
    if outcome is Outcome.REFUSED:
        return ("refused",)
    return ("delivered", "failed") if outcome is Outcome.FAILED else ("delivered",)


class Routes(Generic[T]):
    """(topic, server) -> target, with a per-topic turn for server-less messages.

    Not thread-safe: the transport holds its own lock around it. ``start``
    picks where each topic's rotation begins (0 in-process; seeded in tests).
    """

    def __init__(self, start: Callable[[str], int] = lambda topic: 0) -> None:
        self._topics: dict[str, dict[str, T]] = {}
        self._turns: dict[str, int] = {}
        self._start = start

    def add(self, topic: str, server: str, target: T) -> None:
        servers = self._topics.setdefault(topic, {})
        if server in servers:
            raise ValueError(f"({topic}, {server}) is already served")
        servers[server] = target

    def remove(self, topic: str, server: str) -> T | None:
        servers = self._topics.get(topic, {})
        target = servers.pop(server, None)
        if not servers:
            self._topics.pop(topic, None)
        return target

    def has(self, topic: str, server: str | None = None) -> bool:
        servers = self._topics.get(topic, {})
        return bool(servers) if server is None else server in servers

    def resolve(self, topic: str, server: str | None) -> tuple[str, T] | None:
        """The server that takes the message and its target; None if nobody serves it."""
        servers = self._topics.get(topic)
        if not servers:
            return None
        if server is not None:
            target = servers.get(server)
            return None if target is None else (server, target)
        turn = self._turns.get(topic)
        if turn is None:
            turn = self._start(topic)
        self._turns[topic] = turn + 1
        name = list(servers)[turn % len(servers)]
        return name, servers[name]

    def targets(self) -> list[tuple[str, str, T]]:
        return [(t, s, target) for t, servers in self._topics.items()
                for s, target in servers.items()]


@dataclass(frozen=True)
class Served:
    """One endpoint served on (topic, server), behind its access policy."""

    topic: str
    server: str
    endpoint: Any
    policy: AccessPolicy

    def method(self, name: str) -> Callable[..., Any]:
        """The bound method for ``name``; NoSuchMethod if refused or missing."""
        self.policy.check(name)
        method: object = getattr(self.endpoint, name, None)
        if not callable(method):
            raise NoSuchMethod(name, "not a method of the endpoint")
        return method

    def consume(self, data: str) -> tuple[Outcome, Exception | None]:
        """Deliver a cast: nobody waits, so failures are logged here, with traceback."""
        try:
            message = codec.decode(data)
            method = self.method(message.method)
        except (ValueError, NoSuchMethod) as exc:
            LOG.warning("%s/%s refused a cast: %s", self.topic, self.server, exc)
            return Outcome.REFUSED, exc
        try:
            method(message.ctxt, **message.kwargs)
        except Exception as exc:
            LOG.exception("%s/%s: cast %s failed", self.topic, self.server, message.method)
            return Outcome.FAILED, exc
        return Outcome.DELIVERED, None

    def answer(self, data: str, *, as_read: bool = False) -> tuple[Outcome, Any]:
        """Deliver a call; the reply carries the result or the error envelope.

        ``as_read``, for a caller in this process: a DELIVERED result comes as
        the caller would read it from the reply (codec.result_as_read), not as
        its text; a failure is still the reply's text.
        """
        try:
            message = codec.decode(data)
        except ValueError as exc:
            LOG.warning("%s/%s refused a call: %s", self.topic, self.server, exc)
            return Outcome.REFUSED, codec.encode_failure(exc)
        outcome, value = self.invoke(message.method, message.ctxt, message.kwargs,
                                     result="copy" if as_read else "text")
        if outcome is Outcome.DELIVERED:
            return outcome, value
        return outcome, codec.encode_failure(value)

    def invoke(self, name: str, ctxt: dict[str, Any], kwargs: dict[str, Any], *,
               result: ResultForm = "value") -> tuple[Outcome, Any]:
        """Run a call behind the policy: (DELIVERED, the result in the ``result`` form),
        or (REFUSED or FAILED, the exception), logged alike whichever transport
        carried it. The forms: ``value``, the endpoint's own, JSON-checked; ``text``,
        the reply's text (the check writes it, so it is written once); ``copy``, the
        copy the check read back (codec.result_as_read).

        What the endpoint raises on purpose (EXPECTED_ERRORS) is logged without
        a traceback: it goes back to the caller, whose error it is.
        """
        try:
            method = self.method(name)
        except NoSuchMethod as exc:
            LOG.warning("%s/%s refused a call: %s", self.topic, self.server, exc)
            return Outcome.REFUSED, exc
        try:
            value = method(ctxt, **kwargs)
            if result == "text":
                value = codec.encode_result(value)
            elif result == "copy":
                value = codec.result_as_read(value)
            else:
                codec.check_json(value, "result")
        except EXPECTED_ERRORS as exc:
            LOG.debug("%s/%s: %s raised %r", self.topic, self.server, name, exc)
            return Outcome.FAILED, exc
        except Exception as exc:
            LOG.exception("%s/%s: call %s failed", self.topic, self.server, name)
            return Outcome.FAILED, exc
        return Outcome.DELIVERED, value
