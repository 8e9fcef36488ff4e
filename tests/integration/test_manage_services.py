"""heat-manage service clean: the rows of engines that read ``down`` are soft deleted, by
Heat's rule (no report for two report intervals); live ones stay."""

from __future__ import annotations

from datetime import timedelta

from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId
from tests.integration.helpers import FakeClock


def test_service_clean_removes_the_engines_that_read_down(
        store: SqlStore, clock: FakeClock) -> None:
    silent, stale, live, slow = (EngineId(f"e{i}") for i in range(4))
    store.register_service(silent, "h", "h", "heat-engine", "engine", 60)
    store.register_service(stale, "h", "h", "heat-engine", "engine", 60)
    store.register_service(slow, "h", "h", "heat-engine", "engine", 600)
    store.heartbeat_service(stale)
    clock.sleep(100)
    store.register_service(live, "h", "h", "heat-engine", "engine", 60)
    clock.sleep(25)
    store.heartbeat_service(live)
    now = clock.now()
    assert sorted(s.engine_id for s in store.list_services() if not s.is_up(now)) == [
        silent, stale]

    gone = store.delete_services_down(now)

    assert sorted(s.engine_id for s in gone) == [silent, stale]
    assert sorted(s.engine_id for s in store.list_services()) == [live, slow]
    assert store.delete_services_down(now + timedelta(seconds=1)) == []
    assert [s.engine_id for s in store.delete_services_down(now + timedelta(seconds=1300))
            ] == [slow, live]
