"""A transport that loses casts on purpose: for tests of recovery only.

Recovery promises that a lost message delays a traversal and never strands
it (the sweep sends a stalled node again; the stack timeout is enforced
with no message left). To watch that happen in real engine processes, a
test starts an engine with ``HOTPLATE_FAULT_DROP_CASTS`` set, and the
composition root wraps the engine's transport in a ``FaultSwitch``:

- ``check_resource:3`` drops the first 3 casts of ``check_resource``;
- ``check_resource:*@2`` lets the first 2 through, then drops every one;
- ``check_resource:1@4,stack_action:*`` gives one rule per method.

Only casts are dropped (a call's caller would see the loss at once, which is
no test of recovery). Each drop is logged as a warning, so a test can tell
the loss happened. Unset, nothing is wrapped and nothing changes: no
deployment sets this variable.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.ports import Endpoint, Transport

LOG = logging.getLogger(__name__)

ENVIRONMENT_VARIABLE = "HOTPLATE_FAULT_DROP_CASTS"


@dataclass(frozen=True, slots=True)
class DropRule:
    """Which casts of one method are lost: after ``passed`` go through, ``dropped`` of them
    (None: every one from then on)."""

    dropped: int | None
    passed: int = 0

    def drops(self, nth: int) -> bool:
        """Whether the ``nth`` cast of the method (counting from 1) is lost."""
        if nth <= self.passed:
            return False
        return self.dropped is None or nth <= self.passed + self.dropped


def parse_rules(spec: str) -> dict[str, DropRule]:
    """``method:count[@passed]`` rules, comma-separated (see the module docstring).

    Raises:
        ValueError: a rule that does not read so, naming it and the variable.
    """
    rules: dict[str, DropRule] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        method, sep, rest = part.partition(":")
        count, _, passed = rest.partition("@")
        try:
            dropped = None if count == "*" else int(count)
            first = int(passed) if passed else 0
        except ValueError:
            dropped, first = -1, -1
        if not method or not sep or (dropped is not None and dropped < 0) or first < 0:
            raise ValueError(f"{ENVIRONMENT_VARIABLE}: {part!r} is not method:count[@passed] "
                             "(count a number or *)")
        rules[method] = DropRule(dropped, first)
    return rules


class FaultSwitch:
    """Wraps a transport; casts named by the rules are counted, and some are lost."""

    def __init__(self, inner: Transport, rules: Mapping[str, DropRule]) -> None:
        self._inner = inner
        self._rules = dict(rules)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def serve(self, topic: str, server: str, endpoint: Endpoint, allowed: frozenset[str],
              *, gate: Any = None) -> None:
        self._inner.serve(topic, server, endpoint, allowed, gate=gate)

    def unserve(self, topic: str, server: str) -> None:
        self._inner.unserve(topic, server)

    def cast(self, ctxt: Mapping[str, Any], topic: str, method: str,
             kwargs: Mapping[str, Any], *, server: str | None = None) -> None:
        rule = self._rules.get(method)
        if rule is not None:
            with self._lock:
                self._counts[method] += 1
                nth = self._counts[method]
            if rule.drops(nth):
                LOG.warning("fault switch: dropped cast %s number %d (%s)", method, nth,
                            dict(kwargs))
                return
        self._inner.cast(ctxt, topic, method, kwargs, server=server)

    def call(self, ctxt: Mapping[str, Any], topic: str, method: str,
             kwargs: Mapping[str, Any], *, server: str | None = None,
             timeout: float | None = None) -> Any:
        return self._inner.call(ctxt, topic, method, kwargs, server=server, timeout=timeout)

    def stop(self) -> None:
        self._inner.stop()


def with_faults(transport: Transport, environ: Mapping[str, str]) -> Transport:
    """``transport`` itself, or wrapped in a FaultSwitch when the variable is set."""
    spec = environ.get(ENVIRONMENT_VARIABLE)
    if not spec:
        return transport
    rules = parse_rules(spec)
    LOG.warning("fault switch on (%s=%s): casts will be lost on purpose",
                ENVIRONMENT_VARIABLE, spec)
    return FaultSwitch(transport, rules)
