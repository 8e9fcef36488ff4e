"""Software configs and deployments in the database, and the push of a server's
deployments into its row's metadata, on every backend."""

from __future__ import annotations

from typing import Any

from hotplate.db.software import CONFIG_REFERENCED
from hotplate.db.store import SqlStore
from hotplate.model.ids import ResourceId
from tests.integration.helpers import FakeClock, make_resource, make_stack, new_id, race


def _config(store: SqlStore, name: str = "cfg", tenant: str = "project-a") -> str:
    config_id = new_id()
    store.create_software_config(config_id, name=name, group="script",
                                 config={"config": "echo", "inputs": [], "outputs": [],
                                         "options": {}}, tenant=tenant)
    return config_id


def _deploy(store: SqlStore, config_id: str, server: str, **fields: Any) -> str:
    deployment_id = new_id()
    made = store.create_software_deployment({
        "id": deployment_id, "config_id": config_id, "server_id": server,
        "tenant": "project-a", "action": "CREATE", "status": "IN_PROGRESS", **fields})
    assert made is not None
    return deployment_id


def _server(store: SqlStore, clock: FakeClock, physical_id: str) -> ResourceId:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack)
    assert store.update_resource_if_unlocked(
        rid, 0, {"physical_resource_id": physical_id, "metadata": {"keep": 1}}) is not None
    return rid


def test_configs_are_kept_listed_per_project_and_deleted(store: SqlStore) -> None:
    mine, other = _config(store, "a"), _config(store, "b", tenant="project-b")
    found = store.get_software_config(mine, "project-a")
    assert found is not None and found.config["config"] == "echo"
    assert store.get_software_config(other, "project-a") is None
    assert store.get_software_config(other) is not None  # an admin sees every project's
    assert [c.id for c in store.list_software_configs("project-a")] == [mine]
    assert {c.id for c in store.list_software_configs(None)} == {mine, other}
    assert store.delete_software_config(other, "project-a") is None
    assert store.delete_software_config(mine, "project-a") == "deleted"
    assert store.get_software_config(mine) is None


def test_a_config_in_use_is_not_deleted(store: SqlStore) -> None:
    config_id = _config(store)
    deployment_id = _deploy(store, config_id, "server-1")
    assert store.delete_software_config(config_id) == CONFIG_REFERENCED
    assert store.delete_software_deployment(deployment_id)
    assert not store.delete_software_deployment(deployment_id)
    assert store.delete_software_config(config_id) == "deleted"


def test_a_deployment_needs_its_config(store: SqlStore) -> None:
    assert store.create_software_deployment({
        "id": new_id(), "config_id": new_id(), "server_id": "s", "tenant": "project-a"}) is None


def test_deployments_update_and_list_by_server(store: SqlStore, clock: FakeClock) -> None:
    config_id = _config(store)
    first = _deploy(store, config_id, "server-1", input_values={"a": 1})
    clock.sleep(1)
    second = _deploy(store, config_id, "server-1")
    _deploy(store, config_id, "server-2")
    assert [d.id for d in store.list_software_deployments("project-a", "server-1")] == [
        first, second]
    assert store.list_software_deployments("project-b") == []
    clock.sleep(5)
    updated = store.update_software_deployment(first, {"status": "COMPLETE",
                                                       "output_values": {"x": [1, 2]}})
    assert updated is not None
    assert (updated.status, updated.output_values, updated.input_values) == (
        "COMPLETE", {"x": [1, 2]}, {"a": 1})
    assert updated.updated_at is not None and updated.updated_at > updated.created_at
    assert store.update_software_deployment(new_id(), {"status": "FAILED"}) is None


def test_the_push_writes_the_servers_deployments_and_keeps_the_rest(
        store: SqlStore, clock: FakeClock) -> None:
    rid = _server(store, clock, "physical-1")
    before = store.get_resource(rid)
    assert before is not None
    assert store.push_server_metadata("physical-1", "project-a", lambda: [{"id": "c1"}])
    after = store.get_resource(rid)
    assert after is not None
    assert after.metadata == {"keep": 1, "deployments": [{"id": "c1"}]}
    assert after.atomic_key == before.atomic_key + 1
    assert not store.push_server_metadata("physical-1", "project-b", lambda: [])
    assert not store.push_server_metadata("no-such-server", "project-a", lambda: [])


def test_concurrent_pushes_lose_nothing(store: SqlStore, clock: FakeClock) -> None:
    """Each push re-reads after a lost swap, so the last write holds every deployment."""
    rid = _server(store, clock, "physical-2")
    config_id = _config(store)
    made: list[str] = []

    def push(i: int) -> bool:
        made.append(_deploy(store, config_id, "physical-2"))
        return store.push_server_metadata(
            "physical-2", "project-a",
            lambda: [{"id": c.id} for c in store.server_configs("physical-2", "project-a")])

    assert all(race(6, push))
    row = store.get_resource(rid)
    assert row is not None
    assert len(row.metadata["deployments"]) == 6
