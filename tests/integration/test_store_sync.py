"""The Store contract, part 3: sync points, events listing, stack listing."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotplate.db.store import SqlStore
from hotplate.model.ids import TraversalId
from hotplate.model.records import NewSyncPoint, StackRecord, SyncOutcome
from hotplate.model.states import Status
from tests.integration.helpers import FakeClock, event_for, make_stack, new_id


def _point(store: SqlStore, stack: StackRecord, remaining: int, entity: str = "7") -> None:
    store.create_sync_points(
        stack.id, stack.current_traversal, [NewSyncPoint(entity, True, remaining)]
    )


def test_sync_waits_then_fires_once_with_every_input(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    _point(store, stack, 3)
    t = stack.current_traversal
    assert store.sync(t, "7", True, "1:u", {"id": 1}).outcome is SyncOutcome.WAITING
    assert store.sync(t, "7", True, "2:c", None).outcome is SyncOutcome.WAITING
    ready = store.sync(t, "7", True, "3:u", {"attrs": {"a": [1, "b"]}})
    assert ready.outcome is SyncOutcome.READY
    assert ready.inputs == {"1:u": {"id": 1}, "2:c": None, "3:u": {"attrs": {"a": [1, "b"]}}}


def test_sync_points_are_keyed_by_entity_traversal_and_kind(
    store: SqlStore, clock: FakeClock
) -> None:
    stack = make_stack(store, clock)
    t = stack.current_traversal
    store.create_sync_points(
        stack.id, t, [NewSyncPoint("7", True, 1), NewSyncPoint("7", False, 2)]
    )
    assert store.sync(t, "7", False, "a", 1).outcome is SyncOutcome.WAITING
    assert store.sync(t, "7", True, "a", 1).outcome is SyncOutcome.READY
    assert store.sync(TraversalId(new_id()), "7", True, "b", 1).outcome is SyncOutcome.MISSING


def test_duplicate_sender_changes_nothing(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    _point(store, stack, 2)
    t = stack.current_traversal
    assert store.sync(t, "7", True, "a", 1).outcome is SyncOutcome.WAITING
    assert store.sync(t, "7", True, "a", 2).outcome is SyncOutcome.DUPLICATE
    ready = store.sync(t, "7", True, "b", 3)
    assert ready.outcome is SyncOutcome.READY and ready.inputs == {"a": 1, "b": 3}
    assert store.sync(t, "7", True, "b", 3).outcome is SyncOutcome.DUPLICATE


def test_sync_on_a_deleted_point_is_missing(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    _point(store, stack, 2)
    old = stack.current_traversal
    new = TraversalId(new_id())
    _point(store, replace(stack, current_traversal=new), 1)
    assert store.sync(old, "7", True, "a", 1).outcome is SyncOutcome.WAITING
    store.delete_sync_points(stack.id, keep_traversal=new)
    assert store.sync(old, "7", True, "b", 1).outcome is SyncOutcome.MISSING
    assert store.sync(new, "7", True, "b", 1).outcome is SyncOutcome.READY
    store.delete_sync_points(stack.id)
    assert store.sync(new, "7", True, "c", 1).outcome is SyncOutcome.MISSING


def test_a_new_point_with_the_same_key_starts_clean(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    _point(store, stack, 2)
    t = stack.current_traversal
    store.sync(t, "7", True, "a", 1)
    store.delete_sync_points(stack.id)
    _point(store, stack, 1)
    ready = store.sync(t, "7", True, "a", 2)
    assert ready.outcome is SyncOutcome.READY and ready.inputs == {"a": 2}


# -- events ----------------------------------------------------------------------
def test_list_events_order_filters_and_marker(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    written = [
        event_for(stack, "a", resource_status="IN_PROGRESS"),
        event_for(stack, "b", resource_status="IN_PROGRESS", resource_type="OS::Nova::Server"),
        event_for(stack, "a", resource_status="COMPLETE"),
        event_for(stack, "b", resource_status="FAILED"),
    ]
    for event in written:
        store.add_event(event)
    other = make_stack(store, clock)
    store.add_event(event_for(other))
    uuids = [e.uuid for e in written]
    listed = store.list_events(stack.id)
    assert [e.uuid for e in listed] == uuids
    assert listed[0].stack_id == stack.id and listed[0].created_at.tzinfo is not None
    assert [e.uuid for e in store.list_events(stack.id, sort_dir="desc")] == uuids[::-1]
    assert [e.uuid for e in store.list_events(stack.id, resource_name="a")] == [
        uuids[0],
        uuids[2],
    ]
    assert [e.uuid for e in store.list_events(stack.id, limit=2, marker=uuids[0])] == uuids[1:3]
    assert [e.uuid for e in store.list_events(stack.id, sort_dir="desc", marker=uuids[2])] == [
        uuids[1],
        uuids[0],
    ]
    by_status = store.list_events(stack.id, filters={"resource_status": ["COMPLETE", "FAILED"]})
    assert [e.uuid for e in by_status] == uuids[2:]
    by_type = store.list_events(stack.id, filters={"resource_type": "OS::Nova::Server"})
    assert [e.uuid for e in by_type] == [uuids[1]]
    assert len(store.list_events(stack.id, marker="no-such-event")) == 4
    with pytest.raises(ValueError):
        store.list_events(stack.id, filters={"bogus": 1})


# -- stack listing ---------------------------------------------------------------
def test_list_stacks_scoping(store: SqlStore, clock: FakeClock) -> None:
    a = make_stack(store, clock, name="a")
    b = make_stack(store, clock, name="b", project_id="project-b")
    nested = make_stack(store, clock, name="n", owner_id=a.id, nested_depth=1)
    gone = make_stack(store, clock, name="gone")
    store.soft_delete_stack(gone.id)

    def names(**kwargs: object) -> set[str]:
        project = kwargs.pop("project_id", "project-a")
        return {s.name for s in store.list_stacks(project, **kwargs)}  # type: ignore[arg-type]

    assert names() == {"a"}
    assert names(project_id=None) == {"a", "b"}
    assert names(show_nested=True) == {"a", "n"}
    assert names(show_deleted=True) == {"a", "gone"}
    assert b.name == "b" and nested.owner_id == a.id


def test_list_stacks_filters(store: SqlStore, clock: FakeClock) -> None:
    a = make_stack(store, clock, name="a", tags=("t1", "t2"))
    b = make_stack(store, clock, name="b", status=Status.FAILED)
    make_stack(store, clock, name="c", status=Status.COMPLETE)
    listed = store.list_stacks("project-a", filters={"status": "FAILED"})
    assert [s.id for s in listed] == [b.id]
    by_names = store.list_stacks("project-a", filters={"name": ["a", "c"]}, sort_dir="asc")
    assert [s.name for s in by_names] == ["a", "c"]
    assert by_names[0].tags == a.tags
    assert [s.name for s in store.list_stacks("project-a", filters={"id": a.id})] == ["a"]
    assert store.list_stacks("project-a", filters={"name": []}) == []
    with pytest.raises(ValueError):
        store.list_stacks("project-a", filters={"bogus": 1})


def test_list_stacks_sorting_and_pagination(store: SqlStore, clock: FakeClock) -> None:
    stacks = [make_stack(store, clock, name=n) for n in ("c", "a", "d", "b", "e")]
    newest_first = [s.name for s in store.list_stacks("project-a")]
    assert newest_first == ["e", "b", "d", "a", "c"]
    by_name = store.list_stacks("project-a", sort_keys=("name",), sort_dir="asc")
    assert [s.name for s in by_name] == ["a", "b", "c", "d", "e"]

    pages, marker = [], None
    while True:
        page = store.list_stacks(
            "project-a", sort_keys=("name",), sort_dir="asc", limit=2, marker=marker
        )
        if not page:
            break
        pages.append([s.name for s in page])
        marker = page[-1].id
    assert pages == [["a", "b"], ["c", "d"], ["e"]]
    assert len(store.list_stacks("project-a", marker=stacks[0].id)) == 0  # oldest was last
    assert len(store.list_stacks("project-a", marker="no-such-stack")) == 5


def test_list_stacks_sort_by_status_then_updated(store: SqlStore, clock: FakeClock) -> None:
    x = make_stack(store, clock, name="x", status=Status.COMPLETE)
    y = make_stack(store, clock, name="y", status=Status.COMPLETE)
    z = make_stack(store, clock, name="z", status=Status.FAILED)
    # x updated most recently: never-updated stacks count their creation time.
    assert store.update_stack_if_traversal(x.id, x.current_traversal, {"status_reason": "r"})
    listed = store.list_stacks("project-a", sort_keys=("status", "updated_at"), sort_dir="desc")
    assert [s.name for s in listed] == ["z", "x", "y"]
    page = store.list_stacks(
        "project-a", sort_keys=("status", "updated_at"), sort_dir="desc", marker=x.id
    )
    assert [s.id for s in page] == [y.id]
    assert z.status is Status.FAILED
    with pytest.raises(ValueError):
        store.list_stacks("project-a", sort_keys=("owner_id",))
    with pytest.raises(ValueError):
        store.list_stacks("project-a", sort_dir="sideways")


# -- any delivery order --------------------------------------------------------------
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    deliveries=st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=20),
    spare=st.integers(min_value=0, max_value=1),
)
def test_any_delivery_order_fires_once_with_first_reports(
    store: SqlStore, clock: FakeClock, deliveries: list[int], spare: int
) -> None:
    """Senders in any order, repeated at will: READY exactly when the last new one lands."""
    stack = make_stack(store, clock)
    senders = set(deliveries)
    expected = len(senders) + spare  # a spare predecessor that never reports: never READY
    _point(store, stack, expected)
    first_data: dict[str, int] = {}
    outcomes = []
    for position, sender in enumerate(deliveries):
        name = f"s{sender}"
        result = store.sync(stack.current_traversal, "7", True, name, position)
        first_data.setdefault(name, position)
        outcomes.append(result.outcome)
        if result.outcome is SyncOutcome.READY:
            assert result.inputs == first_data
    assert outcomes.count(SyncOutcome.DUPLICATE) == len(deliveries) - len(senders)
    assert outcomes.count(SyncOutcome.READY) == (1 if spare == 0 else 0)


def test_an_unexpected_extra_sender_never_fires_again(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, clock)
    _point(store, stack, 1)
    t = stack.current_traversal
    assert store.sync(t, "7", True, "a", 1).outcome is SyncOutcome.READY
    assert store.sync(t, "7", True, "b", 2).outcome is SyncOutcome.WAITING
