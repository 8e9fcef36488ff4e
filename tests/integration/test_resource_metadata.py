"""A plugin's metadata writes through the engine's context, on every backend.

``metadata_update`` is a compare-and-swap on the row: a writer that loses
a race reads again and decides again, so of two scaling signals at once
only one marks the group as scaling; a row another engine holds is left
alone unless the write is forced.
"""

from __future__ import annotations

from typing import Any

import pytest

from hotplate.db.store import SqlStore
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, make_resource, make_stack, race

MINE = EngineId("11111111-1111-4111-8111-111111111111")
THEIRS = EngineId("22222222-2222-4222-8222-222222222222")


class Busy(Exception):
    pass


def _context(store: SqlStore, clock: FakeClock, rid: ResourceId) -> EngineResourceContext:
    row = store.get_resource(rid)
    assert row is not None
    return EngineResourceContext(store, clock, resource_id=rid, uuid=row.uuid,
                                 resource_name=row.name, stack_id=str(row.stack_id),
                                 stack_name="s", project_id="p", engine_id=MINE)


def _begin(metadata: dict[str, Any], status: str) -> dict[str, Any]:
    if metadata.get("scaling_in_progress"):
        raise Busy()
    return {**metadata, "scaling_in_progress": True}


def test_a_writer_that_loses_the_race_decides_again(store: SqlStore, clock: FakeClock) -> None:
    rid = make_resource(store, make_stack(store, clock))
    first, second = _context(store, clock, rid), _context(store, clock, rid)
    calls = []

    def interleaved(metadata: dict[str, Any], status: str) -> dict[str, Any]:
        calls.append(dict(metadata))
        if len(calls) == 1:  # the other signal wins between our read and our write
            assert second.metadata_update(_begin) == {"scaling_in_progress": True}
        return _begin(metadata, status)

    with pytest.raises(Busy):
        first.metadata_update(interleaved)
    assert calls == [{}, {"scaling_in_progress": True}]
    assert first.metadata_get() == {"scaling_in_progress": True}


def test_signals_at_once_mark_one_scaling(store: SqlStore, clock: FakeClock) -> None:
    rid = make_resource(store, make_stack(store, clock))

    def attempt(_: int) -> bool:
        try:
            return _context(store, clock, rid).metadata_update(_begin) is not None
        except Busy:
            return False

    assert sorted(race(8, attempt)) == [False] * 7 + [True]


def test_a_row_another_engine_holds_is_written_only_when_forced(
    store: SqlStore, clock: FakeClock
) -> None:
    rid = make_resource(store, make_stack(store, clock))
    held = store.acquire_resource(rid, THEIRS, 0, {"action": Action.UPDATE,
                                                   "status": Status.IN_PROGRESS})
    assert held is not None
    ctx = _context(store, clock, rid)
    assert ctx.metadata_update(lambda m, s: {"a": s}) is None
    assert ctx.metadata_update(lambda m, s: {"a": s}, force=True) == {"a": "IN_PROGRESS"}
    row = store.get_resource(rid)
    assert row is not None and row.metadata == {"a": "IN_PROGRESS"} and row.engine_id == THEIRS


def test_our_own_lock_is_no_obstacle_and_attributes_can_be_forgotten(
    store: SqlStore, clock: FakeClock
) -> None:
    rid = make_resource(store, make_stack(store, clock))
    store.acquire_resource(rid, MINE, 0, {"action": Action.CREATE,
                                          "status": Status.IN_PROGRESS})
    store.update_resource_locked(rid, MINE, {"attr_data": {"size": 3}})
    ctx = _context(store, clock, rid)
    assert ctx.metadata_update(lambda m, s: {**m, "done": True}) == {"done": True}
    ctx.clear_stored_attributes()
    row = store.get_resource(rid)
    assert row is not None and row.metadata == {"done": True} and not row.attr_data
