"""The stack lifecycle through python-heatclient against a real server."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from heatclient import exc

from tests.api.conftest import Api
from tests.api.helpers import VERSION, value_template, wait_status


def _create(hc: Any, name: str, template: dict[str, Any] | None = None,
            **fields: Any) -> str:
    created = hc.stacks.create(stack_name=name, template=template or value_template(),
                               **fields)
    return str(created["stack"]["id"])


def test_create_answers_id_and_absolute_self_link(api: Api, hc: Any) -> None:
    created = hc.stacks.create(stack_name="created", template=value_template())
    stack_id = created["stack"]["id"]
    assert created["stack"]["links"] == [
        {"href": f"{api.endpoint}/stacks/created/{stack_id}", "rel": "self"}]
    assert wait_status(hc, "created").stack_status == "CREATE_COMPLETE"


def test_show_by_name_and_by_id(api: Api, hc: Any) -> None:
    stack_id = _create(hc, "shown", parameters={"greeting": "hi"}, tags="a,b",
                       timeout_mins=7, disable_rollback=False)
    stack = wait_status(hc, "shown")
    assert stack.id == stack_id
    assert stack.stack_status == "CREATE_COMPLETE"
    assert stack.stack_status_reason == "Stack CREATE completed successfully"
    assert stack.description == "api test stack"
    assert stack.links == [{"href": f"{api.endpoint}/stacks/shown/{stack_id}", "rel": "self"}]
    assert stack.parameters["greeting"] == "hi"
    assert stack.parameters["OS::stack_id"] == stack_id
    assert stack.parameters["OS::stack_name"] == "shown"
    assert stack.outputs == [{"output_key": "message", "description": "the greeting",
                              "output_value": "hi, world"}]
    assert stack.tags == ["a", "b"]
    assert stack.timeout_mins == 7
    assert stack.disable_rollback is False
    assert stack.creation_time.endswith("Z")
    assert "stack_action" not in stack.to_dict() and "stack_identity" not in stack.to_dict()
    by_id = hc.stacks.get(stack_id, resolve_outputs=False)
    assert by_id.stack_name == "shown"
    assert "outputs" not in by_id.to_dict()


def test_lookup_redirects_absolutely_and_keeps_the_query(api: Api, hc: Any) -> None:
    stack_id = _create(hc, "redirected")
    with httpx.Client() as http:
        resp = http.get(f"{api.endpoint}/stacks/redirected?resolve_outputs=False&x=1&x=2")
        assert resp.status_code == 302
        assert resp.headers["location"] == (
            f"{api.endpoint}/stacks/redirected/{stack_id}?resolve_outputs=False&x=1&x=2")
        sub = http.get(f"{api.endpoint}/stacks/{stack_id}/resources")
        assert sub.status_code == 302
        assert sub.headers["location"] == f"{api.endpoint}/stacks/redirected/{stack_id}/resources"
        wrong_name = http.get(f"{api.endpoint}/stacks/other/{stack_id}")
        assert wrong_name.status_code == 404


def test_list_pages_with_limit_and_marker(hc: Any) -> None:
    names = [f"page{i}" for i in range(3)]
    for name in names:
        _create(hc, name)
    listed = [s.stack_name for s in hc.stacks.list()]
    assert set(names) <= set(listed)
    first = list(hc.stacks.list(limit=1))
    assert len(first) == 1
    assert first[0].stack_status.endswith(("_IN_PROGRESS", "_COMPLETE"))
    assert first[0].description == ""
    # heatclient pages on by itself (marker = last id) while it gets full pages.
    paged = [s.stack_name for s in hc.stacks.list(limit=len(listed))]
    assert paged == listed
    by_name = [s.stack_name for s in hc.stacks.list(filters={"name": "page1"})]
    assert by_name == ["page1"]
    ascending = [s.stack_name for s in hc.stacks.list(sort_keys="stack_name", sort_dir="asc")]
    assert ascending == sorted(ascending)


def test_resources_events_outputs_template(api: Api, hc: Any) -> None:
    stack_id = _create(hc, "parts", parameters={"greeting": "hey"})
    assert wait_status(hc, "parts").stack_status == "CREATE_COMPLETE"
    resources = {r.resource_name: r for r in hc.resources.list("parts")}
    assert set(resources) == {"source", "message"}
    source = resources["source"]
    assert source.resource_status == "CREATE_COMPLETE"
    assert source.resource_type == "OS::Heat::TestResource"
    assert source.logical_resource_id == "source"
    assert source.required_by == ["message"]
    assert source.physical_resource_id
    base = f"{api.endpoint}/stacks/parts/{stack_id}"
    assert source.links == [{"href": f"{base}/resources/source", "rel": "self"},
                            {"href": base, "rel": "stack"}]
    filtered = hc.resources.list("parts", filters={"type": "OS::Heat::Value"})
    assert [r.resource_name for r in filtered] == ["message"]

    shown = hc.resources.get("parts", "message")
    assert shown.attributes["value"] == "hey, world"
    assert shown.resource_status == "CREATE_COMPLETE"

    events = hc.events.list("parts", sort_dir="asc")
    assert [e.id for e in hc.events.list("parts")] == [e.id for e in reversed(events)]
    reasons = [(e.resource_name, e.resource_status, e.resource_status_reason) for e in events]
    assert ("parts", "CREATE_IN_PROGRESS", "Stack CREATE started") in reasons
    assert reasons[-1] == ("parts", "CREATE_COMPLETE", "Stack CREATE completed successfully")
    last = events[-1]
    stack_link = next(link["href"] for link in last.links if link["rel"] == "stack")
    assert stack_link.endswith(last.physical_resource_id)
    assert ("source", "CREATE_COMPLETE") in [(n, s) for n, s, _ in reasons]
    after = hc.events.list("parts", marker=events[0].id, sort_dir="asc")
    assert [e.id for e in after] == [e.id for e in events[1:]]
    newest = hc.events.list("parts", limit=1, sort_dir="desc")
    assert [e.id for e in newest] == [last.id]
    source_events = hc.events.list("parts", resource_name="source")
    assert {e.resource_name for e in source_events} == {"source"}
    detail = hc.events.get("parts", "source", source_events[0].id)
    assert detail.resource_type == "OS::Heat::TestResource"

    assert hc.stacks.output_list("parts") == {
        "outputs": [{"output_key": "message", "description": "the greeting"}]}
    assert hc.stacks.output_show("parts", "message") == {"output": {
        "output_key": "message", "description": "the greeting", "output_value": "hey, world"}}
    assert hc.stacks.template("parts")["resources"]["source"]["type"] == \
        "OS::Heat::TestResource"


def test_update_put_replaces_the_template(hc: Any) -> None:
    _create(hc, "updated")
    assert wait_status(hc, "updated").stack_status == "CREATE_COMPLETE"
    new = value_template("bonjour")
    new["resources"]["extra"] = {"type": "OS::Heat::Value", "properties": {"value": "x"}}
    new["outputs"]["extra"] = {"value": {"get_attr": ["extra", "value"]}}
    hc.stacks.update("updated", template=new)
    stack = wait_status(hc, "updated")
    assert stack.stack_status == "UPDATE_COMPLETE"
    outputs = {o["output_key"]: o["output_value"] for o in stack.outputs}
    assert outputs == {"message": "bonjour, world", "extra": "x"}
    assert {r.resource_name for r in hc.resources.list("updated")} == \
        {"source", "message", "extra"}
    updates = [e for e in hc.events.list("updated") if e.resource_name == "updated"]
    assert updates[0].resource_status == "UPDATE_COMPLETE"
    assert updates[0].resource_status_reason == "Stack UPDATE completed successfully"


def test_update_patch_keeps_the_template(hc: Any) -> None:
    _create(hc, "patched", parameters={"greeting": "one"})
    assert wait_status(hc, "patched").stack_status == "CREATE_COMPLETE"
    hc.stacks.update("patched", existing=True, parameters={"greeting": "two"})
    stack = wait_status(hc, "patched")
    assert stack.stack_status == "UPDATE_COMPLETE"
    assert stack.outputs[0]["output_value"] == "two, world"
    assert hc.stacks.template("patched") == value_template()


def test_delete_then_404_by_name_and_delete_complete_by_id(hc: Any) -> None:
    stack_id = _create(hc, "deleted")
    assert wait_status(hc, "deleted").stack_status == "CREATE_COMPLETE"
    hc.stacks.delete("deleted")
    deadline = time.monotonic() + 30
    while True:
        try:
            hc.stacks.get("deleted")
        except exc.HTTPNotFound as err:
            assert "The Stack (deleted) could not be found." in str(err)
            break
        assert time.monotonic() < deadline, "the stack was not deleted"
        time.sleep(0.05)
    gone = hc.stacks.get(stack_id)
    assert gone.stack_status == "DELETE_COMPLETE"
    assert "outputs" not in gone.to_dict()
    assert "deleted" not in [s.stack_name for s in hc.stacks.list()]


def test_errors_carry_heats_messages(hc: Any) -> None:
    with pytest.raises(exc.HTTPNotFound) as missing:
        hc.stacks.get("no-such-stack")
    assert "The Stack (no-such-stack) could not be found." in str(missing.value)

    _create(hc, "twice")
    with pytest.raises(exc.HTTPConflict) as dup:
        _create(hc, "twice")
    assert "The Stack (twice) already exists." in str(dup.value)

    bad = {"heat_template_version": VERSION, "resources": {
        "web": {"type": "OS::Heat::TestResource", "properties": {"no_such": 1}}}}
    with pytest.raises(exc.HTTPBadRequest) as invalid:
        _create(hc, "invalid", bad)
    assert "resources.web.properties" in str(invalid.value)
    assert "no_such" in str(invalid.value)
    assert "invalid" not in [s.stack_name for s in hc.stacks.list()]

    with pytest.raises(exc.HTTPNotFound) as no_output:
        hc.stacks.output_show("twice", "nope")
    assert "nope" in str(no_output.value)
    with pytest.raises(exc.HTTPNotFound):
        hc.resources.get("twice", "nope")


def test_actions(hc: Any) -> None:
    _create(hc, "acted")
    assert wait_status(hc, "acted").stack_status == "CREATE_COMPLETE"
    with pytest.raises(exc.HTTPBadRequest) as cancel:
        hc.actions.cancel_update("acted")
    assert "Cancelling update when stack is CREATE_COMPLETE" in str(cancel.value)
    hc.actions.suspend("acted")
    assert wait_status(hc, "acted").stack_status == "SUSPEND_COMPLETE"
    assert {r.resource_status for r in hc.resources.list("acted")} == {"SUSPEND_COMPLETE"}
    with pytest.raises(exc.HTTPBadRequest) as update:
        hc.stacks.update("acted", existing=True, parameters={"greeting": "no"})
    assert "suspended is not supported" in str(update.value)
    hc.actions.resume("acted")
    assert wait_status(hc, "acted").stack_status == "RESUME_COMPLETE"
    hc.actions.check("acted")
    checked = wait_status(hc, "acted")
    assert (checked.stack_status, checked.stack_status_reason) == (
        "CHECK_COMPLETE", "Stack CHECK completed successfully")
    reasons = {r.resource_name: r.resource_status_reason for r in hc.resources.list("acted")}
    assert reasons["source"] == "state changed"  # TestResource has handle_check, as Heat's
    assert reasons["message"] == "CHECK not supported for OS::Heat::Value"
    events = [f"{e.resource_name} {e.resource_status}" for e in
              hc.events.list("acted", sort_dir="asc")]
    suspended = [e.split()[0] for e in events if e.endswith("SUSPEND_COMPLETE")]
    assert suspended == ["message", "source", "acted"]  # dependants first, then the stack


def test_session_client_as_openstackclient_uses_it(api: Api) -> None:
    from heatclient.client import Client
    from keystoneauth1 import noauth, session

    hc = Client("1", session=session.Session(auth=noauth.NoAuth(endpoint=api.endpoint)))
    stack_id = _create(hc, "via-session", parameters={"greeting": "ciao"})
    stack = wait_status(hc, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE"
    assert hc.stacks.get("via-session").id == stack_id
    assert {r.resource_name for r in hc.resources.list("via-session")} == {"source", "message"}
    assert hc.stacks.output_show("via-session", "message")["output"]["output_value"] == \
        "ciao, world"
    hc.stacks.delete(stack_id)
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.get("no-such-stack")
