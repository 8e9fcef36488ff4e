"""AWS::IAM::User, AccessKey and OS::Heat::AccessPolicy against the project's real Keystone.

hotplate serves in Keystone mode with a stack user domain; the tests drive it with
the unchanged openstack CLI. An IAM user is a user of the stack domain in the
stack's project (its ``LoginProfile`` password logs in), its access key an ``ec2``
credential of that user; the key signs the CFN API's ``DescribeStackResource`` as
an agent does (keystoneclient's ``Ec2Signer``), Keystone checks the signature
(``ec2tokens``) and the engine allows what the user's policy allows. Deleting the
key removes the credential, not the user; replacing the user makes a new key; the
stack's delete leaves Keystone as it was.
"""

from __future__ import annotations

import datetime
import json
import time
import uuid
from typing import Any
from xml.etree import ElementTree

import httpx
import pytest

from tests.cloud.locate import Cloud
from tests.cloud.serving import CFN_PORT, Serving
from tests.cloud.stacks import (
    STACK_DOMAIN,
    cli,
    delete_stack,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
)

ec2_utils = pytest.importorskip("keystoneclient.contrib.ec2.utils")

PASSWORD = "Iam-Pass-1!" + uuid.uuid4().hex[:8]
METADATA_URL = f"http://127.0.0.1:{CFN_PORT}/v1/"
GONE_WAIT = 60.0


def _iam(with_key: bool = True, path: str = "/") -> str:
    key = ("  key:\n    Type: AWS::IAM::AccessKey\n"
           "    Properties: {UserName: {Ref: user}}\n") if with_key else ""
    outputs = ("Outputs:\n  access: {Value: {Ref: key}}\n"
               "  secret: {Value: {'Fn::GetAtt': [key, SecretAccessKey]}}\n"
               "  user_name: {Value: {'Fn::GetAtt': [key, UserName]}}\n") if with_key else ""
    return f"""AWSTemplateFormatVersion: '2010-09-09'
Resources:
  policy:
    Type: OS::Heat::AccessPolicy
    Properties: {{AllowedResources: [server]}}
  user:
    Type: AWS::IAM::User
    Properties:
      Path: {path}
      LoginProfile: {{Password: '{PASSWORD}'}}
      Policies: [{{Ref: policy}}]
{key}  server:
    Type: OS::Heat::None
  other:
    Type: OS::Heat::None
{outputs}"""

def _describe(access: str, secret: str, stack: str, resource: str) -> httpx.Response:
    """DescribeStackResource signed as os-collect-config's cfn source signs it."""
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": access,
              "Timestamp": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "Action": "DescribeStackResource", "StackName": stack,
              "LogicalResourceId": resource}
    params["Signature"] = ec2_utils.Ec2Signer(secret).generate(
        {"params": params, "verb": "GET", "host": f"127.0.0.1:{CFN_PORT}", "path": "/v1/"})
    return httpx.get(METADATA_URL, params=params, timeout=60)


def _code(response: httpx.Response) -> str | None:
    return ElementTree.fromstring(response.content).findtext("Error/Code")


def _user_project(admin_conn: Any, shown: dict[str, Any]) -> str:
    domain = admin_conn.identity.find_domain(STACK_DOMAIN, ignore_missing=False)
    name = f"{shown['parameters']['OS::project_id']}-{shown['id']}"[:64]
    found = [p.id for p in admin_conn.identity.projects(domain_id=domain.id) if p.name == name]
    assert len(found) == 1, "no stack user project"
    return str(found[0])


def _users(admin_conn: Any, project: str) -> dict[str, Any]:
    domain = admin_conn.identity.find_domain(STACK_DOMAIN, ignore_missing=False)
    return {u.id: u for u in admin_conn.identity.users(domain_id=domain.id)
            if u.default_project_id == project}


def _credentials(admin_conn: Any, project: str) -> dict[str, str]:
    """The project's ec2 credentials: access key -> owner's user id."""
    return {json.loads(c.blob)["access"]: c.user_id
            for c in admin_conn.identity.credentials() if c.project_id == project}


def _eventually(check: Any, what: str) -> None:
    deadline = time.monotonic() + GONE_WAIT
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(1.0)


def _login(cloud: Cloud, user_id: str, project: str) -> str:
    from keystoneauth1 import session
    from keystoneauth1.identity import v3

    auth = v3.Password(auth_url=cloud.auth_url, user_id=user_id, password=PASSWORD,
                       project_id=project)
    return str(auth.get_token(session.Session(auth=auth)))


def test_an_iam_users_key_its_policy_and_their_lifecycle(
        served: Serving, cloud: Cloud, admin_conn: Any) -> None:
    name = f"iam-{uuid.uuid4().hex[:8]}"
    try:
        assert stack_action(served, "create", "-t", template_file(served, _iam()), name,
                            stack=name) == "CREATE_COMPLETE"
        shown = show_stack(served, name)
        out, physical = outputs_of(shown), physical_ids(served, name)
        project = _user_project(admin_conn, shown)
        users = _users(admin_conn, project)
        user_id = physical["user"]
        assert set(users) == {user_id}
        assert users[user_id].name == out["user_name"]  # the user's reference: its name
        assert out["user_name"].startswith(f"{name}-user-")
        assert physical["key"] == out["access"]
        assert _credentials(admin_conn, project) == {out["access"]: user_id}
        assert _login(cloud, user_id, project)  # LoginProfile's password

        allowed = _describe(out["access"], out["secret"], name, "server")
        assert allowed.status_code == 200, allowed.text + served.log.read_text()[-3000:]
        assert b"<LogicalResourceId>server</LogicalResourceId>" in allowed.content
        for refused in ("other", "user"):
            answer = _describe(out["access"], out["secret"], name, refused)
            assert answer.status_code == 403, refused
            assert _code(answer) == "AccessDenied"
        forged = _describe(out["access"], out["secret"] + "x", name, "server")
        assert forged.status_code == 403

        # The key goes, the user stays.
        assert stack_action(served, "update", "-t", template_file(served, _iam(with_key=False)),
                            name, stack=name) == "UPDATE_COMPLETE"
        assert _credentials(admin_conn, project) == {}
        assert set(_users(admin_conn, project)) == {user_id}
        assert _describe(out["access"], out["secret"], name, "server").status_code == 403

        # A key again, its user replaced: the old user (and its keys) go.
        assert stack_action(served, "update", "-t", template_file(served, _iam(path="/other/")),
                            name, stack=name) == "UPDATE_COMPLETE"
        new_out, new_physical = outputs_of(show_stack(served, name)), physical_ids(served, name)
        assert new_physical["user"] != user_id
        assert set(_users(admin_conn, project)) == {new_physical["user"]}
        assert _credentials(admin_conn, project) == {new_out["access"]: new_physical["user"]}
        assert _describe(new_out["access"], new_out["secret"], name,
                         "server").status_code == 200
        assert _describe(new_out["access"], new_out["secret"], name,
                         "other").status_code == 403

        # An access key whose user is replaced (the key's UserName changes with it).
        assert stack_action(served, "update", "-t", template_file(served, _iam(path="/third/")),
                            name, stack=name) == "UPDATE_COMPLETE"
        third = physical_ids(served, name)
        assert third["key"] != new_physical["key"]
        assert set(_users(admin_conn, project)) == {third["user"]}
        assert list(_credentials(admin_conn, project).values()) == [third["user"]]

        # Suspended, the user is disabled and Keystone refuses its key; resumed, not.
        third_out = outputs_of(show_stack(served, name))
        assert stack_action(served, "suspend", name, stack=name) == "SUSPEND_COMPLETE"
        assert admin_conn.identity.get_user(third["user"]).is_enabled is False
        suspended = _describe(third_out["access"], third_out["secret"], name, "server")
        assert suspended.status_code == 403
        assert stack_action(served, "resume", name, stack=name) == "RESUME_COMPLETE"
        assert admin_conn.identity.get_user(third["user"]).is_enabled is True
        assert _describe(third_out["access"], third_out["secret"], name,
                         "server").status_code == 200

        assert stack_action(served, "delete", name, stack=name) == "DELETE_COMPLETE"
        domain = admin_conn.identity.find_domain(STACK_DOMAIN, ignore_missing=False)
        _eventually(lambda: not [p for p in admin_conn.identity.projects(domain_id=domain.id)
                                 if p.id == project], "the stack user project outlived it")
        assert _users(admin_conn, project) == {}
        assert _credentials(admin_conn, project) == {}
    finally:
        delete_stack(served, name)


def test_an_access_key_of_an_unknown_user_fails_in_heats_words(
        served: Serving, admin_conn: Any) -> None:
    name = f"iam-{uuid.uuid4().hex[:8]}"
    template = """heat_template_version: 2013-05-23
resources:
  key:
    type: AWS::IAM::AccessKey
    properties: {UserName: nosuch}
"""
    try:
        assert stack_action(served, "create", "-t", template_file(served, template), name,
                            stack=name) == "CREATE_FAILED"
        shown = show_stack(served, name)
        assert shown["stack_status_reason"] == (
            "Resource CREATE failed: NotFound: resources.key: could not find user nosuch")
        outside = cli(served, "stack", "create", "-t", template_file(served, """\
heat_template_version: 2013-05-23
resources:
  policy:
    type: OS::Heat::AccessPolicy
    properties: {AllowedResources: [elsewhere]}
"""), f"{name}-v", check=False)
        assert outside.returncode != 0
        assert "AccessPolicy resource elsewhere not in stack" in outside.stderr
    finally:
        delete_stack(served, name)
