"""A page's place in its stack's stream: what it has had, what it gets next.

A ``Watcher`` (event_stream.py) reads a stack's events once for every page; each
page holds a ``Subscription``: its cursor in the watcher's history, and, for a
page that resumed from an older event, the backlog it must get first. A page in
step with the watcher gets the batch frame the watcher made once for all such
pages; more than BATCH_MAX behind, it is told ``reset``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hotplate.ui.sse import events_frame, frame

if TYPE_CHECKING:
    from hotplate.ui.event_stream import Watcher

BATCH_MAX = 500
"""The most events in one batch; more and the page is told ``reset`` (re-read the list)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """An event a watcher read: its place, its id and its view, encoded once."""

    seq: int
    id: str
    encoded: str


@dataclass(eq=False)
class Subscription:
    """One page's place in a watcher's history, and what it must get first."""

    watcher: Watcher
    cursor: int
    backlog: list[Seen] = field(default_factory=list)
    skip_through: str | None = None
    """The page's Last-Event-ID, when the watcher had not read it yet: what comes
    up to it the page has."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    stack_version_sent: int = 0
    last_sent_id: str | None = None

    def has_news(self) -> bool:
        w = self.watcher
        return bool(self.backlog) or self.cursor < w.next_seq or (
            w.stack is not None and self.stack_version_sent != w.stack_version)

    def take(self) -> list[str]:
        """The frames due now: the events (or ``reset``), then the stack's status."""
        w = self.watcher
        frames = []
        if self.cursor < w.first_seq:
            frames.append(self._reset())
        elif not self.backlog and self.skip_through is None:
            if self.cursor < w.next_seq:  # the usual case: in step with the watcher
                if w.next_seq - self.cursor > BATCH_MAX:
                    frames.append(self._reset())
                else:
                    frames.append(w.batch(self.cursor))
                    self.last_sent_id = w.history[-1].id
        else:
            frames.extend(self._catch_up())
        self.cursor = w.next_seq
        if w.stack is not None and self.stack_version_sent != w.stack_version:
            self.stack_version_sent = w.stack_version
            frames.append(frame("stack", w.stack))
        return frames

    def _catch_up(self) -> list[str]:
        """A resumed page: its backlog, then the watcher's events it has not had."""
        events = self.backlog
        sent = {e.id for e in events}
        self.backlog = []
        new = self.watcher.since(self.cursor)
        if self.skip_through is not None:
            ids = [e.id for e in new]
            if self.skip_through in ids:
                new = new[ids.index(self.skip_through) + 1:]
                self.skip_through = None
        events = events + [e for e in new if e.id not in sent]
        if len(events) > BATCH_MAX:
            return [self._reset()]
        if not events:
            return []
        self.last_sent_id = events[-1].id
        return [events_frame([e.encoded for e in events], self.last_sent_id)]

    def _reset(self) -> str:
        self.last_sent_id = self.watcher.last_id or self.last_sent_id
        return frame("reset", {"reason": "too many events: read the list again"},
                     self.last_sent_id)
