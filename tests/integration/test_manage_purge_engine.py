"""purge_deleted after the engine's own delete, on every backend: what a real create and
delete leave (the stack row, its template, events, tags) all goes, and nothing of another
stack does."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine as SqlEngine
from sqlalchemy import func, select

from hotplate.app import Engine, embedded
from hotplate.db import schema as s
from hotplate.db.purge import HANGING, purge_deleted

CTXT: dict[str, Any] = {"project_id": "purgeproj", "tenant_id": "purgeproj", "is_admin": False}
TEMPLATE = {"heat_template_version": "2021-04-16", "resources": {
    "first": {"type": "OS::Heat::TestResource", "properties": {"value": "one"}},
    "second": {"type": "OS::Heat::RandomString"},
    "third": {"type": "OS::Heat::TestResource",
              "properties": {"value": {"get_attr": ["first", "output"]}}}}}


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    running, transport = embedded(db_url, workers=4)
    try:
        yield running
    finally:
        running.stop()
        transport.stop()
        running.store.engine.dispose()  # type: ignore[attr-defined]  # SqlStore's


def _settled(engine: Engine, identity: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        view: dict[str, Any] = engine.service.show_stack(CTXT, identity)[0]
        if view["stack_status"] != "IN_PROGRESS":
            return view
        assert time.monotonic() < deadline, view
        time.sleep(0.05)


def _rows_naming(sql: SqlEngine, stack_id: str) -> dict[str, int]:
    counts = {}
    with sql.connect() as conn:
        for table in [s.stack, *(e.table for e in HANGING if "stack_id" in e.table.c)]:
            column = table.c.id if table is s.stack else table.c.stack_id
            counts[table.name] = conn.execute(
                select(func.count()).select_from(table).where(column == stack_id)).scalar_one()
    return counts


def _purged(sql: SqlEngine, stack_id: str) -> dict[str, int]:
    """The rows once the delete's own purge is done: the engine writes DELETE_COMPLETE
    first, then removes the stack's resources and sync points (as Heat does)."""
    deadline = time.monotonic() + 60
    while True:
        left = _rows_naming(sql, stack_id)
        if not left.get("resource") and not left.get("sync_point"):
            return left
        assert time.monotonic() < deadline, left
        time.sleep(0.05)


def test_what_a_delete_leaves_is_purged(engine: Engine) -> None:
    service = engine.service
    sql: SqlEngine = engine.store.engine  # type: ignore[attr-defined]  # SqlStore's
    stamp = time.monotonic_ns()
    kept = service.create_stack(CTXT, f"kept-{stamp}", TEMPLATE, {}, {}, {"tags": "a"})
    gone = service.create_stack(CTXT, f"gone-{stamp}", TEMPLATE, {}, {}, {"tags": "x,y"})
    for identity in (kept, gone):
        assert _settled(engine, identity)["stack_status"] == "COMPLETE"
    service.delete_stack(CTXT, gone)
    assert _settled(engine, gone)["stack_action"] == "DELETE"
    deleted = engine.store.get_stack(gone["stack_id"], include_deleted=True)
    assert deleted is not None and deleted.deleted_at is not None
    left = _purged(sql, gone["stack_id"])
    assert (left["stack"], left["stack_tag"]) == (1, 2) and left["event"] > 0
    template = deleted.raw_template_id
    # TestResource records its attempts: they outlive its rows
    assert {name for name, count in left.items() if count} == {
        "stack", "stack_tag", "event", "resource_attempt"}
    kept_before = _rows_naming(sql, kept["stack_id"])

    result = purge_deleted(sql, datetime.now(UTC) + timedelta(seconds=1),
                           project_id="purgeproj")

    assert gone["stack_id"] in {sid for sid, _ in result.stacks}
    assert set(_rows_naming(sql, gone["stack_id"]).values()) == {0}
    assert engine.store.get_raw_template(template) is None
    assert _rows_naming(sql, kept["stack_id"]) == kept_before
    assert _settled(engine, kept)["stack_status"] == "COMPLETE"
