"""Previews, a stack's environment and files, resource metadata, health and signals,
abandon and export, adopt, and the request limits — through python-heatclient and httpx."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from heatclient import exc

from tests.api.conftest import LIMITED, LIMITED_BODY_SIZE, Api
from tests.api.helpers import VERSION, output_values, value_template, wait_status


@pytest.fixture
def http() -> Any:
    with httpx.Client(timeout=30) as client:
        yield client


def _test_resource(value: str = "v", **more: Any) -> dict[str, Any]:
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, **more}}


def _created(hc: Any, name: str, template: dict[str, Any], **fields: Any) -> str:
    stack_id = str(hc.stacks.create(stack_name=name, template=template, **fields)["stack"]["id"])
    assert wait_status(hc, name).stack_status == "CREATE_COMPLETE"
    return stack_id


def _events(hc: Any, stack: str, resource: str) -> list[tuple[str, str]]:
    return [(e.resource_status, e.resource_status_reason)
            for e in hc.events.list(stack, resource_name=resource, sort_dir="asc")]


# -- previews ---------------------------------------------------------------
def test_preview_of_a_create_stores_nothing(hc: Any) -> None:
    preview = hc.stacks.preview(stack_name="previewed", template=value_template(),
                                parameters={"greeting": "hey"}, tags="x,y")
    assert preview.id == "None"  # Heat's identifiers hold str(None)
    assert preview.stack_name == "previewed"
    assert "stack_status" not in preview.to_dict()
    assert preview.parameters["greeting"] == "hey"
    assert preview.tags == ["x", "y"]
    by_name = {r["resource_name"]: r for r in preview.resources}
    assert set(by_name) == {"source", "message"}
    source = by_name["source"]
    assert (source["resource_action"], source["resource_status"]) == ("INIT", "COMPLETE")
    assert source["properties"]["value"] == "hey"
    assert source["required_by"] == ["message"]
    assert by_name["message"]["attributes"] == {"value": None}
    assert "previewed" not in [s.stack_name for s in hc.stacks.list()]


def test_preview_of_a_create_refuses_what_a_create_refuses(hc: Any) -> None:
    _created(hc, "taken", value_template())
    with pytest.raises(exc.HTTPConflict) as taken:
        hc.stacks.preview(stack_name="taken", template=value_template())
    assert "The Stack (taken) already exists." in str(taken.value)
    with pytest.raises(exc.HTTPBadRequest) as bad:
        hc.stacks.preview(stack_name="bad", template={
            "heat_template_version": VERSION,
            "resources": {"r": {"type": "OS::Heat::TestResource", "properties": {"no": 1}}}})
    assert str(bad.value) == (
        "ERROR: Property error: : resources.r.properties: : Unknown Property no")


def _update_template() -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "parameters": {"v": {"type": "string", "default": "one"}},
            "resources": {
                "keep": _test_resource(),
                "tweak": _test_resource({"get_param": "v"}),  # value: updatable in place
                "swap": _test_resource(update_replace_value="a"),  # not updatable
                "gone": _test_resource(),
            }}


def test_preview_of_an_update_sorts_every_resource(hc: Any) -> None:
    stack_id = _created(hc, "planned", _update_template())
    new = _update_template()
    new["resources"]["tweak"]["properties"]["value"] = "changed"
    new["resources"]["swap"]["properties"]["update_replace_value"] = "b"
    del new["resources"]["gone"]
    new["resources"]["fresh"] = {"type": "OS::Heat::None"}
    changes = hc.stacks.preview_update("planned", template=new)
    names = {kind: sorted(r["resource_name"] for r in listed)
             for kind, listed in changes["resource_changes"].items()}
    assert names == {"added": ["fresh"], "deleted": ["gone"], "replaced": ["swap"],
                     "unchanged": ["keep"], "updated": ["tweak"]}
    (updated,) = changes["resource_changes"]["updated"]
    assert updated["resource_status"] == "COMPLETE"  # the stored resource
    assert updated["physical_resource_id"]
    (added,) = changes["resource_changes"]["added"]
    assert added["resource_action"] == "INIT" and added["physical_resource_id"] == ""
    # PATCH keeps the stored template: only the parameter changes, so only tweak.
    patched = hc.stacks.preview_update("planned", existing=True, parameters={"v": "two"})
    names = {kind: sorted(r["resource_name"] for r in listed)
             for kind, listed in patched["resource_changes"].items()}
    assert names == {"added": [], "deleted": [], "replaced": [],
                     "unchanged": ["gone", "keep", "swap"], "updated": ["tweak"]}
    stack = hc.stacks.get("planned")
    assert stack.stack_status == "CREATE_COMPLETE"
    assert stack.id == stack_id
    assert set(hc.stacks.template("planned")["resources"]) == {"keep", "tweak", "swap",
                                                              "gone"}


def test_preview_of_an_update_with_an_immutable_change_is_refused(hc: Any) -> None:
    _created(hc, "steady", {"heat_template_version": VERSION, "resources": {
        "r": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}}})
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.preview_update("no-such-stack", template=value_template())
    changes = hc.stacks.preview_update("steady", template={
        "heat_template_version": VERSION,
        "resources": {"r": {"type": "OS::Heat::RandomString", "properties": {"length": 9}}}})
    assert [r["resource_name"] for r in changes["resource_changes"]["replaced"]] == ["r"]


# -- what a stack was made from ----------------------------------------------
def test_environment_files_and_detail(api: Api, hc: Any, http: Any) -> None:
    template = {"heat_template_version": VERSION,
                "parameters": {"p": {"type": "string"}},
                "resources": {"v": {"type": "OS::Heat::Value", "properties": {
                    "value": {"get_file": "file:///motd.txt"}}}}}
    stack_id = _created(hc, "sourced", template, files={"file:///motd.txt": "hello"},
                        environment={"parameters": {"p": "x"},
                                     "parameter_defaults": {"q": 1}})
    env = hc.stacks.environment("sourced")
    assert env["parameters"] == {"p": "x"}
    assert env["parameter_defaults"] == {"q": 1}
    assert set(env) >= {"resource_registry", "event_sinks", "encrypted_param_names"}
    assert hc.stacks.files("sourced") == {"file:///motd.txt": "hello"}
    detail = http.get(f"{api.endpoint}/stacks/detail")
    assert detail.status_code == 200
    shown = {s["stack_name"]: s for s in detail.json()["stacks"]}
    assert shown["sourced"]["id"] == stack_id
    assert shown["sourced"]["stack_status"] == "CREATE_COMPLETE"
    assert shown["sourced"]["links"][0]["href"].endswith(f"/stacks/sourced/{stack_id}")
    # PATCH without files keeps the stored ones (get_file still resolves) and parameters.
    hc.stacks.update("sourced", existing=True, environment={"parameter_defaults": {"q": 2}})
    assert wait_status(hc, "sourced").stack_status == "UPDATE_COMPLETE"
    assert hc.stacks.files("sourced") == {"file:///motd.txt": "hello"}
    assert hc.stacks.environment("sourced")["parameters"] == {"p": "x"}
    assert hc.stacks.environment("sourced")["parameter_defaults"] == {"q": 2}


# -- one resource -------------------------------------------------------------
def test_resource_metadata(hc: Any) -> None:
    _created(hc, "meta", {"heat_template_version": VERSION, "resources": {
        "r": {"type": "OS::Heat::None", "metadata": {"role": "web", "n": [1, 2]}}}})
    assert hc.resources.metadata("meta", "r") == {"role": "web", "n": [1, 2]}
    with pytest.raises(exc.HTTPNotFound) as missing:
        hc.resources.metadata("meta", "nope")
    assert "The Resource (nope) could not be found in Stack meta." in str(missing.value)


def test_mark_unhealthy_and_healthy_again(hc: Any) -> None:
    _created(hc, "health", {"heat_template_version": VERSION, "resources": {
        "r": _test_resource()}})
    hc.resources.mark_unhealthy("health", "r", True, "disk failed")
    res = hc.resources.get("health", "r")
    assert res.resource_status == "CHECK_FAILED"
    assert res.resource_status_reason == "disk failed"
    # By physical id too; marking healthy goes back to CHECK_COMPLETE.
    hc.resources.mark_unhealthy("health", res.physical_resource_id, False, "")
    res = hc.resources.get("health", "r")
    assert res.resource_status == "CHECK_COMPLETE"
    assert res.resource_status_reason == "state changed by resource_mark_unhealthy api"
    hc.resources.mark_unhealthy("health", "r", False, "no change")  # not CHECK_FAILED
    assert hc.resources.get("health", "r").resource_status_reason == \
        "state changed by resource_mark_unhealthy api"
    assert _events(hc, "health", "r")[-2:] == [
        ("CHECK_FAILED", "disk failed"),
        ("CHECK_COMPLETE", "state changed by resource_mark_unhealthy api")]


def test_mark_unhealthy_refusals(api: Api, hc: Any, http: Any) -> None:
    stack_id = _created(hc, "picky", {"heat_template_version": VERSION, "resources": {
        "r": _test_resource()}})
    url = f"{api.endpoint}/stacks/picky/{stack_id}/resources/r"
    cases = [
        ({"mark_unhealthy": True, "colour": "red"},
         "Invalid keys in resource mark unhealthy {'colour'}"),
        ({"resource_status_reason": "x"},
         "Missing mandatory (mark_unhealthy) key from mark unhealthy request"),
        ({"mark_unhealthy": "maybe"},
         'Unrecognized value "maybe" for "mark_unhealthy", acceptable values are: '
         "true, false."),
    ]
    for body, message in cases:
        resp = http.patch(url, json=body)
        assert resp.status_code == 400, resp.text
        assert resp.json()["error"]["message"] == message
    missing = http.patch(url.replace("/resources/r", "/resources/nope"),
                         json={"mark_unhealthy": True})
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == \
        "The Resource (nope) could not be found in Stack picky."
    assert hc.resources.get("picky", "r").resource_status == "CREATE_COMPLETE"


def test_mark_unhealthy_while_a_worker_holds_the_resource(hc: Any) -> None:
    hc.stacks.create(stack_name="busy", template={"heat_template_version": VERSION,
                                                  "resources": {"r": _test_resource(
                                                      wait_secs=3)}})
    deadline = time.monotonic() + 10
    while hc.resources.get("busy", "r").resource_status != "CREATE_IN_PROGRESS":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with pytest.raises(exc.HTTPConflict) as busy:
        hc.resources.mark_unhealthy("busy", "r", True, "now")
    assert "Stack busy already has an action (CREATE) in progress." in str(busy.value)


def test_signals(hc: Any) -> None:
    _created(hc, "signalled", {"heat_template_version": VERSION, "resources": {
        "r": _test_resource()}})
    with pytest.raises(exc.HTTPBadRequest) as no_handler:
        hc.resources.signal("signalled", "r", data={"go": True})
    assert "signal is not supported for resource." in str(no_handler.value)
    with pytest.raises(exc.HTTPBadRequest) as bad_hook:
        hc.resources.signal("signalled", "r", data={"unset_hook": "mid-create"})
    assert 'Invalid hook type "mid-create" for TestResource "r"' in str(bad_hook.value)
    with pytest.raises(exc.HTTPBadRequest) as not_paused:
        hc.resources.signal("signalled", "r", data={"unset_hook": "pre-create"})
    assert 'The "pre-create" hook is not defined on TestResource "r"' in \
        str(not_paused.value)
    with pytest.raises(exc.HTTPNotFound):
        hc.resources.signal("signalled", "nope", data={"unset_hook": "pre-create"})


def test_unset_hook_lets_a_paused_resource_go_on(hc: Any) -> None:
    env = {"resource_registry": {"resources": {"r": {"hooks": "pre-create"}}}}
    hc.stacks.create(stack_name="hooked", template={"heat_template_version": VERSION,
                                                    "resources": {"r": _test_resource()}},
                     environment=env)
    paused = "CREATE paused until Hook pre-create is cleared"
    deadline = time.monotonic() + 10
    while paused not in [reason for _, reason in _events(hc, "hooked", "r")]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert hc.stacks.get("hooked").stack_status == "CREATE_IN_PROGRESS"
    hc.resources.signal("hooked", "r", data={"unset_hook": "pre-create"})
    assert wait_status(hc, "hooked").stack_status == "CREATE_COMPLETE"
    reasons = [reason for _, reason in _events(hc, "hooked", "r")]
    assert reasons.index(paused) < reasons.index("Hook pre-create is cleared")


# -- abandon, export, adopt ------------------------------------------------------
def test_abandon_export_and_adopt_are_off_by_default(hc: Any) -> None:
    _created(hc, "kept", value_template())
    for call in (hc.stacks.export, hc.stacks.abandon):
        with pytest.raises(exc.HTTPBadRequest) as off:
            call("kept")
        assert "Stack Abandon is not supported." in str(off.value)
    assert hc.stacks.get("kept").stack_status == "CREATE_COMPLETE"
    document = {"template": value_template(), "resources": {}}
    with pytest.raises(exc.HTTPBadRequest) as adopt:
        hc.stacks.create(stack_name="adopted", adopt_stack_data=json.dumps(document))
    assert "Stack Adopt is not supported." in str(adopt.value)


def test_export_abandon_and_adopt_when_enabled(limited: Api) -> None:
    hc = limited.client()
    assert LIMITED.enable_stack_abandon
    stack_id = _created(hc, "leaving", value_template(), parameters={"greeting": "bye"},
                        tags="t")
    exported = hc.stacks.export("leaving")
    assert (exported["name"], exported["id"]) == ("leaving", stack_id)
    assert (exported["action"], exported["status"]) == ("CREATE", "COMPLETE")
    assert exported["template"] == value_template()
    assert exported["environment"]["parameters"] == {"greeting": "bye"}
    assert exported["tags"] == ["t"]
    source = exported["resources"]["source"]
    assert source["type"] == "OS::Heat::TestResource"
    assert source["resource_id"] and source["status"] == "COMPLETE"
    assert set(source) == {"name", "resource_id", "type", "action", "status", "metadata",
                           "resource_data"}
    assert hc.stacks.get("leaving").stack_status == "CREATE_COMPLETE"
    abandoned = hc.stacks.abandon("leaving")
    assert abandoned["resources"]["source"]["resource_id"] == source["resource_id"]
    with pytest.raises(exc.HTTPNotFound):
        hc.stacks.get("leaving")
    gone = hc.stacks.get(stack_id)
    assert gone.stack_status == "DELETE_COMPLETE"
    # ... and adopted again, into a new stack (its resources stay what they were).
    hc.stacks.create(stack_name="arrived", adopt_stack_data=json.dumps(abandoned),
                     parameters={"greeting": "bye"})
    arrived = wait_status(hc, "arrived")
    assert arrived.stack_status == "ADOPT_COMPLETE", arrived.stack_status_reason
    resource = hc.resources.get("arrived", "source")
    assert resource.physical_resource_id == source["resource_id"]
    assert resource.resource_status == "ADOPT_COMPLETE"


# -- limits -------------------------------------------------------------------
def _nones(count: int) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(count)}}


def test_resource_and_template_limits(limited: Api) -> None:
    hc = limited.client()
    with pytest.raises(exc.HTTPBadRequest) as many:
        hc.stacks.create(stack_name="many", template=_nones(LIMITED.max_resources_per_stack
                                                             + 1))
    assert "Request limit exceeded: Maximum resources per stack exceeded." in \
        str(many.value)
    with pytest.raises(exc.HTTPBadRequest) as validated:
        hc.stacks.validate(template=_nones(4))
    assert "Maximum resources per stack exceeded." in str(validated.value)
    big = _nones(1)
    big["description"] = "d" * LIMITED.max_template_size
    with pytest.raises(exc.HTTPBadRequest) as large:
        hc.stacks.create(stack_name="large", template=big)
    size = len(str(big))
    assert (f"Request limit exceeded: Template size ({size} bytes) exceeds maximum allowed "
            f"size ({LIMITED.max_template_size} bytes).") in str(large.value)
    assert [s.stack_name for s in hc.stacks.list()
            if s.stack_name in ("many", "large")] == []
    _created(hc, "enough", _nones(LIMITED.max_resources_per_stack))


def test_json_body_limit(limited: Api, http: Any) -> None:
    body = json.dumps({"stack_name": "huge", "template": _nones(1),
                       "description": "x" * LIMITED_BODY_SIZE}).encode()
    declared = http.post(f"{limited.endpoint}/stacks", content=body,
                         headers={"Content-Type": "application/json"})
    assert declared.status_code == 413
    error = declared.json()["error"]
    assert error["type"] == "RequestLimitExceeded"
    assert error["message"] == (f"Request limit exceeded: JSON body size ({len(body)} bytes) "
                                f"exceeds maximum allowed size ({LIMITED_BODY_SIZE} bytes).")

    def chunks() -> Iterator[bytes]:  # no Content-Length: read only up to the limit
        for start in range(0, len(body), 1000):
            yield body[start:start + 1000]

    streamed = http.post(f"{limited.endpoint}/stacks", content=chunks(),
                         headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert streamed.json()["error"]["type"] == "RequestLimitExceeded"
    assert "huge" not in [s["stack_name"] for s in
                          http.get(f"{limited.endpoint}/stacks").json()["stacks"]]


def test_create_from_text_names_the_line(api: Api, http: Any) -> None:
    text = (f"heat_template_version: {VERSION}\n"
            "resources:\n"
            "  a:\n"
            "    type: OS::Heat::TestResource\n"
            "    properties:\n"
            "      value: ok\n"
            "      fail: sometimes\n")
    resp = http.post(f"{api.endpoint}/stacks", json={"stack_name": "lined", "template": text})
    assert resp.status_code == 400
    assert resp.json()["error"]["message"] == (
        'Property error: : resources.a.properties.fail: : "sometimes" is not a valid '
        "boolean at line 7, column 7")


# -- get_attr with a resource name alone ------------------------------------------------
def test_get_attr_of_a_resource_alone_reads_its_attributes_as_a_map(hc: Any) -> None:
    """Every declared attribute but ``show``, in outputs and in another resource's
    properties; null once the resource has failed, as Heat answers."""
    template: dict[str, Any] = {"heat_template_version": "2016-10-14", "resources": {
        "rs": {"type": "OS::Heat::RandomString", "properties": {"length": 6}},
        "t": {"type": "OS::Heat::TestResource", "properties": {"value": "one"}},
        "copy": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["rs"]}}},
        "nothing": {"type": "OS::Heat::None"}},
        "outputs": {"rs": {"value": {"get_attr": ["rs"]}}, "t": {"value": {"get_attr": ["t"]}},
                    "copy": {"value": {"get_attr": ["copy", "value"]}},
                    "nothing": {"value": {"get_attr": ["nothing"]}}}}
    _created(hc, "allattrs", template)
    outputs = output_values(hc.stacks.get("allattrs"))
    assert set(outputs["rs"]) == {"value"} and len(outputs["rs"]["value"]) == 6
    assert outputs["copy"] == outputs["rs"]
    assert outputs["t"] == {"output": "one"}
    assert outputs["nothing"] == {}
    shown = hc.stacks.output_show("allattrs", "rs")["output"]
    assert shown["output_value"] == outputs["rs"]
    template["resources"]["t"]["properties"] = {"value": "two", "fail": True}
    hc.stacks.update("allattrs", template=template)
    assert wait_status(hc, "allattrs").stack_status == "UPDATE_FAILED"
    assert output_values(hc.stacks.get("allattrs"))["t"] is None
