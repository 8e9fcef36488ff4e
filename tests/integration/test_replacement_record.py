"""make_replacement with the old row's state and its events: one transaction, one
statement more than the bare replacement, and nothing at all when it loses."""

from __future__ import annotations

from hotplate.db.store import SqlStore
from hotplate.model.states import Action, Status
from tests.integration.helpers import FakeClock, event_for, make_resource, make_stack, new_resource

REASON = "The Resource server requires replacement."
SETTLED = {"action": Action.UPDATE, "status": Status.COMPLETE, "status_reason": REASON}


def test_the_old_rows_state_and_events_go_with_the_replacement(
    store: SqlStore, clock: FakeClock
) -> None:
    stack = make_stack(store, clock)
    old = make_resource(store, stack)
    events = [event_for(stack, resource_action="UPDATE", resource_status="IN_PROGRESS"),
              event_for(stack, resource_action="UPDATE", resource_status="COMPLETE",
                        resource_status_reason=REASON)]
    store.stats.reset()
    new = store.make_replacement(old, new_resource(stack), expected_engine_id=None,
                                 expected_atomic_key=0, old_values=SETTLED, events=events)
    # The INSERT, the UPDATE of the old row, both events in one executemany.
    assert new is not None and store.stats.statements == 3
    row = store.get_resource(old)
    assert row is not None
    assert (row.action, row.status, row.status_reason, row.replaced_by, row.engine_id) == (
        Action.UPDATE, Status.COMPLETE, REASON, new, None)
    assert [(e.resource_action, e.resource_status, e.resource_status_reason)
            for e in store.list_events(stack.id)] == [
        ("UPDATE", "IN_PROGRESS", events[0].resource_status_reason),
        ("UPDATE", "COMPLETE", REASON)]


def test_a_lost_replacement_writes_neither_state_nor_events(
    store: SqlStore, clock: FakeClock
) -> None:
    stack = make_stack(store, clock)
    old = make_resource(store, stack)
    before = store.get_resource(old)
    new = store.make_replacement(old, new_resource(stack), expected_engine_id=None,
                                 expected_atomic_key=7, old_values=SETTLED,
                                 events=[event_for(stack)])
    assert new is None
    assert store.get_resource(old) == before
    assert store.list_events(stack.id) == []
    assert [r.id for r in store.list_resources(stack.id)] == [old]
