"""The Idempotency-Key header through a real server: a write repeated with its key is
answered as the first time and done once; the key with another request is a 422."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.api.conftest import Api
from tests.api.helpers import value_template, wait_status


@pytest.fixture
def http(api: Api) -> Any:
    with httpx.Client(base_url=api.endpoint, timeout=30,
                      headers={"X-Auth-Token": "noauth"}) as client:
        yield client


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def test_a_create_repeated_with_its_key_makes_one_stack(http: Any, hc: Any) -> None:
    key = _key()
    body = {"stack_name": "keyed", "template": value_template()}
    first = http.post("/stacks", json=body, headers=key)
    again = http.post("/stacks", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert first.headers["Location"] == again.headers["Location"]
    assert wait_status(hc, "keyed").stack_status == "CREATE_COMPLETE"
    assert [s.id for s in hc.stacks.list() if s.stack_name == "keyed"] == [
        first.json()["stack"]["id"]]
    # Without the key, a second create is a second request: Heat's 409.
    assert http.post("/stacks", json=body).status_code == 409


def test_the_key_with_another_request_is_refused(http: Any, hc: Any) -> None:
    key = _key()
    body = {"stack_name": "keyed-once", "template": value_template()}
    assert http.post("/stacks", json=body, headers=key).status_code == 201
    other = http.post("/stacks", json={**body, "stack_name": "keyed-other"}, headers=key)
    assert other.status_code == 422
    assert other.json()["error"]["type"] == "RequestIdReused"
    assert other.json()["title"] == "Unprocessable Entity"
    assert [s for s in hc.stacks.list() if s.stack_name == "keyed-other"] == []
    stack_id = wait_status(hc, "keyed-once").id
    moved = http.delete(f"/stacks/keyed-once/{stack_id}", headers=key)  # another route
    assert moved.status_code == 422


def test_a_delete_repeated_with_its_key_answers_alike(http: Any, hc: Any) -> None:
    created = http.post("/stacks", json={"stack_name": "keyed-gone",
                                         "template": value_template()})
    stack_id = created.json()["stack"]["id"]
    wait_status(hc, "keyed-gone")
    key = _key()
    assert http.delete(f"/stacks/keyed-gone/{stack_id}", headers=key).status_code == 204
    assert http.delete(f"/stacks/keyed-gone/{stack_id}", headers=key).status_code == 204


def test_a_malformed_key_is_a_400(http: Any) -> None:
    bad = http.post("/stacks", json={"stack_name": "badkey", "template": value_template()},
                    headers={"Idempotency-Key": "x" * 256})
    assert bad.status_code == 400
    # Reads ignore the header.
    assert http.get("/stacks", headers={"Idempotency-Key": "x" * 256}).status_code == 200
