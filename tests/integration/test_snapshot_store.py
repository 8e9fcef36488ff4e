"""Snapshots in the database, on every backend: a snapshot and its resources' parts,
their documents sealed at rest and read back whole, updates, and deletion of both."""

from __future__ import annotations

from sqlalchemy import Engine, select

from hotplate.db.schema import resource_snapshot, snapshot
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock, make_stack


def test_a_snapshot_and_its_parts_round_trip_sealed(store: SqlStore, clock: FakeClock,
                                                     db_engine: Engine) -> None:
    stack = make_stack(store, clock)
    document = {"template": {"heat_template_version": "2021-04-16"},
                "environment": {"parameters": {"password": "s3cret"}}, "resources": {}}
    made = store.create_snapshot("snap-1", stack.id, "project-a", "first", document,
                                 "CREATE", "IN_PROGRESS")
    assert (made.name, made.action, made.status, made.data) == (
        "first", "CREATE", "IN_PROGRESS", document)
    part = {"name": "db", "resource_id": "phys-1", "type": "OS::Heat::RandomString",
            "action": "SNAPSHOT", "status": "COMPLETE", "metadata": {},
            "resource_data": {"value": "hunter2"}}
    store.add_resource_snapshot("snap-1", "db", part)
    store.add_resource_snapshot("snap-1", "db", {**part, "resource_id": "phys-2"})
    with db_engine.connect() as conn:
        stored = [str(row.data) for row in conn.execute(select(resource_snapshot.c.data))]
        stored_snapshot = str(conn.execute(select(snapshot.c.data)).scalar())
    assert len(stored) == 1  # a second write for a name replaces the first
    assert "hunter2" not in stored[0] and "s3cret" not in stored_snapshot

    assert store.update_snapshot("snap-1", status="COMPLETE", status_reason="x" * 300)
    found = store.get_snapshot("snap-1")
    assert found is not None
    assert found.resources == {"db": {**part, "resource_id": "phys-2"}}
    assert (found.status, found.status_reason) == ("COMPLETE", "x" * 255)
    assert not store.update_snapshot("snap-1", status="FAILED", only_if_status="IN_PROGRESS")
    assert store.count_snapshots(stack.id) == 1
    assert [s.id for s in store.list_snapshots(stack.id)] == ["snap-1"]

    store.delete_snapshot("snap-1")
    assert store.get_snapshot("snap-1") is None
    assert store.count_snapshots(stack.id) == 0
    with db_engine.connect() as conn:
        assert conn.execute(select(resource_snapshot.c.id)).first() is None
    assert not store.update_snapshot("snap-1", status="COMPLETE")
