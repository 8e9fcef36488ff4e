"""A fake clock and a fake ResourceContext, enough to drive a plugin's lifecycle."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hotplate.resources import Resource, ResourceContext

START = datetime(2026, 1, 1, tzinfo=UTC)


class FakeClock:
    """Time moves only when a test (or a sleeper) moves it."""

    def __init__(self, start: datetime = START) -> None:
        self._now = start
        self.slept: list[float] = []

    def now(self) -> datetime:
        return self._now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)


@dataclass
class FakeContext:
    stack_id: str = "5f1b6e0e-0000-4000-8000-000000000001"
    stack_name: str = "teststack"
    project_id: str = "project"
    resource_name: str = "web"
    uuid: str = "0b3c2d1e-0000-4000-8000-0000000000aa"
    clock: FakeClock = field(default_factory=FakeClock)
    stored: dict[str, str] = field(default_factory=dict)
    redacted: set[str] = field(default_factory=set)

    def physical_resource_name(self) -> str:
        return f"{self.stack_name}-{self.resource_name}-abcdefghijkl"

    def data(self) -> Mapping[str, str]:
        return dict(self.stored)

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        self.stored[key] = value
        if redact:
            self.redacted.add(key)
        else:
            self.redacted.discard(key)

    def data_delete(self, key: str) -> None:
        self.stored.pop(key, None)
        self.redacted.discard(key)


def _typed(ctx: FakeContext) -> ResourceContext:
    return ctx  # checked by the type checker: FakeContext satisfies the protocol


def make(cls: type[Resource], raw: Mapping[str, Any] | None = None, *, name: str = "web",
         ctx: FakeContext | None = None, resource_id: str | None = None) -> Resource:
    """Validate ``raw`` as the engine would and build an instance."""
    context = ctx if ctx is not None else FakeContext(resource_name=name)
    props = cls.validate(raw or {}, ("resources", name, "properties"))
    return cls(name, props, _typed(context), resource_id=resource_id)


def drive(handle: Callable[[], Any], check: Callable[[Any], bool], clock: FakeClock,
          *, step: float = 1.0, max_polls: int = 10_000) -> int:
    """The engine's loop in miniature: handle once, then poll, sleeping ``step`` between.

    Returns how many sleeps it took.
    """
    data = handle()
    sleeps = 0
    while not check(data):
        if sleeps >= max_polls:
            raise AssertionError("never completed")
        clock.sleep(step)
        sleeps += 1
    return sleeps
