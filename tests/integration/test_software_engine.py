"""The engine topic's software-config methods on every backend: a stack's server row gets
its deployments' configs, a signal settles a deployment, errors carry Heat's texts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.app import Engine, embedded
from hotplate.engine.service.software_configs import InvalidRestrictedAction, NotFound
from hotplate.model.ids import ResourceId

CTXT: dict[str, Any] = {"project_id": "swproj", "tenant_id": "swproj", "is_admin": False}


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    running, transport = embedded(db_url, workers=4)
    try:
        yield running
    finally:
        running.stop()
        transport.stop()
        running.store.engine.dispose()  # type: ignore[attr-defined]  # SqlStore's


def _server(engine: Engine, name: str) -> tuple[str, ResourceId]:
    """A stack with one OS::Heat::None, created: (its physical id, its row id)."""
    service = engine.service
    identity = service.create_stack(CTXT, name, {
        "heat_template_version": "2021-04-16",
        "resources": {"server": {"type": "OS::Heat::None"}}}, {}, {}, {})
    deadline = time.monotonic() + 30
    while service.show_stack(CTXT, identity)[0]["stack_status"] != "COMPLETE":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [row] = engine.store.list_resources(identity["stack_id"])
    assert row.physical_resource_id is not None
    return row.physical_resource_id, row.id


def test_deployments_push_metadata_and_settle_on_a_signal(engine: Engine) -> None:
    service = engine.service
    server, row_id = _server(engine, f"sw-{time.monotonic_ns()}")
    config = service.create_software_config(
        CTXT, group="script", name="cfg", config="echo",
        inputs=[{"name": "in"}], outputs=[{"name": "out"}, {"name": "err", "error_output": True}])
    made = service.create_software_deployment(
        CTXT, server_id=server, config_id=config["id"], input_values={"in": 1},
        action="CREATE", status="IN_PROGRESS", status_reason="Deploy data available")
    row = engine.store.get_resource(row_id)
    assert row is not None
    assert [c["id"] for c in row.metadata["deployments"]] == [config["id"]]
    assert service.metadata_software_deployments(CTXT, server)[0]["config"] == "echo"

    with pytest.raises(InvalidRestrictedAction, match="can not be deleted as it is referenced"):
        service.delete_software_config(CTXT, config["id"])

    event = service.signal_software_deployment(
        CTXT, made["id"], {"deploy_status_code": 1, "err": "bad", "out": "x"}, None)
    assert event == f"deployment {made['id']} failed"
    shown = service.show_software_deployment(CTXT, made["id"])
    assert shown["status"] == "FAILED"
    assert shown["status_reason"] == (
        "deploy_status_code : Deployment exited with non-zero status code: 1, err : bad")
    assert shown["output_values"]["out"] == "x"
    # no longer IN_PROGRESS: a later signal changes nothing
    assert service.signal_software_deployment(CTXT, made["id"], {}, None) is None
    assert service.check_software_deployment(CTXT, made["id"], 1)["status"] == "FAILED"

    service.delete_software_deployment(CTXT, made["id"])
    row = engine.store.get_resource(row_id)
    assert row is not None and row.metadata["deployments"] == []
    service.delete_software_config(CTXT, config["id"])
    with pytest.raises(NotFound, match=f"Software config with id {config['id']} not found"):
        service.show_software_config(CTXT, config["id"])
    other = {**CTXT, "project_id": "elsewhere", "tenant_id": "elsewhere"}
    with pytest.raises(NotFound):
        service.show_software_deployment(other, made["id"])
