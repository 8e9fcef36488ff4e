"""A software deployment no server ever signals fails its stack when the stack's timeout
passes, and is left as Heat leaves it, through python-heatclient against a served API.

Heat's deployment waits in its create task, whose timeout is what is left of the stack's;
when it expires the task is cancelled (``handle_create_cancel``: the deployment becomes
FAILED "Deployment cancelled.", so the server's late signal is ignored), the resource
fails and the stack fails "Timed out". Rather than wait a whole minute, the stack's start
is moved back in the database while a wait condition holds the deployment back, so the
deployment starts, and waits parked, with a few seconds of the stack's timeout left.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, select, update

from hotplate.app import Engine, embedded
from hotplate.db import schema as s
from hotplate.db.store import SqlStore
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, wait_status

LEFT_SECS = 6
"""The stack's timeout left when the deployment starts: time to make it and park it."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, Engine]]:
    """An API over an engine of this module's: the test reaches its database."""
    db = Path(tmp_path_factory.mktemp("deployment-timeout")) / "hotplate.sqlite"
    engine, transport = embedded(f"sqlite:///{db}", workers=4)
    with serving(engine, transport) as api:
        yield api, engine


def _template() -> dict[str, Any]:
    """A deployment to a DeployedServer, held back by a wait condition the test signals."""
    return {"heat_template_version": VERSION, "resources": {
        "server": {"type": "OS::Heat::DeployedServer"},
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "gate": {"type": "OS::Heat::WaitCondition", "properties": {
            "handle": {"get_resource": "handle"}, "timeout": 50}},
        "config": {"type": "OS::Heat::SoftwareConfig", "properties": {
            "group": "script", "config": "#!/bin/sh\necho never run"}},
        "deploy": {"type": "OS::Heat::SoftwareDeployment", "depends_on": "gate",
                   "properties": {"config": {"get_resource": "config"},
                                  "server": {"get_resource": "server"},
                                  "signal_transport": "CFN_SIGNAL"}}}}


def _move_start_back(engine: Engine, stack_id: str, seconds: int) -> datetime:
    """Make the stack's traversal look ``seconds`` older; returns its new deadline."""
    stack, store = s.stack, engine.store
    assert isinstance(store, SqlStore)

    def move(conn: Connection) -> tuple[dict[str, datetime], int]:
        row = conn.execute(select(stack.c.created_at, stack.c.updated_at,
                                  stack.c.timeout).where(stack.c.id == stack_id)).one()
        moved = {"created_at": row.created_at - timedelta(seconds=seconds)}
        if row.updated_at is not None:
            moved["updated_at"] = row.updated_at - timedelta(seconds=seconds)
        conn.execute(update(stack).where(stack.c.id == stack_id).values(**moved))
        return moved, int(row.timeout)

    # The store's own write transaction (on SQLite: BEGIN IMMEDIATE, after the engine's
    # writers): a plain one's read could not become a write while the traversal writes.
    moved, timeout = store._tx.write(move)
    started: datetime = moved.get("updated_at") or moved["created_at"]
    return started + timedelta(minutes=timeout)


def _wait_for(what: str, ready: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = ready()
        if found:
            return found
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def _waiting_deployment(hc: Any, stack_id: str) -> Any:
    """The deploy resource's deployment once it waits for its server's signal."""
    physical = hc.resources.get(stack_id, "deploy").physical_resource_id
    if not physical:
        return None
    sd = hc.software_deployments.get(physical)
    return sd if sd.status == "IN_PROGRESS" else None


def test_a_deployment_never_signalled_times_out_with_its_stack(
        served: tuple[Api, Engine]) -> None:
    api, engine = served
    hc = api.client()
    stack_id = hc.stacks.create(stack_name="never-signalled", template=_template(),
                                timeout_mins=1, disable_rollback=True)["stack"]["id"]
    _wait_for("the wait condition waits", lambda: hc.resources.get(
        stack_id, "gate").resource_status == "CREATE_IN_PROGRESS")
    deadline = _move_start_back(engine, stack_id, 60 - LEFT_SECS)
    hc.resources.signal(stack_id, "handle", data={"status": "SUCCESS"})

    sd = _wait_for("the deployment waits", lambda: _waiting_deployment(hc, stack_id))
    assert (sd.action, sd.status_reason) == ("CREATE", "Deploy data available")
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"

    done = wait_status(hc, stack_id, timeout=LEFT_SECS + 20)
    assert (done.stack_status, done.stack_status_reason) == ("CREATE_FAILED", "Timed out")
    assert datetime.now(UTC) >= deadline  # not failed early
    deploy = hc.resources.get(stack_id, "deploy")
    # Heat's words: the timed-out task is the resource's create, on the resource as
    # Heat prints it (its class, name, physical id and stack).
    assert (deploy.resource_status, deploy.resource_status_reason) == (
        "CREATE_FAILED",
        f'CREATE aborted (Task create from SoftwareDeployment "deploy" '
        f'[{deploy.physical_resource_id}] Stack "never-signalled" [{stack_id}] Timed out)')
    cancelled = hc.software_deployments.get(sd.id)
    assert (cancelled.action, cancelled.status, cancelled.status_reason) == (
        "CREATE", "FAILED", "Deployment cancelled.")
    assert [r.resource_status for r in hc.resources.list(stack_id)
            if r.resource_name != "deploy"] == ["CREATE_COMPLETE"] * 4

    # The server's late signal is ignored: the deployment is no longer waiting.
    hc.resources.signal(stack_id, "deploy", data={"deploy_status_code": 0})
    time.sleep(0.3)
    assert hc.software_deployments.get(sd.id).status == "FAILED"
    assert hc.resources.get(stack_id, "deploy").resource_status == "CREATE_FAILED"

    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"
