"""The live view of a stack in progress, redrawn in place on a terminal (rich).

::

    Stack web  UPDATE_IN_PROGRESS  0:07
     Resource        Type                     Status                Time
     db              OS::Heat::TestResource   UPDATE_COMPLETE         2s
     app             OS::Heat::Stack          UPDATE_IN_PROGRESS      5s
       server        OS::Heat::TestResource   UPDATE_IN_PROGRESS      4s
     broken          OS::Heat::TestResource   CREATE_FAILED           1s  Test Resource failed

Resources of nested stacks sit under the resource that owns them. A
resource's time runs from its last ``*_IN_PROGRESS`` event to the event that
ended it (server clock); resources that did nothing since the wait began
show none. The last few events are shown under the table.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TextIO

from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from hotplate.cli.remote.events_text import (
    EventNames,
    log_line,
    nested_id_of,
    stack_id_of,
)

RECENT_EVENTS = 5


def status_style(status: str) -> str:
    if status.endswith("_FAILED"):
        return "bold red"
    if status.endswith("_IN_PROGRESS"):
        return "yellow"
    if status.endswith("_COMPLETE"):
        return "green"
    return ""


def tree_order(resources: Sequence[Mapping[str, Any]], root_id: str
               ) -> list[tuple[int, Mapping[str, Any]]]:
    """``(depth, resource)`` with each nested stack's resources right under their owner."""
    by_stack: dict[str, list[Mapping[str, Any]]] = {}
    for res in resources:
        by_stack.setdefault(stack_id_of(res), []).append(res)
    ordered: list[tuple[int, Mapping[str, Any]]] = []
    seen: set[str] = set()

    def visit(stack_id: str, depth: int) -> None:
        if stack_id in seen:
            return
        seen.add(stack_id)
        for res in by_stack.get(stack_id, ()):
            ordered.append((depth, res))
            child = nested_id_of(res)
            if child:
                visit(child, depth + 1)

    visit(root_id, 0)
    for stack_id in by_stack:  # nested stacks whose owner was not listed
        visit(stack_id, 1)
    return ordered


def _parse_time(text: Any) -> datetime | None:
    try:
        return datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m{seconds:02d}s"


class ResourceTimes:
    """When each resource's current action began and ended, from its events."""

    def __init__(self) -> None:
        self._spans: dict[tuple[str, str], tuple[datetime, datetime | None]] = {}

    def add(self, event: Mapping[str, Any]) -> None:
        key = (stack_id_of(event), str(event.get("resource_name") or ""))
        when = _parse_time(event.get("event_time"))
        status = str(event.get("resource_status") or "")
        if when is None:
            return
        if status.endswith("_IN_PROGRESS"):
            self._spans[key] = (when, None)
        elif key in self._spans and self._spans[key][1] is None:
            self._spans[key] = (self._spans[key][0], when)

    def elapsed(self, resource: Mapping[str, Any], now: datetime) -> str:
        span = self._spans.get((stack_id_of(resource), str(resource.get("resource_name"))))
        if span is None:
            return ""
        start, end = span
        return _duration(((end or now) - start).total_seconds())


class LiveView:
    """A redrawn table of the stack's resources; use as a context manager."""

    wants_resources = True

    def __init__(self, out: TextIO, stack_name: str) -> None:
        self._console = Console(file=out)
        self._name = stack_name
        self._started = time.monotonic()
        self._stack: Mapping[str, Any] = {}
        self._resources: Sequence[Mapping[str, Any]] = ()
        self._times = ResourceTimes()
        self._names = EventNames()
        self._recent: deque[str] = deque(maxlen=RECENT_EVENTS)
        self._live = Live(self.render(), console=self._console, refresh_per_second=4,
                          transient=False)

    def __enter__(self) -> LiveView:
        self._live.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._live.update(self.render(), refresh=True)
        self._live.__exit__(exc_type, exc, tb)

    def add_events(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            self._times.add(event)
            self._recent.append(log_line(event, self._names))
        self._live.update(self.render())

    def show(self, stack: Mapping[str, Any], resources: Sequence[Mapping[str, Any]]) -> None:
        self._stack = stack
        self._resources = resources
        self._live.update(self.render())

    def render(self, now: datetime | None = None) -> RenderableType:
        now = now or datetime.now(UTC)
        status = str(self._stack.get("stack_status") or "")
        header = Text.assemble(("Stack ", "bold"), (self._name, "bold"), "  ",
                               (status, status_style(status)), "  ",
                               _duration(time.monotonic() - self._started))
        parts: list[RenderableType] = [header]
        if status.endswith("_FAILED") and self._stack.get("stack_status_reason"):
            parts.append(Text(str(self._stack["stack_status_reason"]), style="red"))
        parts.append(self._table(now))
        if self._recent:
            parts.append(Text("\n".join(self._recent), style="dim", overflow="ellipsis",
                              no_wrap=True))
        return Group(*parts)

    def _table(self, now: datetime) -> Table:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for heading in ("Resource", "Type", "Status"):
            table.add_column(heading, no_wrap=True)
        table.add_column("Time", justify="right", no_wrap=True)
        table.add_column("Reason", style="red")
        root = str(self._stack.get("id") or "")
        for depth, res in tree_order(self._resources, root):
            status = str(res.get("resource_status") or "")
            reason = str(res.get("resource_status_reason") or "") if status.endswith(
                "_FAILED") else ""
            table.add_row("  " * depth + str(res.get("resource_name") or ""),
                          str(res.get("resource_type") or ""),
                          Text(status, style=status_style(status)),
                          self._times.elapsed(res, now), reason)
        return table
