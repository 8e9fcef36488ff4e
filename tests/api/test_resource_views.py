"""``resource show`` and ``resource list`` in Heat's shape, through python-heatclient:
every attribute of the type, descriptions, and the links (``nested`` included)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.registry import Registry
from hotplate.rpc.inprocess import InProcessTransport
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, wait_status

INNER = """\
heat_template_version: 2021-04-16
parameters:
  word: {type: string}
resources:
  leaf:
    type: OS::Heat::Value
    properties: {value: {get_param: word}}
outputs:
  said:
    description: what the leaf holds
    value: {get_attr: [leaf, value]}
"""


def _created(hc: Any, name: str, template: dict[str, Any], **fields: Any) -> str:
    stack_id = str(hc.stacks.create(stack_name=name, template=template, **fields)
                   ["stack"]["id"])
    stack = wait_status(hc, name)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return stack_id


def _links(resource: Any) -> dict[str, str]:
    return {link["rel"]: link["href"] for link in resource.links}


SECRET = {
    "heat_template_version": VERSION,
    "resources": {
        "secret": {"type": "OS::Heat::RandomString", "description": "the shared secret",
                   "properties": {"length": 12}},
        "plain": {"type": "OS::Heat::None"},
    },
}


def test_show_resolves_attributes_nothing_references(hc: Any) -> None:
    _created(hc, "unreferenced", SECRET)
    shown = hc.resources.get("unreferenced", "secret")
    assert set(shown.attributes) == {"value"}
    assert isinstance(shown.attributes["value"], str)
    assert len(shown.attributes["value"]) == 12
    assert shown.description == "the shared secret"
    assert hc.resources.get("unreferenced", "plain").description == ""
    assert "metadata" not in shown.to_dict() and "resource_action" not in shown.to_dict()


def test_with_attr_adds_names_to_the_view(hc: Any) -> None:
    _created(hc, "withattr", SECRET)
    value = hc.resources.get("withattr", "secret").attributes["value"]
    shown = hc.resources.get("withattr", "secret", with_attr=["show", "nope"])
    assert shown.attributes == {"value": value, "show": {"value": value}, "nope": None}


def test_description_in_detailed_listings_only(hc: Any) -> None:
    _created(hc, "described", SECRET)
    detailed = {r.resource_name: r for r in hc.resources.list("described", with_detail=True)}
    assert detailed["secret"].description == "the shared secret"
    assert len(detailed["secret"].attributes["value"]) == 12
    plain = {r.resource_name: r.to_dict() for r in hc.resources.list("described")}
    assert "description" not in plain["secret"] and "attributes" not in plain["secret"]


class Flaky(Resource):
    """One attribute that resolves and one whose resolution raises."""

    attributes_schema = {"fine": Attribute("Resolves."), "broken": Attribute("Raises.")}

    def _resolve_attribute(self, name: str) -> Any:
        if name == "broken":
            raise RuntimeError("attribute exploded")
        return "ok"


@pytest.fixture(scope="module")
def flaky_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A server whose engine also knows ``Test::Flaky``."""
    db = f"sqlite:///{tmp_path_factory.mktemp('flaky') / 'hotplate.sqlite'}"
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=4)
    engine = start_engine(open_store(db, clock), transport, clock=clock, work_slots=1,
                          registry=Registry.with_extra({"Test::Flaky": Flaky}))
    with serving(engine, transport) as served:
        yield served


def test_a_failing_attribute_shows_as_null(flaky_api: Api) -> None:
    hc = flaky_api.client()
    _created(hc, "flaky", {"heat_template_version": VERSION,
                           "resources": {"odd": {"type": "Test::Flaky"}}})
    assert hc.resources.get("flaky", "odd").attributes == {"fine": "ok", "broken": None}
    shown = hc.resources.get("flaky", "odd", with_attr=["broken", "fine"])
    assert shown.attributes == {"fine": "ok", "broken": None}
    [listed] = hc.resources.list("flaky", with_detail=True)
    assert listed.attributes == {"fine": "ok", "broken": None}


def test_an_os_heat_stack_shows_its_attributes_and_no_nested_link(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {"remote": {
        "type": "OS::Heat::Stack",
        "properties": {"template": INNER, "parameters": {"word": "far"}}}}}
    _created(hc, "remote-attrs", template)
    shown = hc.resources.get("remote-attrs", "remote")
    assert shown.attributes["outputs"] == {"said": "far"}
    assert shown.attributes["stack_name"].startswith("remote-attrs-remote-")
    assert set(_links(shown)) == {"self", "stack"}  # a stack of its own, as in Heat


def test_a_template_resource_links_to_its_nested_stack(api: Api, hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "kid": {"type": "inner.yaml", "description": "a child stack",
                "properties": {"word": "near"}}}}
    parent_id = _created(hc, "linked", template, files={"inner.yaml": INNER})
    shown = hc.resources.get("linked", "kid")
    child = hc.stacks.get(shown.physical_resource_id)
    assert child.parent == parent_id
    base = f"{api.endpoint}/stacks/linked/{parent_id}"
    assert _links(shown) == {"self": f"{base}/resources/kid", "stack": base,
                             "nested": f"{api.endpoint}/stacks/{child.stack_name}/{child.id}"}
    assert shown.attributes == {"said": "near"}
    assert shown.description == "a child stack"
    shown = hc.resources.get("linked", "kid", with_attr=["OS::stack_id"])
    assert shown.attributes == {"said": "near", "OS::stack_id": child.id}

    listed = hc.resources.list("linked", nested_depth=1)
    assert [(r.resource_name, r.stack_name) for r in listed] == [
        ("kid", "linked"), ("leaf", child.stack_name)]
    kid, leaf = listed
    assert _links(kid)["nested"] == _links(shown)["nested"]
    assert leaf.parent_resource == "kid" and "nested" not in _links(leaf)
    assert not hasattr(kid, "parent_resource")
    assert hc.resources.metadata("linked", "kid") == {}


def test_listing_filters_and_links_of_names_that_need_quoting(api: Api, hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "a b": {"type": "OS::Heat::None"},
        "ü": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
        "plain": {"type": "OS::Heat::None"},
    }}
    stack_id = _created(hc, "quoting", template)
    base = f"{api.endpoint}/stacks/quoting/{stack_id}"
    listed = {r.resource_name: r for r in hc.resources.list(stack_id)}
    assert set(listed) == {"a b", "ü", "plain"}
    assert _links(listed["a b"]) == {"self": f"{base}/resources/a%20b", "stack": base}
    assert _links(listed["ü"])["self"] == f"{base}/resources/%C3%BC"

    def names(**filters: Any) -> set[str]:
        return {r.resource_name for r in hc.resources.list(stack_id, filters=filters)}

    assert names(type="OS::Heat::None") == {"a b", "plain"}
    assert names(status="CREATE_COMPLETE") == names(status="COMPLETE") == set(listed)
    assert names(status="FAILED") == set()
    assert names(name=["plain", "a b"], type="OS::Heat::None") == {"a b", "plain"}
    assert names(name="plain", type="OS::Heat::Value") == set()
    events = hc.events.list(stack_id, resource_name="a b")
    assert events and all(e.resource_name == "a b" for e in events)
    event_links = {link["rel"]: link["href"] for link in events[0].links}
    assert event_links["resource"] == f"{base}/resources/a%20b"
    assert event_links["self"] == f"{base}/resources/a%20b/events/{events[0].id}"
    assert event_links["stack"] == base
