"""migrate_convergence_1 (heat-manage's) on every backend: a complete legacy stack tree,
made directly in the database as the legacy engine leaves it, becomes a convergence
tree in one transaction; Heat's refusals otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from hotplate.app import template_caches
from hotplate.db import schema as s
from hotplate.db.convergence_migration import convert_to_convergence, nested_stacks
from hotplate.db.store import SqlStore
from hotplate.engine.clock import UuidIds
from hotplate.engine.options import EngineOptions
from hotplate.engine.service.convergence_migration import plan_convergence_migration
from hotplate.model.errors import ActionNotComplete, EntityNotFound, NotSupported
from hotplate.model.ids import NO_TRAVERSAL, ResourceId, StackId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, new_resource, stack_record

TEMPLATE = {"heat_template_version": "2021-04-16", "resources": {
    "net": {"type": "OS::Heat::None"},
    "db": {"type": "OS::Heat::None", "depends_on": ["net"]},
    "app": {"type": "OS::Heat::None", "properties": {"a": {"get_resource": "db"}},
            "depends_on": "net"}}}


def legacy_stack(store: SqlStore, clock: FakeClock, **fields: Any) -> tuple[
        StackRecord, dict[str, ResourceId]]:
    """A stack the legacy engine completed: its rows carry no template and no requires,
    and its traversal is NULL; a row of a resource its template no longer has."""
    template = store.create_raw_template(TEMPLATE, {}, {"parameters": {}})
    prev = store.create_raw_template(TEMPLATE, {}, {"parameters": {}})
    values: dict[str, Any] = {"convergence": False, "action": Action.CREATE,
                              "status": Status.COMPLETE, "prev_raw_template_id": prev}
    record = stack_record(template, clock, **{**values, **fields})
    store.create_stack(record)
    names = ("net", "db", "app", "leftover")
    made = store.create_resources([new_resource(record, name, current_template_id=None)
                                   for name in names])
    for row_id in made:
        store.update_resource_if_unlocked(row_id, 0, {"action": Action.CREATE,
                                                      "status": Status.COMPLETE})
    with store.engine.begin() as conn:
        conn.execute(update(s.stack).where(s.stack.c.id == record.id)
                     .values(current_traversal=None))
    return record, dict(zip(names, made, strict=True))


def migrate(store: SqlStore, stack_id: str) -> bool:
    root = store.get_stack(StackId(stack_id))
    nested = nested_stacks(store.engine, stack_id) if root is not None else []
    plans = plan_convergence_migration(
        root, stack_id, nested, caches=template_caches(store, EngineOptions()), rows=store,
        ids=UuidIds())
    return convert_to_convergence(store.engine, plans) if plans else False


def test_a_complete_legacy_tree_becomes_convergence(store: SqlStore, clock: FakeClock) -> None:
    root, rows = legacy_stack(store, clock)
    child, child_rows = legacy_stack(store, clock, owner_id=root.id, nested_depth=1)

    assert migrate(store, root.id)

    for record, ids in ((root, rows), (child, child_rows)):
        stack = store.get_stack(record.id)
        assert stack is not None and stack.convergence
        assert stack.current_traversal not in (NO_TRAVERSAL, record.current_traversal)
        assert stack.prev_raw_template_id is None
        assert store.get_raw_template(record.prev_raw_template_id) is None  # type: ignore[arg-type]
        converted = {row.name: row for row in store.list_resources(record.id)}
        assert set(converted) == {"net", "db", "app"}  # the leftover row is gone
        assert {name: row.requires for name, row in converted.items()} == {
            "net": (), "db": (ids["net"],),
            "app": tuple(sorted((ids["db"], ids["net"]), reverse=True))}
        assert {row.current_template_id for row in converted.values()} == {
            record.raw_template_id}
        assert store.get_resource(ids["leftover"]) is None
    assert migrate(store, root.id) is False  # already convergence: nothing to do


def test_heats_refusals(store: SqlStore, clock: FakeClock) -> None:
    root, _ = legacy_stack(store, clock, name="root")
    child, _ = legacy_stack(store, clock, owner_id=root.id, nested_depth=1, name="child",
                            status=Status.FAILED)
    with pytest.raises(EntityNotFound):
        migrate(store, "no-such-stack")
    with pytest.raises(NotSupported, match=f"^Migration of nested stack {child.id} is not "
                                           r"supported\.$"):
        migrate(store, child.id)
    with pytest.raises(ActionNotComplete, match=r"^Stack child has an action \(CREATE\) in "
                                                r"progress or failed state\.$"):
        migrate(store, root.id)
    busy, _ = legacy_stack(store, clock, name="busy", action=Action.UPDATE,
                           status=Status.IN_PROGRESS)
    with pytest.raises(ActionNotComplete, match=r"^Stack busy has an action \(UPDATE\)"):
        migrate(store, busy.id)
    for record in (root, child, busy):
        stack = store.get_stack(record.id)
        assert stack is not None and not stack.convergence


def test_a_stack_that_moved_on_since_it_was_read_is_left_as_it_is(
        store: SqlStore, clock: FakeClock) -> None:
    root, rows = legacy_stack(store, clock)
    child, _ = legacy_stack(store, clock, owner_id=root.id, nested_depth=1)
    plans = plan_convergence_migration(
        store.get_stack(root.id), root.id, nested_stacks(store.engine, root.id),
        caches=template_caches(store, EngineOptions()), rows=store, ids=UuidIds())
    with store.engine.begin() as conn:  # an action starts on the root meanwhile
        conn.execute(update(s.stack).where(s.stack.c.id == root.id)
                     .values(action="UPDATE", status="IN_PROGRESS"))

    assert convert_to_convergence(store.engine, plans) is False

    for record in (root, child):
        stack = store.get_stack(record.id)
        assert stack is not None and not stack.convergence
    assert {row.requires for row in store.list_resources(root.id)} == {()}
    assert store.get_resource(rows["leftover"]) is not None
