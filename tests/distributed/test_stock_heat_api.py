"""A stock heat-api in front of hotplate engines: Heat 27.0.1's own heat-api (noauth,
its own virtualenv) sending its RPC over RabbitMQ to ``hotplate engine`` on PostgreSQL,
driven with python-heatclient as a user of Heat would.

Each error is asked of heat-api and of ``hotplate api`` (on the same broker and
engines): the two must answer the same status, error type and message, and the
status must be the one Heat answers. Nothing is mocked: the engine, heat-api and
hotplate api are real processes, heat-api is Heat's code.

Before any server runs, every error the engine topic raises is passed through
heat-api's own deserialisation and fault middleware (Heat's code, in its
virtualenv), from the exact JSON oslo.messaging puts on the wire. The processes
are started by ``stock_heat.py``; software configs and deployments are tested in
``test_stock_heat_api_software.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.api import faults
from hotplate.model.errors import EntityNotFound, StackValidationFailed
from hotplate.rpc import RemoteError, codec
from hotplate.rpc.heat_faults import api_names, heat_fault
from hotplate.rpc.messaging import OsloTransport, WireFailure, heat_exception
from tests.distributed import heat_api
from tests.distributed.databases import fresh_postgres_database
from tests.distributed.stock_heat import (
    FrontEnds,
    answer,
    both,
    heat_venv_or_skip,
    running,
    wait_status,
)
from tests.real_services import POSTGRES, url_or_skip
from tests.unit.rpc.endpoints import Recorder
from tests.unit.rpc.test_heat_faults import NOT_HEATS, SAMPLES

pytestmark = pytest.mark.timeout(300)

HEAT_SIDE = Path(__file__).with_name("heat_side_faults.py")
VERSION = "2021-04-16"


@pytest.fixture(scope="session")
def heat_venv(request: pytest.FixtureRequest) -> Path:
    """heat-api's virtualenv, built once per machine."""
    return heat_venv_or_skip(request)


# -- the wire, through Heat's own code --------------------------------------------------
def wire_failure(exc: Exception) -> str:
    """The JSON oslo.messaging's rabbit driver sends when an engine-topic call raises ``exc``."""
    from oslo_messaging._drivers.common import serialize_remote_exception

    sent = heat_exception(exc) or WireFailure(str(exc), codec.failure_of(exc))
    try:
        raise sent from exc
    except Exception:
        return str(serialize_remote_exception(sys.exc_info()))


def heat_answers(venv: Path, errors: list[Exception]) -> list[dict[str, Any]]:
    """heat-api's status and error fields for each error, computed by Heat's code."""
    done = subprocess.run([str(heat_api.heat_python(venv)), str(HEAT_SIDE)],
                          input=json.dumps([wire_failure(e) for e in errors]),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


def test_heat_api_rebuilds_each_engine_error_as_hotplate_api_answers_it(
        heat_venv: Path) -> None:
    for exc, heat in zip(SAMPLES, heat_answers(heat_venv, SAMPLES), strict=True):
        status, error_type, message = faults.status_for(
            codec.error_from(codec.failure_of(exc)))
        assert (heat["code"], heat["message"]) == (status, message), exc
        fault = heat_fault(exc)
        assert fault is not None and heat["type"] == fault.name
        if fault.name == api_names(exc)[0]:
            assert heat["type"] == error_type


def test_errors_heat_has_no_class_for_are_heat_apis_remote_errors(heat_venv: Path) -> None:
    """As Heat answers a remote error it cannot rebuild: a 500 that shows nothing.

    Two of these differ from hotplate api, which maps the remote name: a Python
    ValueError escaping the engine is its 400, and a Forbidden whose text is not
    Heat's its 403 (the engine raises neither on purpose).
    """
    for heat in heat_answers(heat_venv, NOT_HEATS):
        assert heat == {"code": 500, "type": "RemoteError", "message": None}


def test_hotplate_callers_get_model_errors_back_over_the_engine_topic(broker_url: str) -> None:
    """What hotplate api and a parent stack's engine rebuild from Heat's form."""
    transport = OsloTransport(broker_url, workers_per_server=2, call_timeout=10)
    server = f"recorder-{uuid.uuid4().hex[:6]}"
    try:
        transport.serve("engine", server, Recorder(server), Recorder.ALLOWED)
        with pytest.raises(EntityNotFound) as missing:
            transport.call({}, "engine", "not_found", {"name": "web"}, server=server)
        assert (missing.value.entity, missing.value.name) == ("Stack", "web")
        assert str(missing.value) == "The Stack (web) could not be found."
        with pytest.raises(StackValidationFailed) as invalid:
            transport.call({}, "engine", "invalid", {}, server=server)
        assert str(invalid.value) == "resources.web.type: unknown type"
        with pytest.raises(RemoteError) as other:  # no Heat class: our envelope, as before
            transport.call({}, "engine", "boom", {}, server=server)
        assert (other.value.exc_type, other.value.message) == ("ValueError", "boom")
    finally:
        transport.stop()


# -- real processes ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def front_ends(heat_venv: Path, broker_url: str,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[FrontEnds]:
    db_url = fresh_postgres_database(url_or_skip(POSTGRES), "hotplate_heat_api")
    with running(heat_venv, broker_url, db_url,
                 tmp_path_factory.mktemp("stock-heat-api")) as served:
        yield served


def value_template(*, wait_secs: float = 0, delete_secs: float = 0) -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "description": "through a stock heat-api",
        "parameters": {"greeting": {"type": "string", "default": "hello"}},
        "resources": {"source": {"type": "OS::Heat::TestResource",
                                 "properties": {"value": {"get_param": "greeting"},
                                                "wait_secs": wait_secs,
                                                "action_wait_secs": {"delete": delete_secs}}}},
        "outputs": {"greeting": {"description": "what the resource holds",
                                 "value": {"get_attr": ["source", "output"]}}},
    }


@pytest.fixture(scope="module")
def ready_stack(front_ends: FrontEnds) -> Iterator[tuple[str, str]]:
    """A complete stack, created through heat-api: (name, id)."""
    hc = front_ends.heat()
    name = f"ready-{uuid.uuid4().hex[:6]}"
    stack_id = hc.stacks.create(stack_name=name, template=value_template())["stack"]["id"]
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    yield name, stack_id
    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"


def test_a_stack_lifecycle_through_heat_api(front_ends: FrontEnds) -> None:
    hc = front_ends.heat()
    name = f"life-{uuid.uuid4().hex[:6]}"
    created = hc.stacks.create(stack_name=name, template=value_template())
    stack_id = created["stack"]["id"]
    assert {link["rel"] for link in created["stack"]["links"]} == {"self"}

    shown = wait_status(hc, stack_id)
    assert (shown.stack_name, shown.stack_status) == (name, "CREATE_COMPLETE")
    assert shown.stack_status_reason == "Stack CREATE completed successfully"
    assert shown.description == "through a stock heat-api"
    assert {o["output_key"]: o["output_value"] for o in shown.outputs} == {"greeting": "hello"}
    assert shown.parameters["greeting"] == "hello"
    assert name in {s.stack_name for s in hc.stacks.list()}
    # The same engines and database behind both front ends.
    assert front_ends.hotplate().stacks.get(stack_id).stack_status == "CREATE_COMPLETE"

    events = [(e.resource_name, e.resource_status) for e in hc.events.list(stack_id)]
    assert ("source", "CREATE_IN_PROGRESS") in events
    assert ("source", "CREATE_COMPLETE") in events
    assert (name, "CREATE_COMPLETE") in events
    # One event shown: heat-api asks the engine for the resource's events with its uuid.
    done = next(e for e in hc.events.list(stack_id, resource_name="source")
                if e.resource_status == "CREATE_COMPLETE")
    shown_event = hc.events.get(stack_id, "source", done.id)
    assert (shown_event.id, shown_event.resource_status) == (done.id, "CREATE_COMPLETE")
    assert [o["output_key"] for o in hc.stacks.output_list(stack_id)["outputs"]] == ["greeting"]
    assert hc.stacks.output_show(stack_id, "greeting")["output"]["output_value"] == "hello"
    (resource,) = hc.resources.list(stack_id)
    assert (resource.resource_name, resource.resource_type, resource.resource_status) == (
        "source", "OS::Heat::TestResource", "CREATE_COMPLETE")

    hc.stacks.update(stack_id, template=value_template(), parameters={"greeting": "bye"})
    updated = wait_status(hc, stack_id)
    assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
    assert hc.stacks.output_show(stack_id, "greeting")["output"]["output_value"] == "bye"

    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"
    assert name not in {s.stack_name for s in hc.stacks.list()}


Call = Callable[[Any, str, str], Any]
"""(client, ready stack's name, its id) -> the request."""

ERRORS: dict[str, tuple[Call, int, str]] = {
    "missing stack": (lambda hc, name, sid: hc.stacks.get("no-such-stack"),
                      404, "EntityNotFound"),
    "missing resource": (lambda hc, name, sid: hc.resources.get(sid, "nosuch"),
                         404, "ResourceNotFound"),
    "missing output": (lambda hc, name, sid: hc.stacks.output_show(sid, "nosuch"),
                       404, "EntityNotFound"),
    "missing template version": (lambda hc, name, sid: hc.template_versions.get("nope.1"),
                                 404, "NotFound"),
    "missing resource type": (lambda hc, name, sid: hc.resource_types.get("OS::No::Such"),
                              404, "EntityNotFound"),
    "missing resource marked unhealthy": (lambda hc, name, sid: hc.resources.mark_unhealthy(
        sid, "nosuch", True, "why"), 404, "ResourceNotFound"),
    "duplicate name": (lambda hc, name, sid: hc.stacks.create(
        stack_name=name, template=value_template()), 409, "StackExists"),
    "unknown resource type": (lambda hc, name, sid: hc.stacks.create(
        stack_name="bad-type", template={
            "heat_template_version": VERSION,
            "resources": {"r": {"type": "OS::No::Such"}}}), 400, "StackValidationFailed"),
    "missing parameter": (lambda hc, name, sid: hc.stacks.create(
        stack_name="no-param", template={
            "heat_template_version": VERSION,
            "parameters": {"needed": {"type": "string"}}}), 400, "UserParameterMissing"),
    "unknown parameter on update": (lambda hc, name, sid: hc.stacks.update(
        sid, template=value_template(), parameters={"nosuch": "x"}),
        400, "UnknownUserParameter"),
    "unknown template version": (lambda hc, name, sid: hc.stacks.create(
        stack_name="bad-version", template={"heat_template_version": "2099-01-01"}),
        400, "InvalidTemplateVersion"),
    "unknown template section": (lambda hc, name, sid: hc.stacks.create(
        stack_name="bad-section", template={"heat_template_version": VERSION, "bogus": {}}),
        400, "InvalidTemplateSection"),
    "unknown reference": (lambda hc, name, sid: hc.stacks.create(
        stack_name="bad-reference", template={
            "heat_template_version": VERSION,
            "resources": {"a": {"type": "OS::Heat::None", "depends_on": ["zz"]}}}),
        400, "InvalidTemplateReference"),
    "circular dependency": (lambda hc, name, sid: hc.stacks.create(
        stack_name="cycle", template={
            "heat_template_version": VERSION,
            "resources": {"a": {"type": "OS::Heat::None", "depends_on": ["b"]},
                          "b": {"type": "OS::Heat::None", "depends_on": ["a"]}}}),
        400, "CircularDependencyException"),
    "signal to a resource without signals": (lambda hc, name, sid: hc.resources.signal(
        sid, "source"), 400, "ResourceActionNotSupported"),
    "cancel when not updating": (lambda hc, name, sid: hc.actions.cancel_update(sid),
                                 400, "NotSupported"),
    # validate_template answers {"Error": ...} and heat-api raises its own HTTPBadRequest.
    "invalid template": (lambda hc, name, sid: hc.stacks.validate(template={
        "heat_template_version": VERSION,
        "resources": {"r": {"type": "OS::Heat::TestResource",
                            "properties": {"no_such_property": 1}}}}),
        400, "HTTPBadRequest"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_heats_statuses_as_hotplate_api_gives_them(
        front_ends: FrontEnds, ready_stack: tuple[str, str], case: str) -> None:
    call, status, error_type = ERRORS[case]
    name, stack_id = ready_stack
    through_heat = answer(lambda: call(front_ends.heat(), name, stack_id))
    through_hotplate = answer(lambda: call(front_ends.hotplate(), name, stack_id))
    assert through_heat[:2] == (status, error_type), (through_heat, through_hotplate)
    assert through_heat == through_hotplate


def test_conflicts_while_a_stack_is_in_progress(front_ends: FrontEnds) -> None:
    """As Heat's convergence engine: stack actions conflict with a running traversal
    (409), an update or a delete does not; an update of a deleting stack is refused."""
    hc = front_ends.heat()
    name = f"slow-{uuid.uuid4().hex[:6]}"
    slow = value_template(wait_secs=5, delete_secs=3)
    stack_id = hc.stacks.create(stack_name=name, template=slow)["stack"]["id"]
    try:
        assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
        busy = (409, "ActionInProgress",
                f"Stack {name} already has an action (CREATE) in progress.")
        assert both(front_ends, lambda c: c.actions.check(stack_id)) == busy
        assert both(front_ends, lambda c: c.actions.suspend(stack_id)) == busy
        hc.stacks.delete(stack_id)
        assert hc.stacks.get(stack_id).stack_status == "DELETE_IN_PROGRESS"
        hc.stacks.delete(stack_id)  # again: accepted, as Heat does
        assert both(front_ends, lambda c: c.stacks.update(
            stack_id, template=slow, parameters={"greeting": "late"})) == (
            400, "NotSupported", "Updating a stack when it is deleting is not supported.")
    finally:
        hc.stacks.delete(stack_id)
        assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"
