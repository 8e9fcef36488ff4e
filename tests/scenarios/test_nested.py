"""Nested stacks with real threads: template resources and OS::Heat::Stack."""

from __future__ import annotations

import pytest

from hotplate.app import embedded
from hotplate.model.errors import StackValidationFailed

from .test_threaded import CTXT, settled, wait_for

INNER = """\
heat_template_version: 2021-04-16
parameters:
  greeting: {type: string}
  names: {type: comma_delimited_list, default: []}
  fail: {type: boolean, default: false}
resources:
  leaf:
    type: OS::Heat::TestResource
    properties:
      value: {list_join: [' ', [{get_param: greeting}, {list_join: [',', {get_param: names}]}]]}
      fail: {get_param: fail}
outputs:
  said: {value: {get_attr: [leaf, output]}}
"""


def outer(kind: str = "inner.yaml", **props) -> dict:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {
            "kid": {"type": kind, "properties": {"greeting": "hi", **props}},
            "after": {"type": "OS::Heat::TestResource",
                      "properties": {"value": {"get_attr": ["kid", "said"]}}},
        },
        "outputs": {"said": {"value": {"get_attr": ["kid", "said"]}},
                    "ref": {"value": {"get_resource": "kid"}}},
    }


@pytest.fixture
def engine(tmp_path):
    engine, transport = embedded(f"sqlite:///{tmp_path}/n.sqlite", workers=6)
    yield engine
    engine.stop()
    transport.stop()


def children(engine, parent_id: str) -> list:
    return [s for s in engine.store.list_stacks(None, show_nested=True)
            if s.owner_id == parent_id]


def test_a_template_resource_is_a_nested_stack(engine) -> None:
    sid = engine.service.create_stack(CTXT, "p", outer(names=["a", "b"]), {},
                                      {"inner.yaml": INNER}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    view = engine.service.show_stack(CTXT, sid, resolve_outputs=True)[0]
    assert (view["stack_action"], view["stack_status"]) == ("CREATE", "COMPLETE"), \
        view["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in view["outputs"]}
    assert outputs["said"] == "hi a,b"
    [child] = children(engine, sid)
    assert (child.nested_depth, child.parent_resource_name) == (1, "kid")
    assert child.name.startswith("p-kid-")
    assert outputs["ref"] == f"arn:openstack:heat::demo:stacks/{child.name}/{child.id}"
    after = next(r for r in engine.store.list_resources(sid) if r.name == "after")
    assert after.properties_data["value"] == "hi a,b"
    engine.service.delete_stack(CTXT, sid)
    wait_for(lambda: settled(engine, sid))
    gone = engine.store.get_stack(child.id, include_deleted=True)
    assert (gone.action, gone.status) == ("DELETE", "COMPLETE")


def test_a_registry_type_maps_to_a_template_and_updates_in_place(engine) -> None:
    env = {"resource_registry": {"My::Greeter": "inner.yaml"}}
    files = {"inner.yaml": INNER}
    sid = engine.service.create_stack(CTXT, "p", outer("My::Greeter"), env, files,
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    [child] = children(engine, sid)
    engine.service.update_stack(CTXT, sid, outer("My::Greeter", names=["z"]), env, files, {})
    wait_for(lambda: settled(engine, sid))
    view = engine.service.show_stack(CTXT, sid, resolve_outputs=True)[0]
    assert (view["stack_action"], view["stack_status"]) == ("UPDATE", "COMPLETE"), \
        view["stack_status_reason"]
    assert {o["output_key"]: o["output_value"] for o in view["outputs"]}["said"] == "hi z"
    assert [c.id for c in children(engine, sid)] == [child.id]  # the same child, updated
    updated = engine.store.get_stack(child.id)
    assert (updated.action, updated.status) == ("UPDATE", "COMPLETE")


def test_a_failing_child_fails_its_parent_with_the_childs_reason(engine) -> None:
    sid = engine.service.create_stack(CTXT, "p", outer(fail=True), {},
                                      {"inner.yaml": INNER},
                                      {"disable_rollback": True})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    stack = engine.store.get_stack(sid)
    assert (stack.action, stack.status) == ("CREATE", "FAILED")
    kid = next(r for r in engine.store.list_resources(sid) if r.name == "kid")
    assert kid.status == "FAILED"
    assert kid.status_reason.startswith("ValueError: resources.kid.resources.leaf: ")


def test_a_missing_template_file_is_a_clear_error(engine) -> None:
    with pytest.raises(StackValidationFailed, match=r'Could not fetch remote template '
                       r'"inner\.yaml"'):
        engine.service.create_stack(CTXT, "p", outer(), {}, {}, {})
    assert engine.store.list_stacks(None) == []


def test_os_heat_stack_makes_a_stack_of_its_own(engine) -> None:
    body = {"heat_template_version": "2021-04-16", "resources": {"remote": {
        "type": "OS::Heat::Stack",
        "properties": {"template": INNER, "parameters": {"greeting": "yo"}}}},
        "outputs": {"out": {"value": {"get_attr": ["remote", "outputs", "said"]}}}}
    sid = engine.service.create_stack(CTXT, "r", body, {}, {}, {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    view = engine.service.show_stack(CTXT, sid, resolve_outputs=True)[0]
    assert (view["stack_action"], view["stack_status"]) == ("CREATE", "COMPLETE"), \
        view["stack_status_reason"]
    assert view["outputs"][0]["output_value"] == "yo "
    assert children(engine, sid) == []
    names = {s.name for s in engine.store.list_stacks(None)}
    assert any(n.startswith("r-remote-") for n in names)


def test_listings_reach_into_nested_stacks(engine) -> None:
    sid = engine.service.create_stack(CTXT, "p", outer(), {}, {"inner.yaml": INNER},
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    [child] = children(engine, sid)
    top = engine.service.list_stack_resources(CTXT, sid)
    assert sorted(r["resource_name"] for r in top) == ["after", "kid"]
    deep = engine.service.list_stack_resources(CTXT, sid, nested_depth=2)
    names = [r["resource_name"] for r in deep]
    assert sorted(names) == ["after", "kid", "leaf"]
    assert names.index("leaf") == names.index("kid") + 1  # right after its parent
    leaf = deep[names.index("leaf")]
    assert (leaf["stack_name"], leaf["parent_resource"]) == (child.name, "kid")
    assert "parent_resource" not in deep[names.index("kid")]
    own = engine.service.list_events(CTXT, sid)
    assert {e["stack_name"] for e in own} == {"p"}
    nested = engine.service.list_events(CTXT, sid, nested_depth=1, sort_dir="asc")
    assert {e["stack_name"] for e in nested} == {"p", child.name}
    assert [e["resource_name"] for e in nested if e["stack_name"] == child.name] == [
        child.name, "leaf", "leaf", child.name]
    assert len(engine.service.list_events(CTXT, sid, nested_depth=1, limit=3)) == 3


def test_resource_facade_reads_the_parent_resource(engine) -> None:
    inner = """\
heat_template_version: 2021-04-16
resources:
  leaf:
    type: OS::Heat::Value
    properties:
      value: {resource_facade: metadata}
outputs:
  meta: {value: {get_attr: [leaf, value]}}
  policy: {value: {resource_facade: deletion_policy}}
"""
    body = {"heat_template_version": "2021-04-16", "resources": {"kid": {
        "type": "inner.yaml", "metadata": {"role": "db"}, "deletion_policy": "Retain"}},
        "outputs": {"meta": {"value": {"get_attr": ["kid", "meta"]}},
                    "policy": {"value": {"get_attr": ["kid", "policy"]}}}}
    sid = engine.service.create_stack(CTXT, "f", body, {}, {"inner.yaml": inner},
                                      {})["stack_id"]
    wait_for(lambda: settled(engine, sid))
    view = engine.service.show_stack(CTXT, sid, resolve_outputs=True)[0]
    assert (view["stack_action"], view["stack_status"]) == ("CREATE", "COMPLETE"), \
        view["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in view["outputs"]}
    assert outputs == {"meta": {"role": "db"}, "policy": "Retain"}
    [child] = children(engine, sid)
    shown = engine.service.show_stack(CTXT, child.id, resolve_outputs=False)[0]
    assert "OS::resource_facade" not in shown["parameters"]
