"""AWS::IAM::User, AccessKey and OS::Heat::AccessPolicy, standalone, through the CFN API.

The key an AccessKey makes signs DescribeStackResource requests as an agent
(keystoneclient's ``Ec2Signer``); what it may describe is what its user's
policies allow, as Heat's ``access_allowed`` decides. Deleting the key (or the
stack) leaves the key good for nothing.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hotplate.model.ids import StackId
from tests.api.helpers import create_complete, output_values, update_complete, wait_status
from tests.api.test_cfn_api import Served, _error_code, _signed_describe, served

__all__ = ["served"]  # the module's fixture, shared

pytest.importorskip("keystoneclient.contrib.ec2.utils")

CFN = "2010-09-09"


def _template(policies: Any = None, *, allowed: tuple[str, ...] = ("server",),
              with_key: bool = True, user_props: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    user: dict[str, Any] = {"Type": "AWS::IAM::User", "Properties": dict(user_props or {})}
    if policies is not None:
        user["Properties"]["Policies"] = policies
    resources: dict[str, Any] = {
        "policy": {"Type": "OS::Heat::AccessPolicy",
                   "Properties": {"AllowedResources": list(allowed)}},
        "user": user,
        "server": {"Type": "OS::Heat::None"},
        "other": {"Type": "OS::Heat::None"},
    }
    outputs: dict[str, Any] = {}
    if with_key:
        resources["key"] = {"Type": "AWS::IAM::AccessKey",
                            "Properties": {"UserName": {"Ref": "user"}}}
        outputs = {"access": {"Value": {"Ref": "key"}},
                   "secret": {"Value": {"Fn::GetAtt": ["key", "SecretAccessKey"]}},
                   "user_name": {"Value": {"Fn::GetAtt": ["key", "UserName"]}},
                   "user": {"Value": {"Ref": "user"}}}
    return {"AWSTemplateFormatVersion": CFN, "Resources": resources, "Outputs": outputs}


def _keys(served: Served, stack_id: str, name: str) -> dict[str, Any]:
    hc = served.api.client()
    out = output_values(hc.stacks.get(stack_id))
    return {"metadata_url": f"{served.cfn}/v1/", "access_key_id": out["access"],
            "secret_access_key": out["secret"], "stack_name": name, "path": "server.Metadata",
            "outputs": out}


def _describe(keys: dict[str, Any], resource: str) -> httpx.Response:
    return _signed_describe(keys, resource=resource)


def test_a_key_describes_what_its_users_policy_allows(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, _template([{"Ref": "policy"}]), name="iam-allowed")
    keys = _keys(served, stack_id, "iam-allowed")
    out = keys["outputs"]
    assert out["user"].startswith("iam-allowed-user-")
    assert out["user_name"] == out["user"]
    assert out["secret"] and out["secret"] != "000-000-000"

    allowed = _describe(keys, "server")
    assert allowed.status_code == 200, allowed.text
    assert b"<LogicalResourceId>server</LogicalResourceId>" in allowed.content
    for refused_name in ("other", "user", "key", "nosuch"):
        refused = _describe(keys, refused_name)
        assert refused.status_code == 403, refused_name
        assert _error_code(refused) == "AccessDenied"

    # The keypair is the user's: recorded in its resource data, under Heat's names.
    store = served.engine.deps.store
    rows = {r.name: r for r in store.list_resources(StackId(stack_id))}
    user_data = store.get_resource_data(rows["user"].id)
    assert user_data["access_key"] == out["access"]
    assert user_data["secret_key"] == out["secret"]
    assert rows["key"].physical_resource_id == out["access"]
    assert rows["user"].physical_resource_id == out["user"]


def test_a_user_without_policies_may_describe_any_resource(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, _template(), name="iam-open")
    keys = _keys(served, stack_id, "iam-open")
    for name in ("server", "other", "user"):
        assert _describe(keys, name).status_code == 200, name
    missing = _describe(keys, "nosuch")  # heat-api-cfn's answer to ResourceNotFound
    assert missing.status_code == 400
    assert _error_code(missing) == "InvalidParameterValue"
    assert b"The Resource (nosuch) could not be found in Stack iam-open." in missing.content


def test_deleting_the_key_keeps_the_user_and_the_stack_takes_both(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, _template([{"Ref": "policy"}]), name="iam-delete")
    keys = _keys(served, stack_id, "iam-delete")
    assert _describe(keys, "server").status_code == 200

    update_complete(hc, stack_id, _template([{"Ref": "policy"}], with_key=False))
    gone = _describe(keys, "server")
    assert gone.status_code == 403
    assert _error_code(gone) == "MissingAuthenticationToken"
    store = served.engine.deps.store
    rows = {r.name: r for r in store.list_resources(StackId(stack_id))}
    assert "key" not in rows
    data = store.get_resource_data(rows["user"].id)
    assert "access_key" not in data and "secret_key" not in data

    update_complete(hc, stack_id, _template([{"Ref": "policy"}]))
    again = _keys(served, stack_id, "iam-delete")
    assert again["access_key_id"] != keys["access_key_id"]
    assert _describe(again, "server").status_code == 200
    hc.stacks.delete(stack_id)
    assert wait_status(hc, stack_id).stack_status == "DELETE_COMPLETE"
    assert store.find_stack_user_key(again["access_key_id"]) is None  # type: ignore[attr-defined]


def test_a_replaced_user_gets_a_new_key_and_the_old_one_stops(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, _template([{"Ref": "policy"}]), name="iam-replace")
    old = _keys(served, stack_id, "iam-replace")
    update_complete(hc, stack_id, _template([{"Ref": "policy"}],
                                            user_props={"Path": "/changed/"}))
    new = _keys(served, stack_id, "iam-replace")
    assert new["outputs"]["user"] != old["outputs"]["user"]
    assert new["access_key_id"] != old["access_key_id"]
    assert _describe(new, "server").status_code == 200
    assert _describe(new, "other").status_code == 403
    assert _error_code(_describe(old, "server")) == "MissingAuthenticationToken"


def test_heats_texts_for_a_bad_policy_and_an_unknown_user(served: Served) -> None:
    hc = served.api.client()
    bad = _template(["other"])  # a resource of the stack, not an access policy
    created = hc.stacks.create(stack_name="iam-bad-policy", template=bad)
    failed = wait_status(hc, created["stack"]["id"])
    assert failed.stack_status == "CREATE_FAILED"
    assert failed.stack_status_reason == (
        "Resource CREATE failed: InvalidTemplateAttribute: resources.user: "
        "The Referenced Attribute (user Policies) is incorrect.")

    lost = _template()
    lost["Resources"]["key"]["Properties"]["UserName"] = "nosuch"
    created = hc.stacks.create(stack_name="iam-no-user", template=lost)
    failed = wait_status(hc, created["stack"]["id"])
    assert failed.stack_status == "CREATE_FAILED"
    assert failed.stack_status_reason == (
        "Resource CREATE failed: NotFound: resources.key: could not find user nosuch")

    outside = _template(allowed=("server", "elsewhere"))
    with pytest.raises(Exception, match="AccessPolicy resource elsewhere not in stack"):
        hc.stacks.create(stack_name="iam-outside", template=outside)
    unimplemented = _template()
    unimplemented["Resources"]["key"]["Properties"]["Serial"] = 1
    with pytest.raises(Exception, match="Property Serial not implemented yet"):
        hc.stacks.create(stack_name="iam-serial", template=unimplemented)
