"""purge_deleted (heat-manage's): a deleted stack and every row hanging off it go, a batch
per transaction; what other stacks still use stays. Each test runs on every backend."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    func,
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.purge import HANGING, OUTLIVES_STACKS, SHARED, purge_deleted
from hotplate.db.store import SqlStore
from tests.integration.helpers import EPOCH

CUTOFF = EPOCH + timedelta(days=1)
BEFORE = CUTOFF - timedelta(seconds=1)
AFTER = CUTOFF + timedelta(seconds=1)


def _template(conn: Any) -> int:
    return int(conn.execute(insert(s.raw_template).values(
        template={"heat_template_version": "2021-04-16"}, files={}, environment={},
        created_at=EPOCH)).inserted_primary_key[0])


def _properties(conn: Any) -> int:
    return int(conn.execute(insert(s.resource_properties_data).values(
        data={"a": 1}, encrypted=False, created_at=EPOCH)).inserted_primary_key[0])


def make_full_stack(engine: Engine, *, deleted_at: datetime | None, project: str = "p1",
                    creds: int | None = None, name: str = "s") -> dict[str, Any]:
    """A stack with a row in every table that can hang off one; what it made."""
    stack_id = str(uuid.uuid4())
    with engine.begin() as conn:
        template, prev = _template(conn), _template(conn)
        if creds is None:
            creds = int(conn.execute(insert(s.user_creds).values(
                username="u", created_at=EPOCH)).inserted_primary_key[0])
        conn.execute(insert(s.stack).values(
            id=stack_id, name=name, raw_template_id=template, prev_raw_template_id=prev,
            tenant=project, user_creds_id=creds, disable_rollback=True, nested_depth=0,
            convergence=True, current_traversal="t1", action="DELETE", status="COMPLETE",
            created_at=EPOCH, deleted_at=deleted_at))
        props, attrs, event_props = _properties(conn), _properties(conn), _properties(conn)
        resource_id = int(conn.execute(insert(s.resource).values(
            uuid=str(uuid.uuid4()), name="r", type="OS::Heat::None", action="DELETE",
            status="FAILED", stack_id=stack_id, atomic_key=1, current_template_id=template,
            rsrc_prop_data_id=props, attr_data_id=attrs, created_at=EPOCH,
        )).inserted_primary_key[0])
        conn.execute(insert(s.resource_data).values(
            resource_id=resource_id, key="k", value="v", redact=False, created_at=EPOCH))
        project_id = str(uuid.uuid4())
        conn.execute(insert(s.project).values(id=project_id, name=f"pr-{project_id}",
                                              created_at=EPOCH))
        token_id = str(uuid.uuid4())
        conn.execute(insert(s.api_token).values(
            id=token_id, token_hash=uuid.uuid4().hex, project_id=project_id, role="signal",
            created_at=EPOCH))
        names = {"stack_id": stack_id, "stack_name": name, "resource_name": "r"}
        conn.execute(insert(s.signal_token).values(token_id=token_id, resource_id=resource_id,
                                                   **names))
        conn.execute(insert(s.stack_user_key).values(
            access_key=uuid.uuid4().hex, secret="x", resource_id=resource_id, project=project,
            created_at=EPOCH, **names))
        conn.execute(insert(s.resource_signal).values(
            stack_id=stack_id, resource_id=resource_id, signal_id="1", details={},
            received_at=EPOCH, attempted_at=EPOCH))
        conn.execute(insert(s.resource_attempt).values(
            stack_id=stack_id, resource_uuid="u", resource_name="r", action="CREATE",
            token="t", retry=False, engine_id="e", created_at=EPOCH))
        conn.execute(insert(s.event).values(
            uuid=str(uuid.uuid4()), stack_id=stack_id, rsrc_prop_data_id=event_props,
            created_at=EPOCH))
        conn.execute(insert(s.event_outbox).values(
            stack_id=stack_id, event_uuid="e", sink_key="k", sink={}, body={}, attempts=0,
            next_attempt_at=EPOCH, created_at=EPOCH))
        conn.execute(insert(s.event_sink_watermark).values(
            stack_id=stack_id, sink_key="k", sink={}, last_event_id=0, created_at=EPOCH))
        conn.execute(insert(s.event_sink_handed).values(stack_id=stack_id, sink_key="k",
                                                        event_id=1))
        point = {"entity_id": str(resource_id), "traversal_id": "t1", "is_update": True}
        conn.execute(insert(s.sync_point).values(stack_id=stack_id, atomic_key=0, remaining=1,
                                                 created_at=EPOCH, **point))
        conn.execute(insert(s.sync_point_input).values(sender="x", data={}, created_at=EPOCH,
                                                       **point))
        conn.execute(insert(s.stack_lock).values(stack_id=stack_id, engine_id="e",
                                                 created_at=EPOCH))
        conn.execute(insert(s.stack_tag).values(stack_id=stack_id, tag="foo",
                                                created_at=EPOCH))
        snapshot_id = str(uuid.uuid4())
        conn.execute(insert(s.snapshot).values(
            id=snapshot_id, stack_id=stack_id, tenant=project, name="s", data={},
            action="CREATE", status="COMPLETE", created_at=EPOCH))
        conn.execute(insert(s.resource_snapshot).values(
            id=str(uuid.uuid4()), snapshot_id=snapshot_id, resource_name="r", data={},
            created_at=EPOCH))
    return {"id": stack_id, "resource": resource_id, "token": token_id, "creds": creds,
            "templates": {template, prev}, "properties": {props, attrs, event_props}}


def count(engine: Engine, table: Table, *where: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table).where(*where))
                   .scalar_one())


def rows_of(engine: Engine, made: dict[str, Any]) -> dict[str, int]:
    """How many rows of each table belong to the stack ``made``."""
    stack_id, resource_id = made["id"], made["resource"]
    found = {"stack": count(engine, s.stack, s.stack.c.id == stack_id),
             "api_token": count(engine, s.api_token, s.api_token.c.id == made["token"]),
             "user_creds": count(engine, s.user_creds, s.user_creds.c.id == made["creds"]),
             "raw_template": count(engine, s.raw_template,
                                   s.raw_template.c.id.in_(made["templates"])),
             "resource_properties_data": count(
                 engine, s.resource_properties_data,
                 s.resource_properties_data.c.id.in_(made["properties"])),
             "sync_point_input": count(engine, s.sync_point_input,
                                       s.sync_point_input.c.entity_id == str(resource_id))}
    for entry in HANGING:
        if "stack_id" in entry.table.c:
            found[entry.table.name] = count(engine, entry.table,
                                            entry.table.c.stack_id == stack_id)
        elif "resource_id" in entry.table.c:
            found[entry.table.name] = count(engine, entry.table,
                                            entry.table.c.resource_id == resource_id)
        elif "snapshot_id" in entry.table.c:
            snapshots = select(s.snapshot.c.id).where(s.snapshot.c.stack_id == stack_id)
            found[entry.table.name] = count(engine, entry.table,
                                            entry.table.c.snapshot_id.in_(snapshots))
    return found


@pytest.fixture
def engine(store: SqlStore) -> Engine:
    """The backend's engine, on empty tables."""
    return store.engine


def test_a_stack_deleted_before_the_cutoff_goes_with_every_row_hanging_off_it(
        engine: Engine) -> None:
    old = make_full_stack(engine, deleted_at=BEFORE, name="old")
    recent = make_full_stack(engine, deleted_at=AFTER, name="recent")
    live = make_full_stack(engine, deleted_at=None, name="live")
    assert set(rows_of(engine, old).values()) == {1, 2, 3}

    result = purge_deleted(engine, CUTOFF)

    assert result.stacks == ((old["id"], "old"),)
    assert set(rows_of(engine, old).values()) == {0}
    for kept in (recent, live):
        assert 0 not in rows_of(engine, kept).values(), kept


def test_what_another_stack_still_refers_to_stays(engine: Engine) -> None:
    """A nested stack holds its root's credentials: purging a deleted child keeps them."""
    root = make_full_stack(engine, deleted_at=None, name="root")
    child = make_full_stack(engine, deleted_at=BEFORE, creds=root["creds"], name="child")
    purge_deleted(engine, CUTOFF)
    assert rows_of(engine, child)["stack"] == 0
    assert count(engine, s.user_creds, s.user_creds.c.id == root["creds"]) == 1
    assert rows_of(engine, root)["stack"] == 1


def test_only_the_project_given_and_in_batches(engine: Engine) -> None:
    mine = [make_full_stack(engine, deleted_at=BEFORE, project="mine", name=f"m{i}")
            for i in range(5)]
    theirs = make_full_stack(engine, deleted_at=BEFORE, project="theirs")
    result = purge_deleted(engine, CUTOFF, project_id="mine", batch_size=2)
    assert sorted(sid for sid, _ in result.stacks) == sorted(m["id"] for m in mine)
    assert rows_of(engine, theirs)["stack"] == 1
    assert purge_deleted(engine, CUTOFF, batch_size=0).stacks == ()
    assert rows_of(engine, theirs)["stack"] == 1


def test_soft_deleted_services_before_the_cutoff_go(engine: Engine) -> None:
    with engine.begin() as conn:
        for name, deleted_at in (("old", BEFORE), ("recent", AFTER), ("live", None)):
            conn.execute(insert(s.service).values(
                id=name, engine_id=name, host="h", hostname="h", binary="heat-engine",
                topic="engine", report_interval=60, created_at=EPOCH, deleted_at=deleted_at))
    assert purge_deleted(engine, CUTOFF).services == 1
    with engine.connect() as conn:
        assert sorted(conn.execute(select(s.service.c.id)).scalars()) == ["live", "recent"]


def test_every_table_naming_a_stack_or_a_purged_row_is_purged() -> None:
    """A table added with a stack or resource column, or a foreign key to a table whose
    rows a purge deletes (a snapshot's to its stack, a resource snapshot's to its
    snapshot), needs its entry in HANGING, or purged stacks would leave its rows behind
    (or fail on them)."""
    hanging = {entry.table.name for entry in HANGING} | {"stack"}
    covered = (hanging | {x.table.name for x in SHARED} | {"sync_point_input"}  # cascade
               | set(OUTLIVES_STACKS))
    naming = {table.name for table in s.metadata.sorted_tables
              if {"stack_id", "resource_id", "owner_id"} & set(table.c.keys())
              or any(fk.column.table.name in hanging for fk in table.foreign_keys)}
    assert naming - covered == set()


@pytest.fixture
def blocker(engine: Engine) -> Iterator[Table]:
    """A table added later with a foreign key to stack, and no entry in HANGING."""
    extra = MetaData()
    table = Table("purge_blocker", extra,
                  Column("id", Integer, primary_key=True, autoincrement=True),
                  Column("stack_id", String(36), ForeignKey(s.stack.c.id), nullable=False),
                  **s.MYSQL_TABLE_ARGS)
    extra.create_all(engine)
    try:
        yield table
    finally:
        with engine.begin() as conn:
            conn.execute(table.delete())
        extra.drop_all(engine)


def test_a_failing_batch_leaves_its_stacks_whole(engine: Engine, blocker: Table) -> None:
    first = make_full_stack(engine, deleted_at=BEFORE, name="a")
    second = make_full_stack(engine, deleted_at=BEFORE, name="b")
    doomed_first = min(first["id"], second["id"])  # batches go in id order
    blocked = second if doomed_first == first["id"] else first
    with engine.begin() as conn:
        conn.execute(insert(blocker).values(stack_id=blocked["id"]))
    before = rows_of(engine, blocked)

    with pytest.raises(IntegrityError):
        purge_deleted(engine, CUTOFF, batch_size=1)

    assert set(rows_of(engine, first if blocked is second else second).values()) == {0}
    assert rows_of(engine, blocked) == before
