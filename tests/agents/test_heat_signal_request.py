"""HEAT_SIGNAL's request as the agent builds it: its Keystone details, no URL until sent.

The delivery itself (a token from Keystone, the catalog's endpoint) runs
against the real cloud: tests/cloud/test_keystone_heat_signal.py.
"""

from __future__ import annotations

import pytest

from hotplate.agent.keystone import _endpoint
from hotplate.agent.notify import signal_request

INPUTS = {"deploy_signal_transport": "HEAT_SIGNAL", "deploy_auth_url": "http://ks/v3",
          "deploy_user_id": "u1", "deploy_password": "pw", "deploy_project_id": "sup",
          "deploy_stack_id": "st/123", "deploy_resource_name": "dep"}


def _deployment(**inputs: str) -> dict[str, object]:
    return {"id": "d1", "name": "cfg", "inputs": [{"name": k, "value": v}
                                                  for k, v in inputs.items()]}


def test_a_heat_signal_request_carries_the_stack_users_credentials() -> None:
    request = signal_request(_deployment(**INPUTS), {"deploy_status_code": 0})
    assert request is not None
    assert request["url"] is None and request["verb"] == "POST"
    assert request["keystone"] == {
        "auth_url": "http://ks/v3", "user_id": "u1", "password": "pw", "project_id": "sup",
        "region_name": None, "stack_id": "st/123", "resource_name": "dep"}


@pytest.mark.parametrize("missing", ["deploy_auth_url", "deploy_password", "deploy_stack_id"])
def test_a_heat_signal_without_its_credentials_is_not_sent(missing: str) -> None:
    inputs = {k: v for k, v in INPUTS.items() if k != missing}
    assert signal_request(_deployment(**inputs), {}) is None


CATALOG = [
    {"type": "identity", "endpoints": [{"interface": "public", "region_id": "R1",
                                        "url": "http://ks/v3"}]},
    {"type": "orchestration", "endpoints": [
        {"interface": "public", "region_id": "Other", "url": "http://other/v1/p"},
        {"interface": "internal", "region_id": "R1", "url": "http://internal/v1/p"},
        {"interface": "public", "region_id": "R1", "url": "http://heat/v1/p/"}]},
]


def test_the_endpoint_is_the_public_orchestration_one_of_the_region() -> None:
    assert _endpoint(CATALOG, "R1") == "http://heat/v1/p"
    assert _endpoint(CATALOG, None) == "http://other/v1/p"
    with pytest.raises(LookupError, match="in region Nowhere"):
        _endpoint(CATALOG, "Nowhere")
