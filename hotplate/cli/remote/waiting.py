"""``--wait``: follow a stack until it leaves IN_PROGRESS, showing its progress.

Progress comes from the stack's events, read as heatclient's
``poll_for_events`` reads them: ``GET .../events?sort_dir=asc&marker=<last
seen>``, the marker being the newest event from before the request (so an
update or a delete shows only its own events). Each round also reads the
stack itself; the wait ends when its status no longer ends in
``_IN_PROGRESS``, or when the stack is gone.

On a terminal the progress is a live view (:mod:`.live_view`): every
resource with its status and time, nested stacks indented, failures in red
with their reason. Anywhere else each event is printed as one log line, so
pipes, logs and tests see plain text.

A wait has failed when the stack ends ``*_FAILED``, or when a create,
update or adopt ends in a rollback: the stack is back where it was, but
what was asked did not happen.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from hotplate.cli.remote.errors import ApiError
from hotplate.cli.remote.events_text import EventNames, log_line
from hotplate.cli.remote.stack_ref import StackRef

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient

NESTED_DEPTH = 5
ROLLED_BACK_MEANS_FAILED = ("CREATE", "UPDATE", "ADOPT")


@dataclass(frozen=True)
class Outcome:
    """How a wait ended: the stack's last status (``""`` once the stack is gone)."""

    status: str
    reason: str
    failed: bool


class ProgressView(Protocol):
    """Where progress goes; ``wants_resources`` asks for the resource list each round."""

    wants_resources: bool

    def add_events(self, events: Sequence[Mapping[str, Any]]) -> None: ...

    def show(self, stack: Mapping[str, Any], resources: Sequence[Mapping[str, Any]]) -> None: ...


class EventLines:
    """Progress as log lines, one per event, flushed as they come."""

    wants_resources = False

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._names = EventNames()

    def add_events(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            self._out.write(log_line(event, self._names) + "\n")
        self._out.flush()

    def show(self, stack: Mapping[str, Any], resources: Sequence[Mapping[str, Any]]) -> None:
        pass


def newest_event_id(client: HeatClient, ref: StackRef) -> str | None:
    """The marker to take before a request, so the wait shows only what it started."""
    events = client.events(ref, {"sort_dir": "desc", "limit": 1})
    return str(events[0]["id"]) if events else None


def judge(status: str, reason: str, action: str | None) -> Outcome:
    failed = status.endswith("_FAILED") or (
        action in ROLLED_BACK_MEANS_FAILED and status.startswith("ROLLBACK_"))
    return Outcome(status, reason, failed)


class Waiter:
    """One stack followed until it settles; ``run`` returns how it ended."""

    def __init__(self, client: HeatClient, ref: StackRef, view: ProgressView, *,
                 action: str | None, marker: str | None, poll: float) -> None:
        self._client = client
        self._ref = ref
        self._view = view
        self._action = action
        self._marker = marker
        self._poll = poll

    def _read_events(self) -> None:
        params: dict[str, Any] = {"sort_dir": "asc"}
        if self._marker:
            params["marker"] = self._marker
        try:
            events = self._client.events(self._ref, params)
        except ApiError as exc:
            if exc.missing:  # the stack went away; its status says the rest
                return
            raise
        if events:
            self._marker = str(events[-1]["id"])
            self._view.add_events(events)

    def _read_stack(self) -> dict[str, Any] | None:
        try:
            stack = self._client.get_stack(self._ref, resolve_outputs=False)
        except ApiError as exc:
            if exc.missing:
                return None
            raise
        resources: list[dict[str, Any]] = []
        if self._view.wants_resources:
            try:
                resources = self._client.resources(self._ref, {"nested_depth": NESTED_DEPTH})
            except ApiError as exc:
                if not exc.missing:
                    raise
        self._view.show(stack, resources)
        return stack

    def run(self) -> Outcome:
        while True:
            self._read_events()
            stack = self._read_stack()
            if stack is None:
                # Gone: a delete finished and the stack can no longer be read.
                return Outcome("", "", self._action not in (None, "DELETE"))
            status = str(stack.get("stack_status") or "")
            if not status.endswith("_IN_PROGRESS"):
                self._read_events()  # the events written while the stack settled
                return judge(status, str(stack.get("stack_status_reason") or ""),
                             self._action)
            time.sleep(self._poll)


def wait_for_stack(client: HeatClient, ref: StackRef, out: TextIO, *, action: str | None,
                   marker: str | None, poll: float) -> Outcome:
    """Follow ``ref`` until it settles: a live view on a terminal, event lines elsewhere.

    Ctrl-C stops the waiting, not the stack: it says so, and how to keep following.
    """
    try:
        if out.isatty():
            from hotplate.cli.remote.live_view import LiveView

            with LiveView(out, ref.name) as live:
                return Waiter(client, ref, live, action=action, marker=marker,
                              poll=poll).run()
        view = EventLines(out)
        return Waiter(client, ref, view, action=action, marker=marker, poll=poll).run()
    except KeyboardInterrupt:
        print(f"Stopped waiting; stack {ref.name} carries on (follow it with `hotplate stack "
              f"event list {ref.name} --follow`).", file=sys.stderr)
        raise
