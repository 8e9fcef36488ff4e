"""Records for pure-core tests, with sensible defaults."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hotplate.model.ids import ResourceId, StackId, TemplateId, TraversalId
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action, Status

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def row(rid: int, name: str = "r", **kw: Any) -> ResourceRecord:
    values: dict[str, Any] = {
        "id": ResourceId(rid),
        "uuid": f"uuid-{rid}",
        "stack_id": StackId("s"),
        "name": name,
        "resource_type": "OS::Heat::None",
        "action": Action.CREATE,
        "status": Status.COMPLETE,
        "status_reason": "",
        "atomic_key": 1,
        "created_at": T0 + timedelta(seconds=rid),
        "current_template_id": TemplateId(1),
    }
    values.update(kw)
    return ResourceRecord(**values)


def stack(**kw: Any) -> StackRecord:
    values: dict[str, Any] = {
        "id": StackId("s"),
        "name": "st",
        "project_id": "p",
        "raw_template_id": TemplateId(2),
        "action": Action.UPDATE,
        "status": Status.IN_PROGRESS,
        "status_reason": "",
        "current_traversal": TraversalId("t2"),
        "created_at": T0,
    }
    values.update(kw)
    return StackRecord(**values)
