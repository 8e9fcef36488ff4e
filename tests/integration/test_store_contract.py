"""The Store contract, part 1: templates, stacks, resources, data, events, services.

Every test runs on each backend (see conftest). The conditional methods are
in test_store_locks / test_store_sync, the races in test_store_races.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from hotplate.db import schema as s
from hotplate.db.store import SqlStore
from hotplate.model.errors import StackExists
from hotplate.model.ids import EngineId, ResourceId, StackId
from hotplate.model.records import NewResource, StackRecord
from hotplate.model.states import Action, Status
from tests.integration.helpers import (
    FakeClock,
    event_for,
    make_resource,
    make_stack,
    make_template,
    new_id,
    new_resource,
    stack_record,
)

ENGINE = EngineId("e0000000-0000-4000-8000-000000000000")


# -- templates -------------------------------------------------------------------
def test_raw_template_round_trip(store: SqlStore) -> None:
    template = {"heat_template_version": "2021-04-16", "resources": {"a": {"type": "X"}}}
    files = {"file:///x.yaml": "a: b\n", "unicode": "caf\u00e9 \u2603"}
    env = {"parameters": {"n": 3}, "resource_registry": {}}
    tid = store.create_raw_template(template, files, env)
    loaded = store.get_raw_template(tid)
    assert loaded is not None
    assert (loaded.id, loaded.template, loaded.files, loaded.environment) == (
        tid,
        template,
        files,
        env,
    )
    store.delete_raw_template(tid)
    assert store.get_raw_template(tid) is None


# -- stacks ----------------------------------------------------------------------
def test_create_and_get_stack_round_trips_every_field(store: SqlStore, clock: FakeClock) -> None:
    template = make_template(store)
    prev = make_template(store)
    creds = store.create_user_creds({"username": "demo", "trust_id": "t-1"})
    record = stack_record(
        template,
        clock,
        prev_raw_template_id=prev,
        current_deps={"edges": [[[1, True], None], [[2, False], [1, True]]]},
        disable_rollback=False,
        timeout_mins=60,
        updated_at=clock.now(),
        owner_id=StackId(new_id()),
        nested_depth=2,
        user_id="uid-1",
        username="demo",
        tags=("web", "prod", "b"),
        convergence=True,
        user_creds_id=creds,
        parent_resource_name="group",
    )
    store.create_stack(record, event_for(record))
    # The graph has its own read; stack records leave it out (it can be large).
    assert store.get_stack(record.id) == dataclasses.replace(record, current_deps={})
    assert store.get_stack_deps(record.id) == (record.current_traversal, record.current_deps)
    loaded = store.get_stack(record.id)
    assert loaded is not None and loaded.created_at.tzinfo is not None


def test_stack_timestamps_keep_microseconds_and_come_back_utc(
    store: SqlStore, clock: FakeClock
) -> None:
    created = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    record = stack_record(make_template(store), clock, created_at=created)
    store.create_stack(record)
    loaded = store.get_stack(record.id)
    assert loaded is not None
    assert loaded.created_at == created
    assert loaded.created_at.utcoffset() is not None
    assert loaded.created_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


def test_create_stack_refuses_a_live_name_in_the_same_project(
    store: SqlStore, clock: FakeClock
) -> None:
    first = make_stack(store, clock, name="web")
    with pytest.raises(StackExists):
        store.create_stack(stack_record(make_template(store), clock, name="web"))
    make_stack(store, clock, name="web", project_id="project-b")  # another project: fine
    store.soft_delete_stack(first.id)
    make_stack(store, clock, name="web")  # the old one is deleted: fine


def test_failed_create_stack_writes_nothing(store: SqlStore, clock: FakeClock) -> None:
    first = make_stack(store, clock, name="web")
    clash = stack_record(make_template(store), clock, name="web", tags=("x",))
    with pytest.raises(StackExists):
        store.create_stack(clash, event_for(clash))
    assert store.get_stack(clash.id) is None
    assert store.list_events(clash.id) == []
    assert store.get_stack(first.id) is not None


def test_get_stack_by_name(store: SqlStore, clock: FakeClock) -> None:
    old = make_stack(store, clock, name="db", tags=("t",))
    store.soft_delete_stack(old.id)
    assert store.get_stack_by_name("project-a", "db") is None
    deleted = store.get_stack_by_name("project-a", "db", include_deleted=True)
    assert deleted is not None and deleted.id == old.id and deleted.tags == ("t",)
    live = make_stack(store, clock, name="db")
    found = store.get_stack_by_name("project-a", "db", include_deleted=True)
    assert found is not None and found.id == live.id
    assert store.get_stack_by_name("project-b", "db") is None


def test_soft_delete_hides_a_stack_unless_asked(store: SqlStore, clock: FakeClock) -> None:
    record = make_stack(store, clock)
    store.soft_delete_stack(record.id)
    assert store.get_stack(record.id) is None
    deleted = store.get_stack(record.id, include_deleted=True)
    assert deleted is not None and deleted.deleted_at is not None


def test_update_stack_if_traversal_writes_values_tags_and_event(
    store: SqlStore, clock: FakeClock
) -> None:
    record = make_stack(store, clock, tags=("a",))
    new_traversal = new_id()
    won = store.update_stack_if_traversal(
        record.id,
        record.current_traversal,
        {
            "current_traversal": new_traversal,
            "action": Action.UPDATE,
            "status": Status.IN_PROGRESS,
            "status_reason": "Stack UPDATE started",
            "current_deps": {"edges": []},
            "timeout_mins": 5,
            "tags": ("b", "c"),
        },
        event_for(record, record.name, resource_action="UPDATE"),
    )
    assert won
    loaded = store.get_stack(record.id)
    assert loaded is not None
    assert (loaded.current_traversal, loaded.action, loaded.timeout_mins) == (
        new_traversal,
        Action.UPDATE,
        5,
    )
    assert loaded.tags == ("b", "c")
    assert loaded.updated_at is not None and loaded.updated_at > record.created_at
    assert [e.resource_action for e in store.list_events(record.id)] == ["UPDATE"]


def test_update_stack_if_traversal_loses_on_a_stale_traversal(
    store: SqlStore, clock: FakeClock
) -> None:
    record = make_stack(store, clock)
    lost = store.update_stack_if_traversal(
        record.id, new_id(), {"status": Status.FAILED}, event_for(record)
    )
    assert not lost
    assert store.get_stack(record.id) == record
    assert store.list_events(record.id) == []


def test_a_traversal_settles_once_and_only_as_its_own_action(
    store: SqlStore, clock: FakeClock
) -> None:
    """The state table of model/states.py, enforced by the swap: a settled stack is not
    settled again (two engines seeing one traversal finish write its end once), and a
    running CREATE is not settled as an UPDATE."""
    record = make_stack(store, clock)
    assert not store.update_stack_if_traversal(
        record.id, record.current_traversal,
        {"action": Action.UPDATE, "status": Status.COMPLETE}, event_for(record))
    assert store.update_stack_if_traversal(
        record.id, record.current_traversal, {"status": Status.COMPLETE}, event_for(record))
    assert not store.update_stack_if_traversal(
        record.id, record.current_traversal, {"status": Status.COMPLETE}, event_for(record))
    assert not store.update_stack_if_traversal(
        record.id, record.current_traversal, {"status": Status.FAILED}, event_for(record))
    assert len(store.list_events(record.id)) == 1
    settled = store.get_stack(record.id)
    assert settled is not None and (settled.action, settled.status) == ("CREATE", "COMPLETE")
    # Starting a new action from a settled state is what every update does.
    assert store.update_stack_if_traversal(
        record.id, record.current_traversal,
        {"action": Action.UPDATE, "status": Status.IN_PROGRESS}, event_for(record))


def test_update_stack_if_traversal_ignores_deleted_stacks(
    store: SqlStore, clock: FakeClock
) -> None:
    record = make_stack(store, clock)
    store.soft_delete_stack(record.id)
    assert not store.update_stack_if_traversal(
        record.id, record.current_traversal, {"status": Status.FAILED}
    )


def test_update_stack_refuses_store_owned_fields(store: SqlStore, clock: FakeClock) -> None:
    record = make_stack(store, clock)
    with pytest.raises(ValueError):
        store.update_stack_if_traversal(record.id, record.current_traversal, {"id": "x"})


# -- resources -------------------------------------------------------------------
def test_create_resources_returns_ids_in_order_and_rows_start_init(
    store: SqlStore, clock: FakeClock
) -> None:
    stack = make_stack(store, clock)
    names = [f"r{i}" for i in range(30)]
    rows = [new_resource(stack, name, requires=(ResourceId(7), ResourceId(3))) for name in names]
    ids = store.create_resources(rows)
    assert len(ids) == len(set(ids)) == 30
    for rid, row in zip(ids, rows, strict=True):
        loaded = store.get_resource(rid)
        assert loaded is not None
        assert (loaded.name, loaded.uuid, loaded.stack_id) == (row.name, row.uuid, stack.id)
        assert (loaded.action, loaded.status, loaded.atomic_key) == (
            Action.INIT,
            Status.COMPLETE,
            0,
        )
        assert loaded.engine_id is None
        assert loaded.requires == (7, 3)
        assert loaded.current_template_id == stack.raw_template_id
    assert store.create_resources([]) == []


def test_created_records_are_the_rows_as_read_back(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rows = [new_resource(stack, "a", requires=(ResourceId(7),)),
            dataclasses.replace(new_resource(stack, "b", current_template_id=None),
                                root_stack_id=stack.id)]
    made = store.create_resource_records(rows)
    assert made == [store.get_resource(record.id) for record in made]
    assert sorted(made, key=lambda r: r.id) == store.list_resources(stack.id)
    assert store.create_resource_records([]) == []


def test_load_node_returns_resource_and_stack(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock, tags=("x", "y"))
    rid = make_resource(store, stack)
    resource, loaded_stack = store.load_node(rid)
    assert resource == store.get_resource(rid)
    assert loaded_stack == stack
    assert store.load_node(ResourceId(999_999)) == (None, None)


def test_load_nodes_reads_a_batch_as_load_node_reads_each(store: SqlStore,
                                                         clock: FakeClock) -> None:
    tagged = make_stack(store, clock, tags=("x", "y"))
    plain = make_stack(store, clock)
    rids = [make_resource(store, tagged), make_resource(store, plain),
            make_resource(store, tagged)]
    gone = ResourceId(999_999)
    found = store.load_nodes([*rids, gone, rids[0]])
    assert set(found) == set(rids)
    for rid in rids:
        assert found[rid] == store.load_node(rid)
    assert found[rids[0]][1].tags == ("x", "y") and found[rids[1]][1].tags == ()
    assert store.load_nodes([]) == {}


def test_load_node_still_returns_a_deleted_stack(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    store.soft_delete_stack(stack.id)
    _, loaded = store.load_node(rid)
    assert loaded is not None and loaded.deleted_at is not None


def test_list_resources(store: SqlStore, clock: FakeClock) -> None:
    stack, other = make_stack(store, clock), make_stack(store, clock)
    ids = store.create_resources([new_resource(stack, n) for n in ("a", "b", "c")])
    make_resource(store, other)
    assert [r.id for r in store.list_resources(stack.id)] == ids


def test_list_resources_without_data_is_the_records_with_their_data_left_empty(
        store: SqlStore, clock: FakeClock) -> None:
    """What a plain listing reads: every column a listing shows and a row's choice
    uses, as the full read has it; properties, attributes, metadata and requires
    empty."""
    stack = make_stack(store, clock)
    a, b = store.create_resources([new_resource(stack, "a"), new_resource(stack, "b")])
    store.create_resources([new_resource(stack, "a2", requires=(a,), replaces=a)])
    engine = EngineId("e-summary")
    held = store.acquire_resource(b, engine, 0, {
        "action": Action.CREATE, "status": Status.COMPLETE, "status_reason": "made",
        "physical_resource_id": "phys-b", "metadata": {"m": 1},
        "properties_data": {"p": "v"}, "attr_data": {"x": [1, 2]}, "updated_at": clock.now()})
    assert held is not None
    full, summaries = store.list_resources(stack.id), store.list_resources(stack.id, data=False)
    empty = {"metadata": {}, "properties_data": None, "attr_data": None, "requires": ()}
    assert summaries == [dataclasses.replace(row, **empty) for row in full]
    shown = next(row for row in full if row.id == b)
    assert (shown.metadata, shown.attr_data) == ({"m": 1}, {"x": [1, 2]})  # the full read has them
    assert next(row for row in full if row.name == "a2").requires == (a,)


def test_resources_named_reads_one_names_rows(store: SqlStore, clock: FakeClock) -> None:
    stack, other = make_stack(store, clock), make_stack(store, clock)
    a, _, a_again = store.create_resources([new_resource(stack, n) for n in ("a", "b", "a")])
    store.create_resources([new_resource(other, "a")])
    assert [r.id for r in store.resources_named(stack.id, "a")] == [a, a_again]
    assert store.resources_named(stack.id, "missing") == []


def test_delete_resource_removes_its_data(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    store.set_resource_data(rid, "password", "s3cret", redact=True)
    assert store.acquire_resource(rid, ENGINE, 0, {"attr_data": {"ip": "10.0.0.1"}})
    store.delete_resource(rid)
    assert store.get_resource(rid) is None
    assert store.get_resource_data(rid) == {}


def test_purge_deleted_resources(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    gone, kept = store.create_resources([new_resource(stack, "gone"), new_resource(stack, "kept")])
    for rid in (gone, kept):
        store.set_resource_data(rid, "k", "v")
    done = {"action": Action.DELETE, "status": Status.COMPLETE, "attr_data": {"a": 1}}
    assert store.update_resource_if_unlocked(gone, 0, done)
    in_progress = {"action": Action.DELETE, "status": Status.IN_PROGRESS}
    assert store.update_resource_if_unlocked(kept, 0, in_progress)
    with store.engine.connect() as conn:
        attr_id = conn.execute(select(s.resource.c.attr_data_id)
                               .where(s.resource.c.id == gone)).scalar()
    assert attr_id is not None
    assert store.purge_deleted_resources(stack.id) == 1
    assert store.get_resource(gone) is None and store.get_resource_data(gone) == {}
    with store.engine.connect() as conn:  # its attribute row went with it
        properties = s.resource_properties_data
        assert conn.execute(select(func.count()).select_from(properties)
                            .where(properties.c.id == attr_id)).scalar() == 0
    assert store.get_resource(kept) is not None and store.get_resource_data(kept) == {"k": "v"}
    assert store.purge_deleted_resources(stack.id) == 0


def test_engines_holding_locks(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    a, b, c = store.create_resources([new_resource(stack, n) for n in "abc"])
    other = EngineId(new_id())
    assert store.acquire_resource(a, ENGINE, 0, {})
    assert store.acquire_resource(b, other, 0, {})
    assert store.engines_holding_locks(stack.id) == {ENGINE, other}
    assert store.update_resource_locked(b, other, {}, release=True)
    assert store.engines_holding_locks(stack.id) == {ENGINE}
    assert c  # never locked


def test_resource_data_set_get_overwrite_delete(store: SqlStore, clock: FakeClock) -> None:
    rid = make_resource(store, make_stack(store, clock))
    store.set_resource_data(rid, "a", "1")
    store.set_resource_data(rid, "b", "2", redact=True)
    store.set_resource_data(rid, "a", "3")
    assert store.get_resource_data(rid) == {"a": "3", "b": "2"}
    assert store.delete_resource_data(rid, "a")
    assert not store.delete_resource_data(rid, "a")
    assert store.get_resource_data(rid) == {"b": "2"}


def test_replacement_rows_are_plain_new_resources(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    old = make_resource(store, stack)
    new = store.make_replacement(
        old, new_resource(stack, requires=(ResourceId(1),)), expected_engine_id=None
    )
    assert new is not None
    loaded = store.get_resource(new)
    assert loaded is not None
    assert (loaded.replaces, loaded.action, loaded.requires) == (old, Action.INIT, (1,))
    assert isinstance(new_resource(stack), NewResource)


# -- services and credentials ----------------------------------------------------
def test_services_register_heartbeat_delete(store: SqlStore) -> None:
    store.register_service(ENGINE, "host-1", "host-1.example", "hotplate-engine", "engine", 60)
    [service] = store.list_services()
    assert (service.engine_id, service.host, service.report_interval) == (ENGINE, "host-1", 60)
    assert service.updated_at is None
    store.heartbeat_service(ENGINE)
    [beaten] = store.list_services()
    assert beaten.updated_at is not None and beaten.updated_at > beaten.created_at
    store.delete_service(ENGINE)
    assert store.list_services() == []


def test_user_creds_create_and_delete(store: SqlStore, clock: FakeClock) -> None:
    creds = store.create_user_creds({"username": "u", "password": "p", "trust_id": "t"})
    record = make_stack(store, clock, user_creds_id=creds)
    store.delete_user_creds(creds)
    loaded = store.get_stack(record.id)
    assert loaded is not None and loaded.user_creds_id is None
    with pytest.raises(ValueError):
        store.create_user_creds({"nonsense": 1})


def test_orphan_user_creds_are_those_no_stack_holds_made_before_the_time(
        store: SqlStore, clock: FakeClock) -> None:
    held = store.create_user_creds({"trust_id": "t-held"})
    make_stack(store, clock, user_creds_id=held)
    deleted_stack = store.create_user_creds({"trust_id": "t-deleted-stack"})
    gone = make_stack(store, clock, user_creds_id=deleted_stack)
    store.soft_delete_stack(gone.id)  # still held: the row keeps its reference
    orphan = store.create_user_creds({"trust_id": "t-orphan"})
    made = clock.now()
    clock.sleep(10)
    newer = store.create_user_creds({"trust_id": "t-newer"})
    assert store.orphan_user_creds(made + timedelta(seconds=1)) == [orphan]
    assert store.orphan_user_creds(clock.now() + timedelta(seconds=1)) == [orphan, newer]
    assert store.orphan_user_creds(made - timedelta(seconds=1)) == []


def test_user_creds_held_elsewhere_counts_live_stacks_but_the_one_asking(
        store: SqlStore, clock: FakeClock) -> None:
    shared = store.create_user_creds({"trust_id": "t-shared"})
    parent = make_stack(store, clock, user_creds_id=shared)
    child = make_stack(store, clock, user_creds_id=shared)
    assert store.user_creds_held_elsewhere(shared, str(child.id))
    store.soft_delete_stack(parent.id)
    assert not store.user_creds_held_elsewhere(shared, str(child.id))
    alone = store.create_user_creds({"trust_id": "t-alone"})
    only = make_stack(store, clock, user_creds_id=alone)
    assert not store.user_creds_held_elsewhere(alone, str(only.id))


# -- the Protocol itself ---------------------------------------------------------
def test_sql_store_has_every_store_method_with_its_signature() -> None:
    import inspect
    from typing import Protocol

    from hotplate.ports import Store

    # Store is the union of its role protocols: their methods are its methods.
    wanted = sorted({name for part in Store.__mro__ if part not in (object, Protocol)
                     for name in vars(part) if not name.startswith("_")})
    assert wanted
    for name in wanted:
        expected = inspect.signature(getattr(Store, name))
        actual = inspect.signature(getattr(SqlStore, name))
        shape = [(p.name, p.kind, p.default) for p in expected.parameters.values()]
        assert [(p.name, p.kind, p.default) for p in actual.parameters.values()] == shape, name


def test_count_resources_in_tree(store: SqlStore, clock: FakeClock) -> None:
    root = make_stack(store, clock)
    child = make_stack(store, clock)
    store.create_resources([dataclasses.replace(new_resource(root, n), root_stack_id=root.id)
                            for n in "ab"])
    store.create_resources([dataclasses.replace(new_resource(child, n), root_stack_id=root.id)
                            for n in "xyz"])
    store.create_resources([new_resource(child, "elsewhere")])
    assert store.count_resources_in_tree(root.id) == 5
    assert store.count_resources_in_tree(child.id) == 0


def test_list_event_ids_are_list_events_ids_after_a_marker(store: SqlStore,
                                                           clock: FakeClock) -> None:
    """The stream's cheap check: the same events as ``list_events`` ascending, their
    uuids only, over a stack and its nested ones, after a marker, up to a limit."""
    parent, child = make_stack(store, clock), make_stack(store, clock, name="child")
    for i in range(4):
        store.add_event(event_for(parent, f"p{i}"))
        store.add_event(event_for(child, f"c{i}"))
    both = [parent.id, child.id]
    listed = [e.uuid for e in store.list_events(both, sort_dir="asc")]
    assert len(listed) == 8
    assert store.list_event_ids(both) == listed
    assert store.list_event_ids(parent.id) == [
        e.uuid for e in store.list_events(parent.id, sort_dir="asc")]
    assert store.list_event_ids(both, marker=listed[2], limit=3) == listed[3:6]
    assert store.list_event_ids(both, marker="no-such-event", limit=2) == listed[:2]
    assert store.list_event_ids(both, marker=listed[-1]) == []


def test_list_child_stacks_is_list_stacks_of_the_owner(store: SqlStore,
                                                        clock: FakeClock) -> None:
    """A nested listing's walk: the owner's stacks oldest first, tags in their order,
    deleted ones only when asked; another owner's and the owner itself not."""
    owner = make_stack(store, clock)
    first = make_stack(store, clock, name="first", owner_id=owner.id, tags=("b", "a"))
    clock.sleep(1)
    gone = make_stack(store, clock, name="gone", owner_id=owner.id)
    clock.sleep(1)
    last = make_stack(store, clock, name="last", owner_id=owner.id)
    make_stack(store, clock, name="elsewhere", owner_id=first.id)
    store.soft_delete_stack(gone.id)

    def listed(deleted: bool) -> list[StackRecord]:
        return store.list_stacks(None, filters={"owner_id": str(owner.id)}, show_nested=True,
                                 show_deleted=deleted, sort_keys=("created_at",),
                                 sort_dir="asc")

    live = store.list_child_stacks(owner.id)
    assert [s.name for s in live] == ["first", "last"] and live == listed(False)
    assert live[0].tags == ("b", "a")
    assert [s.name for s in store.list_child_stacks(owner.id, include_deleted=True)] == [
        "first", "gone", "last"]
    assert store.list_child_stacks(owner.id, include_deleted=True) == listed(True)
    assert store.list_child_stacks(last.id) == []


@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
def test_a_page_of_events_is_the_page_of_the_whole_list(store: SqlStore, clock: FakeClock,
                                                        sort_dir: str) -> None:
    """A page (``limit`` given: one prepared statement) is the slice of the whole list
    after its marker, for one stack or several; an unknown marker, or one of another
    stack, reads from the first."""
    parent, child = make_stack(store, clock), make_stack(store, clock, name="child")
    other = make_stack(store, clock, name="other")
    for i in range(5):
        store.add_event(event_for(parent, f"p{i}"))
        store.add_event(event_for(child, f"c{i}"))
        store.add_event(event_for(other, f"o{i}"))
    strange = store.list_events(other.id)[0].uuid
    for stacks in ([parent.id, child.id], parent.id):
        whole = store.list_events(stacks, sort_dir=sort_dir)
        uuids = [e.uuid for e in whole]
        assert store.list_events(stacks, sort_dir=sort_dir, limit=3) == whole[:3]
        for at in (0, 2, len(whole) - 1):
            assert store.list_events(stacks, sort_dir=sort_dir, marker=uuids[at],
                                     limit=4) == whole[at + 1:at + 5]
        for unknown in ("no-such-event", strange):
            assert store.list_events(stacks, sort_dir=sort_dir, marker=unknown,
                                     limit=2) == whole[:2]
        if sort_dir == "asc":
            assert store.list_event_ids(stacks, marker=uuids[1], limit=2) == uuids[2:4]
