"""AWS::IAM::User, AWS::IAM::AccessKey and OS::Heat::AccessPolicy over a fake context:
Heat's schemas, checks, texts and ``access_allowed``, and which stack-user calls each
handler makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from hotplate.engine.service.stack_user_access import ec2_access_key
from hotplate.model.errors import StackValidationFailed
from hotplate.resources import Resource
from hotplate.resources.access_policy import AccessPolicy
from hotplate.resources.attributes import InvalidTemplateAttribute
from hotplate.resources.aws.iam import AccessKey, NotFound, User
from hotplate.resources.none import NoneResource
from tests.unit.resources.fakes import FakeContext, make


@dataclass
class _Ctx(FakeContext):
    """A resource's context with its peers and stack-user calls recorded."""

    peers: dict[str, Resource] = field(default_factory=dict)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    keystone_id: str | None = None

    def resource_by_reference(self, reference: str) -> Resource | None:
        for name, peer in self.peers.items():
            if reference in (name, peer.get_reference_id()):
                return peer
        return None

    def cfn_signal_url(self, kind: str) -> str:  # what marks a context with endpoints
        raise AssertionError("not asked for")

    def create_stack_user(self, password: str | None = None) -> str | None:
        self.calls.append(("create_stack_user", password))
        return self.keystone_id

    def stack_user_credentials(self) -> tuple[str, str]:
        self.calls.append(("stack_user_credentials", None))
        self.data_set("access_key", "AKID", redact=True)
        return "AKID", "SECRET"

    def forget_keypair(self) -> None:
        self.calls.append(("forget_keypair", None))
        self.data_delete("access_key")

    def forget_signal_credentials(self) -> None:
        self.calls.append(("forget_signal_credentials", None))

    def enable_stack_user(self, enabled: bool) -> None:
        self.calls.append(("enable_stack_user", enabled))


def _stack(policies: Any = None, allowed: tuple[str, ...] = ("server",),
           keystone_id: str | None = None) -> tuple[User, AccessKey, _Ctx, _Ctx]:
    peers: dict[str, Resource] = {}
    policy = make(AccessPolicy, {"AllowedResources": list(allowed)}, name="policy",
                  ctx=_Ctx(resource_name="policy", peers=peers))
    other = make(NoneResource, {}, name="other", ctx=_Ctx(resource_name="other"))
    user_ctx = _Ctx(resource_name="user", peers=peers, keystone_id=keystone_id)
    raw = {"LoginProfile": {"Password": "pw"}}
    if policies is not None:
        raw["Policies"] = policies
    user = make(User, raw, name="user", ctx=user_ctx)
    peers.update(policy=policy, other=other, user=user)
    key_ctx = _Ctx(resource_name="key", peers=peers)
    key = make(AccessKey, {"UserName": user.get_reference_id()}, name="key", ctx=key_ctx)
    assert isinstance(user, User) and isinstance(key, AccessKey)
    return user, key, user_ctx, key_ctx


def test_a_user_is_made_with_its_password_and_named_by_its_physical_name() -> None:
    user, _, ctx, _ = _stack(["policy"])
    user.handle_create()
    assert ctx.calls == [("create_stack_user", "pw")]
    assert user.resource_id == user.get_reference_id() == "teststack-user-abcdefghijkl"

    keystone_user, _, ctx, _ = _stack(keystone_id="k-user-id")
    keystone_user.handle_create()
    assert keystone_user.resource_id == "k-user-id"
    assert keystone_user.get_reference_id() == "teststack-user-abcdefghijkl"
    keystone_user.handle_suspend()
    keystone_user.handle_resume()
    keystone_user.handle_delete()
    assert ctx.calls[1:] == [("enable_stack_user", False), ("enable_stack_user", True),
                             ("forget_signal_credentials", None)]


@pytest.mark.parametrize("policies", [["nosuch"], ["other"]])
def test_a_policy_that_is_no_access_policy_fails_the_create(policies: list[str]) -> None:
    user, _, ctx, _ = _stack(policies)
    with pytest.raises(InvalidTemplateAttribute) as caught:
        user.handle_create()
    assert str(caught.value) == "The Referenced Attribute (user Policies) is incorrect."
    assert ctx.calls == []


def test_access_is_what_every_policy_allows_and_anything_without_one() -> None:
    user, *_ = _stack(["policy"])
    assert user.access_allowed("server") and not user.access_allowed("other")
    open_user, *_ = _stack()
    assert open_user.access_allowed("other") and open_user.access_allowed("anything")
    ignored, *_ = _stack([{"PolicyName": "embedded"}, "policy"])  # Heat ignores a non-string
    ignored.handle_create()
    assert ignored.access_allowed("server") and not ignored.access_allowed("other")
    gone, *_ = _stack(["nosuch"])
    assert not gone.access_allowed("server")


def test_an_access_policy_names_resources_of_its_stack() -> None:
    path = ("resources", "policy", "properties")
    props = AccessPolicy.validate({"AllowedResources": ["a", "b"]}, path)
    AccessPolicy.check_in_stack(props, path, frozenset({"a", "b", "policy"}))
    with pytest.raises(StackValidationFailed) as caught:
        AccessPolicy.check_in_stack(props, path, frozenset({"a", "policy"}))
    assert str(caught.value) == "AccessPolicy resource b not in stack"
    with pytest.raises(StackValidationFailed, match="AllowedResources"):
        AccessPolicy.validate({}, path)


def test_an_access_key_makes_its_users_keypair_and_deletes_only_that() -> None:
    user, key, user_ctx, key_ctx = _stack(["policy"])
    assert key.get_attribute("SecretAccessKey") == "000-000-000"
    key.handle_create()
    assert user_ctx.calls == [("stack_user_credentials", None)]
    assert key.resource_id == "AKID"
    assert key.get_attribute("SecretAccessKey") == "SECRET"
    assert key.get_attribute("UserName") == user.get_reference_id()
    assert "secret_key" in key_ctx.redacted
    key.handle_delete()
    assert user_ctx.calls[-1] == ("forget_keypair", None)


def test_an_access_key_whose_user_is_gone_or_rekeyed_deletes_nothing() -> None:
    user, key, user_ctx, _ = _stack()
    key.resource_id = "AKID"
    user_ctx.stored["access_key"] = "ANOTHER"  # the user's keypair is another key's
    key.handle_delete()
    lost = make(AccessKey, {"UserName": "nosuch"}, name="key",
                ctx=_Ctx(resource_name="key", peers={"user": user}), resource_id="AKID")
    lost.handle_delete()
    assert user_ctx.calls == []
    with pytest.raises(NotFound, match=r"^could not find user nosuch$"):
        lost.handle_create()


def test_an_access_keys_unimplemented_properties_are_refused() -> None:
    path = ("resources", "key", "properties")
    for name, value in (("Serial", 1), ("Status", "Active")):
        with pytest.raises(StackValidationFailed, match=f"Property {name} not implemented yet"):
            AccessKey.validate({"UserName": "u", name: value}, path)
    with pytest.raises(StackValidationFailed, match="UserName"):
        AccessKey.validate({}, path)


@pytest.mark.parametrize(("creds", "access"), [
    ('{"ec2Credentials": {"access": "AK"}}', "AK"),
    ('{"ec2Credentials": {}}', None), ("not json", None), (None, None), ('["AK"]', None),
])
def test_the_access_key_of_a_context(creds: Any, access: str | None) -> None:
    assert ec2_access_key({"aws_creds": creds}) == access
