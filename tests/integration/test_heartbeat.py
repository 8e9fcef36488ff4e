"""Service rows on every backend: an engine's timer moves its row, a starting engine
removes its host's dead rows (Heat's service_manage_report and service_manage_cleanup)."""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import update

from hotplate.db import schema as s
from hotplate.db.store import SqlStore
from hotplate.engine.heartbeat import ServiceIdentity, ServiceReporter
from hotplate.model.ids import EngineId
from tests.integration.helpers import FakeClock, new_id


def _register(store: SqlStore, host: str, *, binary: str = "hotplate-engine",
              hostname: str = "machine-1") -> EngineId:
    engine_id = EngineId(new_id())
    store.register_service(engine_id, host, hostname, binary, "engine", 60)
    return engine_id


def _age(store: SqlStore, clock: FakeClock, engine_id: EngineId, *, created: float,
         updated: float | None) -> None:
    now = clock.now()
    values = {"created_at": now - timedelta(seconds=created),
              "updated_at": None if updated is None else now - timedelta(seconds=updated)}
    with store.engine.begin() as conn:
        conn.execute(update(s.service).where(s.service.c.engine_id == engine_id)
                     .values(**values))


def test_cleanup_removes_only_this_hosts_silent_rows(store: SqlStore, clock: FakeClock) -> None:
    silent = _register(store, "host-1")
    _age(store, clock, silent, created=3600, updated=200)
    never_reported = _register(store, "host-1")
    _age(store, clock, never_reported, created=200, updated=None)
    recent = _register(store, "host-1")
    _age(store, clock, recent, created=3600, updated=100)
    other_host = _register(store, "host-2")
    _age(store, clock, other_host, created=3600, updated=3600)
    other_machine = _register(store, "host-1", hostname="machine-2")
    _age(store, clock, other_machine, created=3600, updated=3600)
    other_binary = _register(store, "host-1", binary="heat-engine")
    _age(store, clock, other_binary, created=3600, updated=3600)

    cutoff = clock.now() - timedelta(seconds=180)
    assert store.delete_stale_services("host-1", "machine-1", "hotplate-engine", cutoff) == 2
    left = {service.engine_id for service in store.list_services()}
    assert left == {recent, other_host, other_machine, other_binary}
    # Soft deleted, as Heat does: the rows stay, out of the listing, and a second
    # cleanup finds nothing more.
    with store.engine.connect() as conn:
        deleted = conn.execute(s.service.select().where(
            s.service.c.deleted_at.is_not(None))).mappings().all()
    assert {row["engine_id"] for row in deleted} == {silent, never_reported}
    assert store.delete_stale_services("host-1", "machine-1", "hotplate-engine", cutoff) == 0


def test_the_timer_moves_the_row_and_a_stop_removes_it(store: SqlStore,
                                                       clock: FakeClock) -> None:
    identity = ServiceIdentity(EngineId(new_id()), "host-1", "machine-1")
    reporter = ServiceReporter.start(store, identity, 1, clock)
    try:
        [row] = store.list_services()
        assert (row.engine_id, row.report_interval) == (identity.engine_id, 1)
        assert row.updated_at is not None  # the first report is made at start
        first = row.updated_at
        deadline = time.monotonic() + 10
        while True:
            [row] = store.list_services()
            assert row.updated_at is not None
            if row.updated_at > first:
                break
            assert time.monotonic() < deadline, "no report after the first"
            time.sleep(0.05)
    finally:
        reporter.stop()
    assert store.list_services() == []
    assert not reporter.reporting


def test_a_starting_engine_removes_the_rows_its_host_left_behind(store: SqlStore,
                                                                 clock: FakeClock) -> None:
    dead = ServiceIdentity(EngineId(new_id()), "host-1", "machine-1")
    store.register_service(dead.engine_id, dead.host, dead.hostname, dead.binary,
                           dead.topic, 1)
    _age(store, clock, dead.engine_id, created=10, updated=4)  # more than 3 reports of 1 s behind
    alive = ServiceIdentity(EngineId(new_id()), "host-1", "machine-1")
    reporter = ServiceReporter.start(store, alive, 1, clock)
    try:
        assert [row.engine_id for row in store.list_services()] == [alive.engine_id]
    finally:
        reporter.stop()
