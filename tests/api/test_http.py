"""The HTTP surface heatclient does not show: fault bodies, 405, versions, paging links."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from heatclient import exc

from tests.api.conftest import Api
from tests.api.helpers import VERSION, value_template, wait_status


@pytest.fixture
def http() -> Any:
    with httpx.Client(timeout=30) as client:
        yield client


def _fault(resp: httpx.Response, status: int, error_type: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = resp.json()
    assert body["code"] == status
    assert body["title"] and body["explanation"]
    assert body["error"]["type"] == error_type
    assert body["error"]["traceback"] is None
    return body


def test_versions_document(api: Api, http: Any) -> None:
    for path in ("/", "/versions", "/v2/admin/stacks"):
        resp = http.get(api.base + path)
        assert resp.status_code == 300
        assert resp.json() == {"versions": [{
            "id": "v1.0", "status": "CURRENT",
            "links": [{"rel": "self", "href": f"{api.base}/v1/"}]}]}


def test_build_info(api: Api, http: Any) -> None:
    resp = http.get(f"{api.endpoint}/build_info")
    assert resp.status_code == 200
    assert set(resp.json()) == {"api", "engine"}
    assert resp.json()["api"]["revision"]


def test_fault_shapes(api: Api, http: Any) -> None:
    body = _fault(http.get(f"{api.endpoint}/stacks/missing"), 404, "EntityNotFound")
    assert body["error"]["message"] == "The Stack (missing) could not be found."
    assert body["title"] == "Not Found"
    _fault(http.get(f"{api.endpoint}/no/such/route"), 404, "HTTPNotFound")
    bad_json = http.post(f"{api.endpoint}/stacks", content=b'{"stack_name": ',
                         headers={"Content-Type": "application/json"})
    assert "Malformed JSON" in _fault(bad_json, 400, "HTTPBadRequest")["error"]["message"]
    no_name = http.post(f"{api.endpoint}/stacks", json={"template": value_template()})
    assert _fault(no_name, 400, "HTTPBadRequest")["error"]["message"] == \
        "No stack name specified"
    no_template = http.post(f"{api.endpoint}/stacks", json={"stack_name": "x"})
    assert _fault(no_template, 400, "HTTPBadRequest")["error"]["message"] == \
        "No template specified"
    bad_bool = http.get(f"{api.endpoint}/stacks", params={"show_deleted": "yes"})
    assert "show_deleted" in _fault(bad_bool, 400, "HTTPBadRequest")["error"]["message"]
    negative = http.get(f"{api.endpoint}/stacks", params={"limit": "-1"})
    assert _fault(negative, 400, "HTTPBadRequest")["error"]["message"] == (
        "Value '-1' is invalid for 'limit' which only accepts non-negative integer.")
    for not_int in ("x", "+1", "1.5"):
        bad_int = http.get(f"{api.endpoint}/stacks", params={"limit": not_int})
        assert _fault(bad_int, 400, "HTTPBadRequest")["error"]["message"] == (
            "Only integer is acceptable by 'limit'.")


def test_405_and_options_carry_allow(api: Api, http: Any) -> None:
    resp = http.delete(f"{api.endpoint}/stacks")
    _fault(resp, 405, "HTTPMethodNotAllowed")
    assert resp.headers["allow"] == "GET,POST"
    options = http.options(f"{api.endpoint}/stacks")
    assert options.status_code == 204
    assert options.headers["allow"] == "GET,POST"
    assert options.content == b""


def test_template_as_yaml_text_and_next_link(api: Api, http: Any) -> None:
    text = (f"heat_template_version: {VERSION}\n"
            "resources:\n  v:\n    type: OS::Heat::Value\n    properties: {value: 1}\n")
    for name in ("yaml-a", "yaml-b"):
        resp = http.post(f"{api.endpoint}/stacks", json={"stack_name": name, "template": text})
        assert resp.status_code == 201
        assert resp.headers["location"] == resp.json()["stack"]["links"][0]["href"]
    page = http.get(f"{api.endpoint}/stacks", params={"limit": 1}).json()
    assert len(page["stacks"]) == 1
    (nxt,) = page["links"]
    assert nxt["rel"] == "next"
    assert f"marker={page['stacks'][0]['id']}" in nxt["href"]
    second = http.get(nxt["href"]).json()["stacks"]
    assert len(second) == 1 and second[0]["id"] != page["stacks"][0]["id"]
    counted = http.get(f"{api.endpoint}/stacks", params={"limit": 1, "with_count": "true"})
    assert counted.json()["count"] >= 2
    unknown = http.get(f"{api.endpoint}/stacks/yaml-a/resources", params={"bogus": "1"},
                       follow_redirects=True)
    _fault(unknown, 400, "HTTPBadRequest")


def test_failed_resource_reports_its_reason(hc: Any) -> None:
    template = {"heat_template_version": VERSION, "resources": {
        "broken": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}}}
    hc.stacks.create(stack_name="failing", template=template)
    stack = wait_status(hc, "failing")
    assert stack.stack_status == "CREATE_FAILED"
    (res,) = hc.resources.list("failing")
    assert res.resource_status == "CREATE_FAILED"
    assert res.resource_status_reason


def _slow(seconds: int) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": {
        "slow": {"type": "OS::Heat::TestResource",
                 "properties": {"value": "v", "wait_secs": seconds}}}}


def test_cancel_without_rollback_stops_a_create(hc: Any) -> None:
    hc.stacks.create(stack_name="cancelled", template=_slow(8))
    assert hc.stacks.get("cancelled").stack_status == "CREATE_IN_PROGRESS"
    hc.actions.cancel_without_rollback("cancelled")
    stack = wait_status(hc, "cancelled", timeout=20)
    assert stack.stack_status == "CREATE_FAILED"


def test_cancel_update_rolls_back(hc: Any) -> None:
    hc.stacks.create(stack_name="rolled", template=_slow(0), disable_rollback=False)
    assert wait_status(hc, "rolled").stack_status == "CREATE_COMPLETE"
    # The update in flight runs to its end before the rollback: keep it short.
    slow_update = _slow(3)
    slow_update["resources"]["slow"]["properties"]["value"] = "w"
    hc.stacks.update("rolled", template=slow_update)
    assert hc.stacks.get("rolled").stack_status == "UPDATE_IN_PROGRESS"
    hc.actions.cancel_update("rolled")
    stack = wait_status(hc, "rolled", timeout=30)
    assert stack.stack_status == "ROLLBACK_COMPLETE"
    (res,) = hc.resources.list("rolled")
    assert res.resource_status == "UPDATE_COMPLETE"
    with pytest.raises(exc.HTTPBadRequest):
        hc.actions.cancel_update("rolled")


def test_no_engine_answering_is_a_500_that_says_so() -> None:
    """An API process whose engines are all gone: Heat's 500, with a message to act on."""
    from hotplate.api import EngineRpc, create_app
    from hotplate.api.background import BackgroundServer
    from hotplate.rpc import InProcessTransport

    transport = InProcessTransport(workers_per_server=1, call_timeout=0.1)
    try:
        with BackgroundServer(create_app(EngineRpc(transport))) as base:
            response = httpx.get(f"{base}/v1/admin/stacks", timeout=10)
    finally:
        transport.stop()
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["type"] == "MessagingTimeout"
    assert "is any engine running?" in error["message"]
