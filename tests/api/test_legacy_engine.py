"""A server whose engine runs ``[DEFAULT] convergence_engine = false``, through
python-heatclient: its stacks are legacy ones, each operation run in one thread of the
engine under the stack's lock, with Heat's answers (409 while the lock is held)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc

from hotplate.app import embedded
from hotplate.engine.options import EngineOptions
from hotplate.model.ids import StackId
from tests.api.conftest import Api, serving
from tests.api.helpers import create_complete, value_template, wait_status

LEGACY = EngineOptions(convergence_engine=False)


@pytest.fixture(scope="module")
def legacy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, Any]]:
    db = Path(tmp_path_factory.mktemp("legacy")) / "hotplate.sqlite"
    engine, transport = embedded(f"sqlite:///{db}", workers=4, options=LEGACY)
    with serving(engine, transport) as served:
        yield served, engine


def slow_template(value: str, secs: int, action: str = "create") -> dict[str, Any]:
    """The value template whose ``action`` of its source takes ``secs`` seconds."""
    template = value_template(value)
    template["resources"]["source"]["properties"]["action_wait_secs"] = {action: secs}
    return template


def wait_unlocked(engine: Any, stack_id: str, timeout: float = 30.0) -> None:
    """The operation's thread ends (and lets the lock go) just after the stack settles."""
    deadline = time.monotonic() + timeout
    while engine.store.stack_lock_holder(StackId(stack_id)) is not None:
        assert time.monotonic() < deadline, "the stack lock was never released"
        time.sleep(0.05)


def test_legacy_stack_lifecycle_through_heatclient(legacy_server: tuple[Api, Any]) -> None:
    api, engine = legacy_server
    hc = api.client()
    created = hc.stacks.create(stack_name="legacy-one", template=slow_template("hi", 2))
    stack_id = created["stack"]["id"]
    assert engine.store.get_stack(StackId(stack_id)).convergence is False
    with pytest.raises(exc.HTTPConflict) as busy:  # the lock is held: Heat's 409
        hc.stacks.update(stack_id, template=value_template("again"))
    assert "already has an action (CREATE) in progress" in str(busy.value)
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert {o["output_key"]: o["output_value"] for o in done.outputs} == {
        "message": "hi, world"}
    wait_unlocked(engine, stack_id)

    hc.stacks.update(stack_id, template=value_template("bye"))
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason
    assert hc.stacks.output_show(stack_id, "message")["output"]["output_value"] == (
        "bye, world")
    wait_unlocked(engine, stack_id)

    hc.actions.suspend(stack_id)
    assert wait_status(hc, stack_id, timeout=60).stack_status == "SUSPEND_COMPLETE"
    wait_unlocked(engine, stack_id)
    hc.actions.resume(stack_id)
    assert wait_status(hc, stack_id, timeout=60).stack_status == "RESUME_COMPLETE"
    wait_unlocked(engine, stack_id)

    hc.stacks.update(stack_id, template=slow_template("slow", 4, "update"))
    time.sleep(0.5)
    hc.actions.cancel_update(stack_id)  # to the thread, as Heat's send
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "ROLLBACK_COMPLETE", done.stack_status_reason
    wait_unlocked(engine, stack_id)

    hc.stacks.delete(stack_id)
    deadline = time.monotonic() + 60
    while True:
        try:
            status = hc.stacks.get(stack_id).stack_status
        except exc.HTTPNotFound:
            break
        if status == "DELETE_COMPLETE":
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    wait_unlocked(engine, stack_id)


def test_delete_stops_a_legacy_create(legacy_server: tuple[Api, Any]) -> None:
    api, engine = legacy_server
    hc = api.client()
    created = hc.stacks.create(stack_name="legacy-stopped", template=slow_template("x", 60))
    stack_id = created["stack"]["id"]
    time.sleep(0.5)
    hc.stacks.delete(stack_id)  # the running thread takes the delete over
    deadline = time.monotonic() + 60
    while True:
        try:
            status = hc.stacks.get(stack_id).stack_status
        except exc.HTTPNotFound:
            break
        if status == "DELETE_COMPLETE":
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    wait_unlocked(engine, stack_id)
    assert engine.store.list_resources(StackId(stack_id)) == []


CANCELLED = {
    "convergence": ("Stack CREATE cancelled", "Stack UPDATE cancelled"),
    "legacy": ("Resource CREATE failed: Operation cancelled", "Operation cancelled"),
}
"""What a cancel without rollback leaves (create, update): each of Heat's engines' text."""


@pytest.mark.parametrize("kind", list(CANCELLED))
def test_cancel_without_rollback_says_each_engines_text(
        request: pytest.FixtureRequest, kind: str) -> None:
    api = (request.getfixturevalue("api") if kind == "convergence"
           else request.getfixturevalue("legacy_server")[0])
    hc = api.client()
    create_text, update_text = CANCELLED[kind]
    created = hc.stacks.create(stack_name=f"cancel-create-{kind}",
                               template=slow_template("c", 20))
    hc.actions.cancel_without_rollback(created["stack"]["id"])  # stack cancel --no-rollback
    done = wait_status(hc, created["stack"]["id"], timeout=30)
    assert (done.stack_status, done.stack_status_reason) == ("CREATE_FAILED", create_text)

    stack_id = create_complete(hc, value_template("u"), name=f"cancel-update-{kind}")
    if kind == "legacy":
        wait_unlocked(request.getfixturevalue("legacy_server")[1], stack_id)
    hc.stacks.update(stack_id, template=slow_template("v", 20, "update"))
    hc.actions.cancel_without_rollback(stack_id)
    done = wait_status(hc, stack_id, timeout=30)
    assert (done.stack_status, done.stack_status_reason) == ("UPDATE_FAILED", update_text)
