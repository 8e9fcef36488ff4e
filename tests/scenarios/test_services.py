"""The service list, as Heat gives it: ``up`` or ``down`` by each engine's last report.

A live engine keeps its row fresh on its own timer; a row that stopped moving
reads ``down`` with nothing asked of its engine, and a clean stop removes it.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from sqlalchemy import update

from hotplate.app import embedded
from hotplate.db import schema as s
from hotplate.engine.options import EngineOptions
from hotplate.model.ids import EngineId

ADMIN = {"project_id": "admin", "username": "admin", "is_admin": True}
GHOST = EngineId("00000000-0000-4000-8000-000000000000")


def _statuses(engine: Any) -> dict[str, str]:
    return {v["engine_id"]: v["status"] for v in engine.service.list_services(ADMIN)}


def test_status_follows_the_reports_and_a_live_engine_comes_back_up(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/s.sqlite", workers=2,
                                 options=EngineOptions(periodic_interval=1))
    mine = engine.deps.engine_id
    try:
        store = engine.store
        store.register_service(GHOST, "gone", "gone-host", "hotplate-engine", "engine", 1)
        long_ago = engine.deps.clock.now() - timedelta(hours=1)

        def aged() -> dict[str, str]:
            with store.engine.begin() as conn:  # both last reported an hour ago
                conn.execute(update(s.service).values(created_at=long_ago,
                                                      updated_at=long_ago))
            return _statuses(engine)

        # Nothing asks the live engine: its stale row reads down (tried again should
        # its timer report between the update and the listing).
        assert any(aged() == {mine: "down", GHOST: "down"} for _ in range(5))
        deadline = time.monotonic() + 10
        while _statuses(engine)[mine] != "up":
            assert time.monotonic() < deadline, "the engine's timer never reported"
            time.sleep(0.05)
        assert _statuses(engine)[GHOST] == "down"
    finally:
        engine.stop()
        transport.stop()
    assert [x.engine_id for x in engine.store.list_services()] == [GHOST]


def test_a_starting_engine_removes_its_hosts_dead_rows_only(tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/s.sqlite"
    first, first_transport = embedded(url, workers=2)
    first_transport.stop()  # killed: its row stays, with its last report
    store = first.store
    store.register_service(GHOST, "elsewhere", "other", "hotplate-engine", "engine", 60)
    four_minutes_ago = first.deps.clock.now() - timedelta(minutes=4)
    with store.engine.begin() as conn:  # more than 3 reports of 60 s behind
        conn.execute(update(s.service).values(updated_at=four_minutes_ago))
    second, transport = embedded(url, workers=2)
    try:
        # The first engine's host is the second's: its row goes; the other host's stays.
        assert _statuses(second) == {second.deps.engine_id: "up", GHOST: "down"}
    finally:
        second.stop()
        transport.stop()
        first.reporter.stop()
        if first.recovery is not None:
            first.recovery.stop()
        if first.delivery is not None:
            first.delivery.stop()
