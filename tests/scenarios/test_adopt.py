"""Abandon a stack, adopt its resources into a new one (both behind Heat's switches)."""

from __future__ import annotations

import pytest

from hotplate.app import embedded
from hotplate.engine.options import EngineOptions
from hotplate.model.errors import NotSupported

from .test_threaded import CTXT, settled, wait_for

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "word": {"type": "OS::Heat::RandomString", "properties": {"length": 12}},
        "note": {"type": "OS::Heat::TestResource", "properties": {"value": "kept"}},
    },
    "outputs": {"word": {"value": {"get_attr": ["word", "value"]}},
                "note": {"value": {"get_attr": ["note", "output"]}}},
}


@pytest.fixture
def engine(tmp_path):
    options = EngineOptions(enable_stack_abandon=True, enable_stack_adopt=True)
    engine, transport = embedded(f"sqlite:///{tmp_path}/a.sqlite", workers=4, options=options)
    yield engine
    engine.stop()
    transport.stop()


def outputs(engine, sid) -> dict:
    view = engine.service.show_stack(CTXT, sid, resolve_outputs=True)[0]
    return {o["output_key"]: o["output_value"] for o in view["outputs"]}


def test_abandon_then_adopt_keeps_every_resource(engine) -> None:
    sid = engine.service.create_stack(CTXT, "old", TEMPLATE, {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    before = outputs(engine, sid)
    ids = {r.name: r.physical_resource_id for r in engine.store.list_resources(sid)}
    document = engine.service.abandon_stack(CTXT, sid)
    new = engine.service.create_stack(CTXT, "new", document["template"], {}, {},
                                      {"adopt_stack_data": document})["stack_id"]
    wait_for(lambda: settled(engine, new))
    stack = engine.store.get_stack(new)
    assert (stack.action, stack.status, stack.status_reason) == (
        "ADOPT", "COMPLETE", "Stack ADOPT completed successfully")
    rows = engine.store.list_resources(new)
    assert {r.name: r.physical_resource_id for r in rows} == ids
    assert {f"{r.action}_{r.status}" for r in rows} == {"ADOPT_COMPLETE"}
    assert outputs(engine, new) == before
    assert engine.service.get_files(CTXT, new) == {}


def test_a_resource_the_document_lacks_fails_the_adopt(engine) -> None:
    document = {"template": TEMPLATE, "resources": {"word": {"resource_id": "w-1"}}}
    sid = engine.service.create_stack(CTXT, "part", TEMPLATE, {}, {},
                                      {"adopt_stack_data": document})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    stack = engine.store.get_stack(sid)
    assert (stack.action, stack.status) == ("ADOPT", "FAILED")
    assert stack.status_reason == ("Resource ADOPT failed: Exception: resources.note: "
                                   "Resource ID was not provided.")


def test_adopt_is_off_by_default(tmp_path) -> None:
    engine, transport = embedded(f"sqlite:///{tmp_path}/b.sqlite", workers=2,
                                 options=EngineOptions())
    try:
        with pytest.raises(NotSupported, match=r"Stack Adopt is not supported\."):
            engine.service.create_stack(CTXT, "x", TEMPLATE, {}, {},
                                        {"adopt_stack_data": {"resources": {}}})
    finally:
        engine.stop()
        transport.stop()
