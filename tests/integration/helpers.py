"""Factories and a fake clock for the Store contract suite."""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from hotplate.db.store import SqlStore
from hotplate.model.ids import ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.records import NewEvent, NewResource, StackRecord
from hotplate.model.states import Action, Status

T = TypeVar("T")

EPOCH = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


class FakeClock:
    """Each now() is one millisecond after the previous one; sleep() jumps ahead."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            self._now += timedelta(milliseconds=1)
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)


def new_id() -> str:
    return str(uuid.uuid4())


def make_template(store: SqlStore) -> TemplateId:
    return store.create_raw_template(
        {"heat_template_version": "2021-04-16", "resources": {}}, {}, {"parameters": {}}
    )


_names = itertools.count()


def stack_record(
    template_id: TemplateId,
    clock: FakeClock,
    *,
    name: str | None = None,
    project_id: str = "project-a",
    **fields: Any,
) -> StackRecord:
    values: dict[str, Any] = {
        "id": StackId(new_id()),
        "name": name or f"stack-{next(_names)}",
        "project_id": project_id,
        "raw_template_id": template_id,
        "action": Action.CREATE,
        "status": Status.IN_PROGRESS,
        "status_reason": "Stack CREATE started",
        "current_traversal": TraversalId(new_id()),
        "created_at": clock.now(),
    }
    values.update(fields)
    return StackRecord(**values)


def make_stack(store: SqlStore, clock: FakeClock, **fields: Any) -> StackRecord:
    record = stack_record(make_template(store), clock, **fields)
    store.create_stack(record)
    return record


def new_resource(stack: StackRecord, name: str = "server", **fields: Any) -> NewResource:
    values: dict[str, Any] = {
        "stack_id": stack.id,
        "name": name,
        "resource_type": "OS::Heat::None",
        "uuid": new_id(),
        "current_template_id": stack.raw_template_id,
    }
    values.update(fields)
    return NewResource(**values)


def make_resource(store: SqlStore, stack: StackRecord, name: str = "server") -> ResourceId:
    return store.create_resources([new_resource(stack, name)])[0]


def event_for(stack: StackRecord, name: str = "server", **fields: Any) -> NewEvent:
    values: dict[str, Any] = {
        "stack_id": stack.id,
        "uuid": new_id(),
        "resource_name": name,
        "resource_action": "CREATE",
        "resource_status": "IN_PROGRESS",
        "resource_status_reason": "state changed",
        "resource_type": "OS::Heat::None",
    }
    values.update(fields)
    return NewEvent(**values)


def race(n: int, attempt: Callable[[int], T]) -> list[T]:
    """Run attempt(0..n-1) on n threads released together; results in index order."""
    barrier = threading.Barrier(n)

    def go(i: int) -> T:
        barrier.wait()
        return attempt(i)

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(go, range(n)))


def ids(records: Sequence[Any]) -> list[Any]:
    return [r.id for r in records]
