"""OS::Heat::DeployedServer: the transports it refuses, and its collector configuration."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.deployed_server import DeployedServer
from hotplate.resources.signal_responder import serve_keystone_signals
from tests.unit.resources.fakes import FakeContext

PATH = ("resources", "server", "properties")


@pytest.mark.parametrize(("transport", "needs"), [
    ("POLL_SERVER_HEAT", "requires Keystone password authentication"),
    ("POLL_TEMP_URL", "requires Swift, not configured"),
    ("ZAQAR_MESSAGE", "requires Zaqar, not configured"),
])
def test_transports_needing_other_services_are_refused(transport: str, needs: str) -> None:
    with pytest.raises(StackValidationFailed) as caught:
        DeployedServer.validate({"software_config_transport": transport}, PATH)
    assert caught.value.path == (*PATH, "software_config_transport")
    assert needs in str(caught.value) and "use POLL_SERVER_CFN" in str(caught.value)


def test_an_unknown_transport_is_refused_by_its_allowed_values() -> None:
    with pytest.raises(StackValidationFailed, match="software_config_transport"):
        DeployedServer.validate({"software_config_transport": "BOGUS"}, PATH)


def test_swift_data_is_refused_unless_empty() -> None:
    assert DeployedServer.validate({"deployment_swift_data": {}}, PATH)
    assert DeployedServer.validate({"software_config_transport": "POLL_SERVER_CFN"}, PATH)
    with pytest.raises(StackValidationFailed) as caught:
        DeployedServer.validate({"deployment_swift_data": {"container": "c", "object": "o"}},
                                PATH)
    assert caught.value.path == (*PATH, "deployment_swift_data")
    assert "requires Swift" in str(caught.value)


class _Ctx(FakeContext):
    metadata: dict[str, Any]

    def __init__(self) -> None:
        super().__init__()
        self.metadata = {"from_template": True}

    def stack_user_credentials(self) -> tuple[str, str]:
        return "AK", "SK"

    def cfn_signal_url(self, kind: str) -> str:
        return ""

    def metadata_server_url(self) -> str:
        return "http://cfn:8000/v1/"

    def default_software_config_transport(self) -> str:
        return "POLL_SERVER_CFN"

    def forget_signal_credentials(self) -> None:
        self.metadata["forgotten"] = True

    def metadata_get(self) -> dict[str, Any]:
        return dict(self.metadata)

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None:
        self.metadata = dict(change(dict(self.metadata), "IN_PROGRESS"))
        return self.metadata


def test_create_writes_heats_cfn_collector_configuration() -> None:
    ctx = _Ctx()
    server = DeployedServer("server", DeployedServer.validate({}, PATH), ctx)
    server.handle_create()
    assert server.resource_id == ctx.uuid
    occ = {"collectors": ["cfn", "local"],
           "cfn": {"metadata_url": "http://cfn:8000/v1/", "access_key_id": "AK",
                   "secret_access_key": "SK", "stack_name": "teststack",
                   "path": "server.Metadata"}}
    assert ctx.metadata == {"from_template": True, "deployments": [],
                            "os-collect-config": occ}
    assert server.get_attribute("os_collect_config") == occ
    assert server.get_attribute("name") == "teststack-web-abcdefghijkl"
    assert server.get_attribute("networks") == {}
    server.handle_delete()
    assert ctx.metadata["forgotten"] is True


@pytest.fixture
def keystone_served() -> Any:
    """An engine with a stack user domain, for the length of one test."""
    serve_keystone_signals(True)
    yield
    serve_keystone_signals(False)


CREDS = {"auth_url": "http://ks:5000/v3", "username": "teststack-server-x",
         "user_id": "u1", "password": "pw", "project_id": "sup", "domain_id": "d1",
         "region_name": "RegionOne"}


class _KeystoneCtx(_Ctx):
    def heat_signal_credentials(self) -> dict[str, str | None]:
        return dict(CREDS)


def test_poll_server_heat_passes_when_the_engine_serves_keystone_signals(
        keystone_served: None) -> None:
    assert DeployedServer.validate({"software_config_transport": "POLL_SERVER_HEAT"}, PATH)


def test_poll_server_heat_writes_heats_heat_collector_and_clears_the_cfn_one(
        keystone_served: None) -> None:
    ctx = _KeystoneCtx()
    server = DeployedServer("server", DeployedServer.validate({}, PATH), ctx)
    server.handle_create()
    assert ctx.metadata["os-collect-config"]["collectors"] == ["cfn", "local"]
    new = DeployedServer.validate({"software_config_transport": "POLL_SERVER_HEAT"}, PATH)
    server = DeployedServer("server", new, ctx, resource_id=ctx.uuid)
    server.handle_update(new, {"software_config_transport": "POLL_SERVER_HEAT"})
    occ = ctx.metadata["os-collect-config"]
    assert occ["collectors"] == ["heat", "local"]
    assert occ["heat"] == {
        "user_id": "u1", "password": "pw", "auth_url": "http://ks:5000/v3",
        "project_id": "sup", "stack_id": f"teststack/{ctx.stack_id}",
        "resource_name": "server", "region_name": "RegionOne"}
    assert occ["cfn"] == dict.fromkeys(
        ("metadata_url", "access_key_id", "secret_access_key", "stack_name", "path"))
