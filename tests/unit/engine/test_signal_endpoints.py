"""The engine's signal endpoints: Heat's pre-signed URL form, the signal URL, reuse."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qsl, unquote, urlsplit

from hotplate.cloud.stack_domain import AccessKey
from hotplate.engine.hosting.keystone_users import KeystoneStackUser
from hotplate.engine.hosting.signal_endpoints import EngineSignalEndpoints, resource_arn
from hotplate.engine.options import EngineOptions
from hotplate.model.ec2_signature import SignedRequest, verify
from hotplate.model.ids import ResourceId
from hotplate.model.stack_users import ResourceOwner, StackUserKey
from tests.unit.resources.fakes import FakeContext

OWNER = ResourceOwner(ResourceId(7), "5f1b6e0e-0000-4000-8000-000000000001", "my stack",
                      "handle", "proj")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class _Store:
    def __init__(self) -> None:
        self.made = 0
        self.forgotten: list[ResourceId] = []
        self.forgotten_keys: list[str] = []
        self.recorded: list[str] = []

    def stack_user_key(self, owner: ResourceOwner) -> StackUserKey:
        self.made += 1
        return StackUserKey("AKID", "SECRET", int(owner.resource_id), owner.stack_id,
                            owner.stack_name, owner.resource_name, owner.project)

    def issue_signal_token(self, owner: ResourceOwner) -> str:
        self.made += 1
        return "tok"

    def forget_stack_user(self, resource_id: ResourceId) -> None:
        self.forgotten.append(resource_id)

    def forget_stack_user_key(self, access_key: str) -> None:
        self.forgotten_keys.append(access_key)

    def record_stack_user_key(self, owner: ResourceOwner, access_key: str) -> None:
        self.recorded.append(access_key)


def _endpoints(options: EngineOptions | None = None) -> tuple[EngineSignalEndpoints, _Store,
                                                              FakeContext]:
    store, ctx = _Store(), FakeContext()
    return EngineSignalEndpoints(store, options or EngineOptions(), ctx, OWNER,
                                 lambda: NOW), store, ctx


def test_arn_is_heats() -> None:
    assert resource_arn("proj", "my stack", "abc", "handle") == (
        "arn:openstack:heat::proj:stacks/my%20stack/abc/resources/handle")


def test_presigned_url_verifies_on_the_unquoted_path_and_is_kept() -> None:
    endpoints, store, ctx = _endpoints(EngineOptions(
        heat_waitcondition_server_url="http://Agents.Example:8000/v1/waitcondition"))
    url = endpoints.cfn_signal_url("signal")
    parts = urlsplit(url)
    assert parts.netloc == "agents.example:8000"
    assert parts.path.startswith("/v1/signal/arn%3Aopenstack%3Aheat%3A%3Aproj%3Astacks/")
    params = dict(parse_qsl(parts.query))
    assert params["AWSAccessKeyId"] == "AKID" and params["Timestamp"] == "2026-12-01T12:00:00Z"
    assert verify("SECRET", SignedRequest("POST", parts.netloc, unquote(parts.path), params))
    assert not verify("SECRET", SignedRequest("PUT", parts.netloc, unquote(parts.path),
                                              params))
    wait = endpoints.cfn_signal_url("waitcondition")
    assert "/v1/waitcondition/arn" in wait
    assert endpoints.cfn_signal_url("signal") == url
    assert store.made == 1  # one keypair for both URLs
    assert ctx.stored["access_key"] == "AKID" and "secret_key" in ctx.redacted


def test_heat_signal_url_token_and_forgetting() -> None:
    endpoints, store, ctx = _endpoints(EngineOptions(heat_url="http://api:8004/v1/%(tenant_id)s"))
    assert endpoints.heat_signal_url() == (
        "http://api:8004/v1/proj/stacks/my%20stack/5f1b6e0e-0000-4000-8000-000000000001/"
        "resources/handle/signal")
    assert endpoints.signal_token() == endpoints.signal_token() == "tok"
    assert store.made == 1 and "signal_token" in ctx.redacted
    assert endpoints.metadata_server_url() == "http://127.0.0.1:8000/v1/"
    assert endpoints.default_signal_transport() == "CFN_SIGNAL"
    assert endpoints.default_software_config_transport() == "POLL_SERVER_CFN"
    endpoints.cfn_signal_url("signal")
    endpoints.forget_signal_credentials()
    assert store.forgotten == [OWNER.resource_id]
    assert not set(ctx.stored) & {"access_key", "secret_key", "signal_token",
                                  "ec2_signed_url"}


def test_forgetting_the_keypair_alone_standalone() -> None:
    endpoints, store, ctx = _endpoints()
    assert endpoints.create_stack_user("pw") is None  # standalone: a user is its keys
    endpoints.enable_stack_user(False)
    endpoints.cfn_signal_url("signal")
    endpoints.signal_token()
    endpoints.forget_keypair()
    assert store.forgotten_keys == ["AKID"] and store.forgotten == []
    assert set(ctx.stored) == {"signal_token"}  # the key's URLs go with it


class _Domain:
    """The stack domain admin's calls, recorded."""

    url = "http://keystone/v3"

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def create_user(self, name: str, project_id: str, password: str | None) -> str:
        self.calls.append(("create_user", name, project_id, str(password)))
        return "uid"

    def create_keypair(self, user_id: str, project_id: str) -> AccessKey:
        self.calls.append(("create_keypair", user_id))
        return AccessKey("cred", "KAK", "KSECRET")

    def delete_keypair(self, user_id: str, project_id: str, credential_id: str) -> None:
        self.calls.append(("delete_keypair", user_id, credential_id))

    def delete_user(self, user_id: str, project_id: str) -> None:
        self.calls.append(("delete_user", user_id))

    def enable_user(self, user_id: str, project_id: str, enabled: bool) -> None:
        self.calls.append(("enable_user", user_id, str(enabled)))


def test_keystone_mode_user_with_a_password_its_keypair_alone_then_the_user() -> None:
    domain, store, ctx = _Domain(), _Store(), FakeContext()

    def keystone(data: object) -> KeystoneStackUser:
        return KeystoneStackUser(domain, "uproj", ctx, store,  # type: ignore[arg-type]
                                 OWNER, "my stack-user-abc")

    endpoints = EngineSignalEndpoints(store, EngineOptions(), ctx, OWNER, lambda: NOW,
                                      keystone)
    assert endpoints.create_stack_user("given-pw") == "uid"
    assert domain.calls == [("create_user", "my stack-user-abc", "uproj", "given-pw")]
    assert endpoints.stack_user_credentials() == ("KAK", "KSECRET")
    assert store.recorded == ["KAK"]
    endpoints.enable_stack_user(False)
    endpoints.forget_keypair()
    assert domain.calls[1:] == [("create_keypair", "uid"), ("enable_user", "uid", "False"),
                                ("delete_keypair", "uid", "cred")]
    assert store.forgotten_keys == ["KAK"]
    assert ctx.stored == {"user_id": "uid", "password": "given-pw"}
    endpoints.forget_signal_credentials()
    assert domain.calls[-1] == ("delete_user", "uid")
    assert ctx.stored == {} and set(store.forgotten) == {OWNER.resource_id}
