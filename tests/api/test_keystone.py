"""``--keystone``: identity from keystonemiddleware's headers, mapped as hotplate's tokens."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer
from hotplate.api.keystone import KeystoneHeaders, role_of
from hotplate.app import embedded
from hotplate.cli.main import main
from tests.api.helpers import value_template


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('ks')) / 'hotplate.sqlite'}"
    engine, transport = embedded(url, workers=4)
    app = create_app(EngineRpc(transport, host=engine.deps.host), auth=KeystoneHeaders())
    try:
        with BackgroundServer(app) as root:
            yield root
    finally:
        engine.stop()
        transport.stop()


def confirmed(project: str, roles: str) -> dict[str, str]:
    return {"X-Identity-Status": "Confirmed", "X-Project-Id": project, "X-Roles": roles,
            "X-Auth-Token": "checked-by-keystonemiddleware"}


def test_unconfirmed_requests_are_refused(base: str) -> None:
    assert httpx.get(f"{base}/v1/p1/stacks").status_code == 401
    invalid = {"X-Identity-Status": "Invalid", "X-Project-Id": "p1", "X-Roles": "admin"}
    assert httpx.get(f"{base}/v1/p1/stacks", headers=invalid).status_code == 401


def test_projects_and_roles_map_as_tokens_do(base: str) -> None:
    member = confirmed("p1", "member,heat_stack_owner")
    body = {"stack_name": "ks", "template": value_template()}
    created = httpx.post(f"{base}/v1/p1/stacks", json=body, headers=member)
    assert created.status_code == 201, created.text
    listed = httpx.get(f"{base}/v1/p1/stacks", headers=member).json()["stacks"]
    assert [s["stack_name"] for s in listed] == ["ks"]
    assert httpx.get(f"{base}/v1/p2/stacks", headers=member).status_code == 403
    assert httpx.get(f"{base}/v1/p2/stacks", headers=confirmed("p2", "member")).json() == {
        "stacks": []}
    reader = confirmed("p1", "reader")
    assert httpx.get(f"{base}/v1/p1/stacks", headers=reader).status_code == 200
    assert httpx.post(f"{base}/v1/p1/stacks", json={**body, "stack_name": "no"},
                      headers=reader).status_code == 403
    admin = confirmed("ops", "admin,member")
    assert httpx.get(f"{base}/v1/p1/stacks", headers=admin).status_code == 200


def test_heats_policy_applies_behind_the_filter(base: str) -> None:
    stack_user = confirmed("p3", "heat_stack_user")
    refused = httpx.get(f"{base}/v1/p3/stacks", headers=stack_user)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "You are not authorized to use stacks:index."
    metadata = f"{base}/v1/p3/software_deployments/metadata/some-server"
    assert httpx.get(metadata, headers=stack_user).status_code == 200
    assert httpx.get(f"{base}/v1/p3/services",
                     headers=confirmed("p3", "member")).status_code == 403


def test_role_mapping() -> None:
    assert role_of({"admin", "reader"}) == "admin"
    assert role_of({"reader"}) == "reader"
    assert role_of({"reader", "member"}) == "member"
    assert role_of(set()) == "member"
    assert role_of({"heat_stack_user"}) == "heat_stack_user"


def test_serve_keeps_keystone_mode_on_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--keystone", "--host", "0.0.0.0"]) == 2
    assert "--keystone" in capsys.readouterr().err
    assert main(["serve", "--keystone", "--noauth"]) == 2
    assert main(["serve", "--keystone", "--auth", "keystone"]) == 2
    assert main(["serve", "--auth", "keystone-headers", "--host", "0.0.0.0"]) == 2


def test_keystone_mode_needs_its_section(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--auth", "keystone"]) == 2
    assert "[keystone_authtoken]" in capsys.readouterr().err
    conf = tmp_path / "hotplate.conf"
    conf.write_text("[keystone_authtoken]\nauth_type = password\nusername = heat\n"
                    "password = never-shown\n")
    assert main(["serve", "--auth", "keystone", "--config-file", str(conf)]) == 2
    err = capsys.readouterr().err
    assert "[keystone_authtoken] is missing auth_url" in err
    assert "never-shown" not in err
    conf.write_text("[paste_deploy]\nflavor = standalone\n")
    assert main(["serve", "--config-file", str(conf)]) == 2
    assert "[paste_deploy]/flavor" in capsys.readouterr().err


def test_the_cli_knows_every_mode() -> None:
    from hotplate.cli.servers import AUTH_MODES
    from hotplate.config.options import AUTH_MODES as OPTION_CHOICES

    assert AUTH_MODES == OPTION_CHOICES
