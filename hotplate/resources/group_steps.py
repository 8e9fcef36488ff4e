"""A group's action as a list of steps on its child stack, advanced on each poll.

A plain group action is one step: give the child its template and wait for
it. A batched one (rolling update, batch create) is several, with pauses
between: each template is built only when its step starts, from the child
as the previous batch left it, which is what decides which members the
next batch changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hotplate.resources.stack_resource import StackResource

__all__ = ["Apply", "Pause", "Steps"]


@dataclass
class Apply:
    """Create the child with, or update it to, the template ``build`` gives."""

    build: Callable[[], Mapping[str, Any]]
    waiting_for: str | None = None

    def advance(self, owner: StackResource) -> bool:
        if self.waiting_for is None:
            self.waiting_for = owner.apply_child_template(self.build())
        return owner.child_done(self.waiting_for)


@dataclass
class Pause:
    """Wait ``seconds`` between two batches."""

    seconds: float
    until: datetime | None = None

    def advance(self, owner: StackResource) -> bool:
        now = owner.ctx.clock.now()
        if self.until is None:
            self.until = now + timedelta(seconds=self.seconds)
        return now >= self.until


class Steps:
    """The steps of one action, in order; ``advance`` says whether all are done."""

    def __init__(self, steps: Sequence[Apply | Pause]) -> None:
        self._steps = list(steps)
        self._index = 0

    def next_check_after(self, now: datetime) -> float | None:
        """Seconds left of a pause under way; None while waiting for the child."""
        if self._index >= len(self._steps):
            return None
        step = self._steps[self._index]
        if isinstance(step, Pause) and step.until is not None:
            return max((step.until - now).total_seconds(), 0.0)
        return None

    def advance(self, owner: StackResource) -> bool:
        while self._index < len(self._steps):
            if not self._steps[self._index].advance(owner):
                return False
            self._index += 1
        return True
