"""The service list: a live engine is ``up`` however long it idled; a dead one is ``down``."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from hotplate.app import embedded
from hotplate.db import schema as s
from hotplate.model.ids import EngineId

ADMIN = {"project_id": "admin", "username": "admin", "is_admin": True}


def test_stale_reports_are_checked_against_the_engine(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/s.sqlite", workers=2)
    try:
        store = engine.store
        ghost = EngineId("00000000-0000-4000-8000-000000000000")
        store.register_service(ghost, "gone", "gone-host", "hotplate-engine", "engine", 60)
        long_ago = engine.deps.clock.now() - timedelta(hours=1)
        with store.engine.begin() as conn:  # both last reported an hour ago
            conn.execute(update(s.service).values(created_at=long_ago, updated_at=long_ago))
        engine.deps.engine_life_check_timeout = 0.5
        views = {v["engine_id"]: v for v in engine.service.list_services(ADMIN)}
        assert views[engine.deps.engine_id]["status"] == "up"
        assert views[ghost]["status"] == "down"
        mine = next(x for x in store.list_services() if x.engine_id == engine.deps.engine_id)
        assert mine.updated_at is not None and mine.updated_at > long_ago
    finally:
        engine.stop()
        transport.stop()
