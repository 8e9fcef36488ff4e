"""Event sinks: every event of a stack handed to the sinks its environment names.

As in Heat, an environment lists its sinks by type, each with its options::

    event_sinks:
      - {type: webhook, url: http://collector/events}
      - {type: zaqar-queue, target: my-queue, ttl: 3600}

A type is a class registered under the entry-point group ``heat.event_sinks``
(Heat's own load unchanged) or ``hotplate.event_sinks``; ``webhook`` is
built in (webhook.py). A sink is built as Heat builds it, ``cls(**options)``,
and called ``sink.consume(context, event)`` with Heat's event body
(``event_body``) and the stack owner's context (plugin_views.py).

What is sent, and when, never holds up a traversal:

* ``observe`` is called with each event as it is built. It looks the stack's
  sinks up in a per-engine map (read from the stack's template by the
  delivery thread, at most once a second per stack, and set at once when
  this engine starts an action on it): a stack without sinks costs that one
  lookup. Any other event is queued for this engine's delivery thread
  (sink_delivery.py), which reads it back once it is written (an event
  whose write lost its race is never found, and never sent).
* A sink class with ``durable = True`` (the webhook) gets its events through
  the outbox table, retried with backoff and kept across restarts; any other
  sink is called once from the delivery thread, a failure logged, as Heat
  calls its sinks.
* An engine that dies between writing events and handing them over loses
  nothing for a durable sink: when an action sets a stack's sinks
  (``watch``), each durable one gets a watermark in the database (``keep``,
  db/outbox.py), and every engine's delivery thread hands over the events
  above a watermark that nobody handed over (sink_delivery.py). A stack
  without sinks costs no statement for it.

Bad sinks are refused when the stack is created, updated or validated
(``check_sinks``), naming the entry: ``event_sinks[0].url: ...``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC
from typing import Any

from hotplate.engine.plugin_points import registered
from hotplate.engine.webhook import WebhookSink
from hotplate.model.errors import StackValidationFailed
from hotplate.model.records import EventRecord, NewEvent
from hotplate.template import Environment, parse_environment

__all__ = ["ENTRY_POINT_GROUPS", "EventSinks", "SinkTypes", "check_environment", "check_sinks",
           "event_body", "sink_key"]

LOG = logging.getLogger(__name__)

ENTRY_POINT_GROUPS = ("heat.event_sinks", "hotplate.event_sinks")
BUILT_IN: Mapping[str, type] = {"webhook": WebhookSink}
ROUTE_TTL_SECS = 1.0
"""How long an engine trusts what it read of a stack's sinks (another engine may have
updated the stack since)."""
ROUTES_KEPT = 4096

Sinks = tuple[Mapping[str, Any], ...]
Resolver = Callable[[str], Sinks]
"""A stack id to the sinks of its current template."""
Keeper = Callable[[str, Mapping[str, Mapping[str, Any]]], None]
"""Writes down a stack's durable sinks, by ``sink_key``, as an action sets them."""


def event_body(event: EventRecord) -> dict[str, Any]:
    """Heat's ``Event.as_dict()``: the body every sink is given.

    The timestamp is the stored one as Heat shows it (naive UTC, ISO 8601);
    hotplate keeps no resource properties with an event, so they are empty.
    """
    created = event.created_at.astimezone(UTC).replace(tzinfo=None)
    return {
        "timestamp": created.isoformat(),
        "version": "0.1",
        "type": "os.heat.event",
        "id": event.uuid,
        "payload": {
            "resource_name": event.resource_name,
            "physical_resource_id": event.physical_resource_id,
            "stack_id": str(event.stack_id),
            "resource_action": event.resource_action,
            "resource_status": event.resource_status,
            "resource_status_reason": event.resource_status_reason,
            "resource_type": event.resource_type,
            "resource_properties": {},
            "version": "0.1",
        },
    }


def sink_key(sink: Mapping[str, Any]) -> str:
    """One sink's identity in the outbox: the digest of its whole entry."""
    text = json.dumps(dict(sink), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def options_of(sink: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sink.items() if k != "type"}


class SinkTypes:
    """The sink classes this engine knows, by type name."""

    def __init__(self, classes: Mapping[str, type] | None = None) -> None:
        self._classes = {**(classes or {}), **BUILT_IN}
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_entry_points(cls, groups: Sequence[str] = ENTRY_POINT_GROUPS) -> SinkTypes:
        """Every class under ``groups`` (a later group's name wins); one that fails to
        load is logged and left out."""
        found: dict[str, type] = {}
        for group in groups:
            for point in registered(group):
                try:
                    found[point.name] = point.load()
                except Exception:
                    LOG.exception("could not load event sink %s (%s)", point.name, point.value)
        return cls(found)

    def names(self) -> list[str]:
        return sorted(self._classes)

    def get(self, name: str) -> type | None:
        return self._classes.get(name)

    def durable(self, sink: Mapping[str, Any]) -> bool:
        cls = self._classes.get(str(sink.get("type")))
        return bool(getattr(cls, "durable", False))

    def build(self, sink: Mapping[str, Any]) -> Any:
        """The sink object for one entry (built once per distinct entry)."""
        key = sink_key(sink)
        with self._lock:
            built = self._built.get(key)
        if built is None:
            cls = self._classes[str(sink["type"])]
            built = cls(**options_of(sink))
            with self._lock:
                if len(self._built) >= ROUTES_KEPT:
                    self._built.clear()
                self._built[key] = built
        return built


def check_sinks(types: SinkTypes, sinks: Iterable[Mapping[str, Any]]) -> None:
    """Refuse a sink of an unknown type or with bad options.

    Raises:
        StackValidationFailed: naming the entry, ``event_sinks[<i>].<option>``.
    """
    for index, sink in enumerate(sinks):
        where = f"event_sinks[{index}]"
        name = sink.get("type")
        cls = types.get(str(name))
        if cls is None:
            raise StackValidationFailed(
                f'unknown event sink type "{name}" (known: {", ".join(types.names())})',
                (where, "type"))
        problems = getattr(cls, "problems", None)
        if callable(problems):
            found = problems(options_of(sink))
            if found:
                option, message = found[0]
                raise StackValidationFailed(message, (where, option))
            continue
        try:
            cls(**options_of(sink))
        except Exception as exc:
            raise StackValidationFailed(f'bad options for an event sink of type "{name}": '
                                        f"{exc}", (where,)) from None


def check_environment(sinks: EventSinks | None, environment: Mapping[str, Any] | Environment,
                      ) -> None:
    """``check_sinks`` on an environment's ``event_sinks`` (by the engine's types, or
    the built-in ones when it has none)."""
    env = environment if isinstance(environment, Environment) else parse_environment(
        environment)
    if env.event_sinks:
        check_sinks(sinks.types if sinks is not None else SinkTypes(), env.event_sinks)


class EventSinks:
    """This engine's view of which stacks have sinks, and its queue of events for them.

    The hot path (``observe``) never reads the database: an event of a stack
    whose sinks are not known (or no longer trusted) is queued as it is, and
    the delivery thread reads the stack's sinks (``route``) before anything
    else, keeping the answer for ``ttl`` seconds.
    """

    def __init__(self, types: SinkTypes, *, ttl: float = ROUTE_TTL_SECS,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.types = types
        self._ttl = ttl
        self._monotonic = monotonic
        self._routes: dict[str, tuple[float, Sinks]] = {}
        self._resolve: Resolver | None = None
        self._keep: Keeper | None = None
        self.queue: deque[tuple[NewEvent, Sinks | None, float]] = deque()
        """Events to deliver, each with its stack's sinks (None: not known yet)."""
        self.wake = threading.Event()

    def bind(self, resolve: Resolver) -> None:
        """Where a stack's sinks are read from (the stack's row and template)."""
        self._resolve = resolve

    def observe(self, event: NewEvent) -> None:
        """An event is about to be written: queue it unless its stack has no sinks."""
        now = self._monotonic()
        route = self._routes.get(event.stack_id)
        if route is not None and route[0] >= now:
            if not route[1]:
                return
            self.queue.append((event, route[1], now))
        else:
            self.queue.append((event, None, now))
        self.wake.set()

    def keep(self, keeper: Keeper) -> None:
        """Where a stack's durable sinks are written down (the delivery's outbox)."""
        self._keep = keeper

    def watch(self, stack_id: str, sinks: Sinks) -> None:
        """The stack's sinks as this engine just set them (an action on a template),
        its durable ones written down before the action writes its first event.

        Raises:
            Exception: the durable sinks could not be written down (the database's).
        """
        self._store_route(stack_id, self._monotonic(), tuple(sinks))
        durable = {sink_key(sink): sink for sink in sinks if self.types.durable(sink)}
        if durable and self._keep is not None:
            self._keep(stack_id, durable)

    def current(self, stack_id: str) -> Sinks:
        """The stack's sinks read now (no cache), for a decision that must not rest on
        a stale or failed reading.

        Raises:
            Exception: they could not be read (the database's).
        """
        return tuple(self._resolve(stack_id)) if self._resolve is not None else ()

    def route(self, stack_id: str) -> Sinks:
        """The stack's sinks, read again once the last reading is ``ttl`` old."""
        now = self._monotonic()
        route = self._routes.get(stack_id)
        if route is not None and route[0] >= now:
            return route[1]
        sinks: Sinks = ()
        if self._resolve is not None:
            try:
                sinks = tuple(self._resolve(stack_id))
            except Exception:
                LOG.warning("stack %s: could not read its event sinks", stack_id, exc_info=True)
        return self._store_route(stack_id, now, sinks)[1]

    def _store_route(self, stack_id: str, now: float, sinks: Sinks) -> tuple[float, Sinks]:
        route = (now + self._ttl, sinks)
        if len(self._routes) >= ROUTES_KEPT:
            self._routes.clear()
        self._routes[stack_id] = route
        return route
