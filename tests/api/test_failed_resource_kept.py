"""An update of a FAILED resource whose plugin finds its physical object fine (Heat's
``needs_replace_failed`` saying False) keeps that object, seen through
python-heatclient: updated in place when its properties changed, settled COMPLETE
with Heat's reason when nothing did. A type that does not say so is replaced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.resources.base import Resource
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry
from hotplate.rpc.inprocess import InProcessTransport
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, wait_status


class Sturdy(Resource):
    """Makes its object, then fails when told to; the object survives its failures, so a
    failed Sturdy with an id is never replaced."""

    properties_schema = {
        "fail": Schema(Schema.BOOLEAN, "Fail after making the object.", default=False,
                       update_allowed=True),
        "size": Schema(Schema.INTEGER, "Anything to change.", default=1,
                       update_allowed=True),
    }

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())
        if self.properties["fail"]:
            raise RuntimeError("told to fail")

    def handle_update(self, new_properties: Any, prop_diff: Any) -> None:
        if new_properties["fail"]:
            raise RuntimeError("told to fail")

    def needs_replace_failed(self) -> bool:
        return self.resource_id is None


class Fragile(Sturdy):
    """The same, but a failed one is replaced, as any type that does not say otherwise."""

    needs_replace_failed = Resource.needs_replace_failed


@pytest.fixture(scope="module")
def sturdy_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = f"sqlite:///{tmp_path_factory.mktemp('sturdy') / 'hotplate.sqlite'}"
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=4)
    registry = Registry.with_extra({"Test::Sturdy": Sturdy, "Test::Fragile": Fragile})
    engine = start_engine(open_store(db, clock), transport, clock=clock, work_slots=1,
                          registry=registry)
    with serving(engine, transport) as served:
        yield served


def _template(type_name: str, **props: Any) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "resources": {"thing": {"type": type_name, "properties": props}}}


def _failed(hc: Any, name: str, type_name: str) -> str:
    hc.stacks.create(stack_name=name, template=_template(type_name, fail=True))
    assert wait_status(hc, name).stack_status == "CREATE_FAILED"
    thing = hc.resources.get(name, "thing")
    assert thing.resource_status == "CREATE_FAILED"
    return str(thing.physical_resource_id)


def _updated(hc: Any, name: str, template: dict[str, Any]) -> Any:
    hc.stacks.update(name, template=template)
    stack = wait_status(hc, name)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    return hc.resources.get(name, "thing")


def test_an_unchanged_failed_resource_its_plugin_keeps_is_settled_complete(
        sturdy_api: Api) -> None:
    hc = sturdy_api.client()
    made = _failed(hc, "kept-same", "Test::Sturdy")
    thing = _updated(hc, "kept-same", _template("Test::Sturdy", fail=True))
    assert thing.physical_resource_id == made
    assert (thing.resource_status, thing.resource_status_reason) == (
        "CREATE_COMPLETE",
        "Update status to COMPLETE for FAILED resource neither update nor replace.")
    events = [(e.resource_status, e.resource_status_reason)
              for e in hc.events.list("kept-same", resource_name="thing")]
    assert events.count(("CREATE_COMPLETE", thing.resource_status_reason)) == 1


def test_a_changed_failed_resource_its_plugin_keeps_is_updated_in_place(
        sturdy_api: Api) -> None:
    hc = sturdy_api.client()
    made = _failed(hc, "kept-changed", "Test::Sturdy")
    thing = _updated(hc, "kept-changed", _template("Test::Sturdy", fail=False, size=2))
    assert thing.physical_resource_id == made
    assert thing.resource_status == "UPDATE_COMPLETE"


def test_a_failed_resource_of_a_type_that_does_not_say_is_replaced(sturdy_api: Api) -> None:
    hc = sturdy_api.client()
    made = _failed(hc, "replaced", "Test::Fragile")
    thing = _updated(hc, "replaced", _template("Test::Fragile", fail=False))
    assert thing.physical_resource_id != made
    assert thing.resource_status == "CREATE_COMPLETE"
