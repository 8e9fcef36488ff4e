"""Engine-topic writes asked again by request id, on every backend (request_ledger.py):
answered as the first time and done once; refused with another request; waited for
while their first asking runs; run again, once, when the engine that ran them died."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.app import Engine, embedded
from hotplate.engine.service.request_ledger import RepeatSafe
from hotplate.model.errors import (
    EntityNotFound,
    RequestIdReused,
    RequestInProgress,
    StackValidationFailed,
)
from hotplate.model.ids import NO_TRAVERSAL, EngineId, StackId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status
from hotplate.rpc.requests import fingerprint, request_uuid

PROJECT = "ledger"
TEMPLATE: dict[str, Any] = {"heat_template_version": "2021-04-16",
                            "resources": {"a": {"type": "OS::Heat::None"},
                                          "b": {"type": "OS::Heat::None"}}}
DEAD = EngineId("dead0000-0000-4000-8000-000000000000")


def ctxt(request_id: str) -> dict[str, Any]:
    return {"project_id": PROJECT, "tenant_id": PROJECT, "is_admin": False,
            "request_id": request_id}


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    running, transport = embedded(db_url, workers=4)
    try:
        yield running
    finally:
        running.stop()
        transport.stop()
        running.store.engine.dispose()  # type: ignore[attr-defined]  # SqlStore's


@pytest.fixture
def served(engine: Engine) -> RepeatSafe:
    return RepeatSafe(engine.service, engine.deps, wait=0.5)


def _unique(prefix: str) -> str:
    return f"{prefix}-{time.monotonic_ns()}"


def _complete(engine: Engine, stack_id: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        stack = engine.store.get_stack(StackId(stack_id))
        assert stack is not None
        if stack.status is Status.COMPLETE and stack.action is not Action.INIT:
            return
        assert time.monotonic() < deadline, stack
        time.sleep(0.05)


def _create(name: str, template: dict[str, Any] = TEMPLATE) -> dict[str, Any]:
    """create_stack's arguments, by name as the transports pass them."""
    return {"stack_name": name, "template": template, "params": {}, "files": {}, "args": {}}


def _stacks(engine: Engine, name: str) -> list[StackRecord]:
    return [s for s in engine.store.list_stacks(PROJECT) if s.name == name]


def test_a_create_asked_again_makes_one_stack(engine: Engine, served: RepeatSafe) -> None:
    name, rid = _unique("once"), _unique("req")
    first = served.create_stack(ctxt(rid), **_create(name))
    assert served.create_stack(ctxt(rid), **_create(name)) == first
    assert first["stack_id"] == request_uuid(ctxt(rid), "stack")
    _complete(engine, first["stack_id"])
    assert len(_stacks(engine, name)) == 1
    with pytest.raises(RequestIdReused):  # the same id, another body
        served.create_stack(ctxt(rid), **_create(name, {**TEMPLATE, "description": "x"}))
    # A write without a request id is done each time, as before.
    served.delete_stack({"project_id": PROJECT, "tenant_id": PROJECT}, stack_identity=first)


def test_an_error_is_answered_again(engine: Engine, served: RepeatSafe) -> None:
    rid = _unique("req")
    bad = {"heat_template_version": "2021-04-16", "resources": {"a": {"type": "No::Such"}}}
    for _ in range(2):
        with pytest.raises(StackValidationFailed):
            served.create_stack(ctxt(rid), **_create("bad", bad))
    assert engine.store.get_request(rid) is not None
    gone = {"stack_name": "nowhere", "stack_id": "00000000-0000-4000-8000-000000000000",
            "tenant": PROJECT, "path": ""}
    rid = _unique("req")
    for _ in range(2):
        with pytest.raises(EntityNotFound):
            served.delete_stack(ctxt(rid), stack_identity=gone)


def test_a_request_running_on_a_live_engine_is_waited_for(
        engine: Engine, served: RepeatSafe) -> None:
    other = EngineId("a11ve000-0000-4000-8000-000000000000")
    engine.store.register_service(other, "h", "h", "hotplate-engine", "engine", 60)
    rid, name = _unique("req"), _unique("busy")
    c = ctxt(rid)
    kwargs = _create(name)
    engine.store.claim_request(rid, "create_stack", fingerprint("create_stack", c, kwargs),
                               other)
    started = time.monotonic()
    with pytest.raises(RequestInProgress):
        served.create_stack(c, **kwargs)
    assert 0.4 < time.monotonic() - started < 5
    engine.store.answer_request(rid, other, {"result": {"stack_id": "made-elsewhere"}})
    assert served.create_stack(c, **kwargs) == {"stack_id": "made-elsewhere"}
    assert _stacks(engine, name) == []


def test_a_dead_engines_create_is_finished_not_repeated(
        engine: Engine, served: RepeatSafe) -> None:
    """The dead engine wrote the stack but died before starting it: the second asking
    takes its claim over, finds that stack by the request's id and starts it."""
    rid, name = _unique("req"), _unique("orphan")
    c = ctxt(rid)
    kwargs = _create(name)
    engine.store.claim_request(rid, "create_stack", fingerprint("create_stack", c, kwargs),
                               DEAD)
    tid = engine.store.create_raw_template(TEMPLATE, {}, {})
    stack_id = StackId(str(request_uuid(c, "stack")))
    engine.store.create_stack(StackRecord(
        id=stack_id, name=name, project_id=PROJECT, raw_template_id=tid, action=Action.INIT,
        status=Status.COMPLETE, status_reason="", current_traversal=NO_TRAVERSAL,
        created_at=engine.deps.clock.now()))
    identity = served.create_stack(c, **kwargs)
    assert identity["stack_id"] == stack_id
    _complete(engine, stack_id)
    assert [s.id for s in _stacks(engine, name)] == [stack_id]
    stored = engine.store.get_request(rid)
    assert stored is not None and stored.engine_id == engine.deps.engine_id
    assert served.create_stack(c, **kwargs) == identity


def test_arguments_named_like_the_wrappers_own_pass_through(
        engine: Engine, served: RepeatSafe) -> None:
    rid = _unique("req")
    made = served.create_software_config(ctxt(rid), group="script", name="named",
                                         config="echo")
    assert served.create_software_config(ctxt(rid), group="script", name="named",
                                          config="echo") == made
    assert made["id"] == request_uuid(ctxt(rid), "software_config")


def _stack_events(engine: Engine, stack_id: str, action: str) -> int:
    """The stack's own ``<action> IN_PROGRESS`` events: how often the action started."""
    return len(engine.store.list_events(StackId(stack_id), filters={
        "resource_action": action, "resource_status": "IN_PROGRESS",
        "resource_type": "OS::Heat::Stack"}))


def _gone(engine: Engine, stack_id: str) -> None:
    deadline = time.monotonic() + 30
    while engine.store.get_stack(StackId(stack_id)) is not None:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_dead_engines_update_and_delete_are_answered_as_the_first_time(
        engine: Engine, served: RepeatSafe) -> None:
    """The dead engine started the update (then the delete) and died before storing its
    answer. Asked again, each is answered as the first asking was (the stack's identity;
    nothing), while the action runs and after it ended, and is not done again: not
    refused because the stack is updating, not answered 404 because it is deleted."""
    name = _unique("replayed")
    identity = served.create_stack(ctxt(_unique("req")), **_create(name))
    stack_id = identity["stack_id"]
    _complete(engine, stack_id)
    slow = {"heat_template_version": "2021-04-16", "resources": {"a": {
        "type": "OS::Heat::TestResource", "properties": {"value": "x", "wait_secs": 2}}}}
    rid = _unique("req")
    c = ctxt(rid)
    update = {"stack_identity": identity, "template": slow, "params": {}, "files": {},
              "args": {}}
    engine.store.claim_request(rid, "update_stack", fingerprint("update_stack", c, update),
                               DEAD)
    assert engine.service.update_stack(c, **update) == identity  # the dead engine's run
    assert served.update_stack(c, **update) == identity  # it is still updating
    _complete(engine, stack_id)
    assert served.update_stack(c, **update) == identity
    assert _stack_events(engine, stack_id, "UPDATE") == 1
    stored = engine.store.get_request(rid)
    assert stored is not None and stored.engine_id == engine.deps.engine_id

    rid = _unique("req")
    c = ctxt(rid)
    engine.store.claim_request(rid, "delete_stack", fingerprint(
        "delete_stack", c, {"stack_identity": identity}), DEAD)
    assert engine.service.delete_stack(c, stack_identity=identity) is None
    _gone(engine, stack_id)
    assert served.delete_stack(c, stack_identity=identity) is None
    assert served.delete_stack(c, stack_identity=identity) is None  # now from the ledger
    assert _stack_events(engine, stack_id, "DELETE") == 1
    with pytest.raises(EntityNotFound):  # another request is answered by the state
        served.delete_stack(ctxt(_unique("req")), stack_identity=identity)
