"""The CFN-compatible API over real HTTP: signatures checked, DescribeStackResource as
os-collect-config's cfn source reads it, signals reaching the engine.

The agent's requests are signed here with keystoneclient's ``Ec2Signer``, the
signer os-collect-config's cfn source uses, not with hotplate's own code.
"""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from xml.etree import ElementTree

import httpx
import pytest

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer, free_port
from hotplate.api_cfn import create_cfn_app
from hotplate.app import Engine, embedded
from hotplate.engine.options import EngineOptions
from hotplate.model.ids import StackId
from hotplate.model.stack_users import ResourceOwner
from tests.api.conftest import Api
from tests.api.helpers import create_complete, wait_status

ec2_utils = pytest.importorskip("keystoneclient.contrib.ec2.utils")

VERSION = "2016-10-14"
SERVER = {"heat_template_version": VERSION,
          "resources": {"server": {"type": "OS::Heat::DeployedServer",
                                   "metadata": {"from_template": 1}}},
          "outputs": {"occ": {"value": {"get_attr": ["server", "os_collect_config"]}},
                      "name": {"value": {"get_attr": ["server", "name"]}}}}
GROUP = {"heat_template_version": VERSION, "resources": {
    "group": {"type": "OS::Heat::AutoScalingGroup",
              "properties": {"min_size": 1, "max_size": 3,
                             "resource": {"type": "OS::Heat::None"}}},
    "up": {"type": "OS::Heat::ScalingPolicy",
           "properties": {"adjustment_type": "change_in_capacity", "cooldown": 0,
                          "auto_scaling_group_id": {"get_resource": "group"},
                          "scaling_adjustment": 1}}}}


class Served:
    def __init__(self, api: Api, cfn: str, engine: Engine) -> None:
        self.api, self.cfn, self.engine = api, cfn, engine


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = Path(tmp_path_factory.mktemp("cfn")) / "hotplate.sqlite"
    port = free_port()
    options = EngineOptions(heat_metadata_server_url=f"http://127.0.0.1:{port}/v1/",
                            heat_waitcondition_server_url=(
                                f"http://127.0.0.1:{port}/v1/waitcondition"))
    engine, transport = embedded(f"sqlite:///{db}", workers=8, options=options)
    rpc = EngineRpc(transport, host=engine.deps.host)
    try:
        with BackgroundServer(create_app(rpc)) as base, \
                BackgroundServer(create_cfn_app(rpc, engine.deps.store),  # type: ignore[arg-type]
                                 port=port) as cfn:
            yield Served(Api(base), cfn, engine)
    finally:
        engine.stop()
        transport.stop()


def _signed_describe(cfn: dict[str, Any], *, secret: str | None = None,
                     resource: str | None = None) -> httpx.Response:
    """What os-collect-config's cfn source sends (its signing, its parameters)."""
    url = urlsplit(cfn["metadata_url"])
    params = {
        "SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
        "AWSAccessKeyId": cfn["access_key_id"],
        "Timestamp": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "Action": "DescribeStackResource", "StackName": cfn["stack_name"],
        "LogicalResourceId": resource or cfn["path"].split(".")[0],
    }
    signer = ec2_utils.Ec2Signer(secret or cfn["secret_access_key"])
    params["Signature"] = signer.generate(
        {"params": params, "verb": "GET", "host": url.netloc, "path": url.path})
    return httpx.get(cfn["metadata_url"], params=params, timeout=10)


def _outputs(hc: Any, stack_id: str) -> dict[str, Any]:
    stack = hc.stacks.get(stack_id)
    return {o["output_key"]: o["output_value"] for o in stack.outputs}


def _error_code(response: httpx.Response) -> str | None:
    return ElementTree.fromstring(response.content).findtext("Error/Code")


def test_deployed_server_collector_config_and_metadata(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, SERVER, name="occ")
    out = _outputs(hc, stack_id)
    occ = out["occ"]
    assert occ["collectors"] == ["cfn", "local"]
    cfn = occ["cfn"]
    assert cfn["metadata_url"] == f"{served.cfn}/v1/"
    assert cfn["stack_name"] == "occ" and cfn["path"] == "server.Metadata"
    assert out["name"].startswith("occ-server-")

    answer = _signed_describe(cfn)
    assert answer.status_code == 200, answer.text
    tree = ElementTree.fromstring(answer.content)
    assert tree.tag == "DescribeStackResourceResponse"
    detail = tree.find("DescribeStackResourceResult/StackResourceDetail")
    assert detail is not None
    assert detail.findtext("LogicalResourceId") == "server"
    assert detail.findtext("ResourceStatus") == "CREATE_COMPLETE"
    assert detail.findtext("ResourceType") == "OS::Heat::DeployedServer"
    metadata = json.loads(detail.findtext("Metadata") or "")
    assert metadata["from_template"] == 1
    assert metadata["deployments"] == []
    assert metadata["os-collect-config"]["cfn"]["access_key_id"] == cfn["access_key_id"]

    # The secret is kept redacted in resource_data, under Heat's names.
    row = next(r for r in served.engine.deps.store.list_resources(StackId(stack_id))
               if r.name == "server")
    data = served.engine.deps.store.get_resource_data(row.id)
    assert data["access_key"] == cfn["access_key_id"]
    assert data["secret_key"] == cfn["secret_access_key"]


def test_wrong_forged_and_unsigned_requests_are_refused(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, SERVER, name="forged")
    cfn = _outputs(hc, stack_id)["occ"]["cfn"]

    wrong = _signed_describe(cfn, secret="not-the-secret")
    assert wrong.status_code == 403
    assert _error_code(wrong) == "SignatureDoesNotMatch"

    unsigned = httpx.get(cfn["metadata_url"], params={
        "Action": "DescribeStackResource", "StackName": "forged",
        "LogicalResourceId": "server"}, timeout=10)
    assert unsigned.status_code == 403
    assert _error_code(unsigned) == "MissingAuthenticationToken"

    unknown = _signed_describe({**cfn, "access_key_id": "NOSUCHKEY"})
    assert unknown.status_code == 403

    # A valid key may read only its own resource.
    other = _signed_describe(cfn, resource="elsewhere")
    assert other.status_code == 403
    assert _error_code(other) == "AccessDenied"


def _policy_key(served: Served, stack_id: str, name: str) -> Any:
    store = served.engine.deps.store
    row = next(r for r in store.list_resources(StackId(stack_id)) if r.name == name)
    stack = served.api.client().stacks.get(stack_id)
    return store.stack_user_key(ResourceOwner(row.id, stack_id, stack.stack_name, name,
                                              "admin"))


def _presigned(served: Served, key: Any, kind: str) -> str:
    from hotplate.engine.hosting.signal_endpoints import presigned_url, resource_arn

    arn = resource_arn(key.project, key.stack_name, key.stack_id, key.resource_name)
    return presigned_url(f"{served.cfn}/v1/waitcondition", kind,  # type: ignore[arg-type]
                         arn, key.access_key, key.secret,
                         datetime.datetime.now(datetime.UTC))


def _group_size(served: Served, stack_id: str) -> int:
    hc = served.api.client()
    group = hc.resources.get(stack_id, "group")
    nested = hc.stacks.get(group.physical_resource_id)
    return len(hc.resources.list(nested.id))


def test_a_presigned_signal_url_signals_and_a_forged_one_changes_nothing(
        served: Served) -> None:
    stack_id = create_complete(served.api.client(), GROUP, name="scaled")
    key = _policy_key(served, stack_id, "up")
    url = _presigned(served, key, "signal")
    assert url.startswith(f"{served.cfn}/v1/signal/arn%3Aopenstack%3Aheat%3A%3Aadmin%3A"
                          f"stacks/scaled/{stack_id}/resources/up?")

    forged = httpx.post(url.replace("Signature=", "Signature=x"), json={}, timeout=10)
    assert forged.status_code == 403
    assert _error_code(forged) == "SignatureDoesNotMatch"
    other_stack = httpx.post(url.replace("/resources/up", "/resources/group"), json={},
                             timeout=10)
    assert other_stack.status_code == 403
    assert _group_size(served, stack_id) == 1

    # cfn-signal and curl send the URL as given, with a JSON body.
    sent = httpx.post(url, content=b'{"Status": "SUCCESS"}',
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert sent.status_code == 200, sent.text
    start = time.monotonic()
    while _group_size(served, stack_id) != 2 and time.monotonic() - start < 30:
        time.sleep(0.1)
    assert _group_size(served, stack_id) == 2
    assert wait_status(served.api.client(), stack_id).stack_status.endswith("COMPLETE")


WAIT = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
    "handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
    "wait": {"Type": "AWS::CloudFormation::WaitCondition",
             "Properties": {"Handle": {"Ref": "handle"}, "Timeout": "60", "Count": "1"}}},
    "Outputs": {"url": {"Value": {"Ref": "handle"}},
                "data": {"Value": {"Fn::GetAtt": ["wait", "Data"]}}}}


def test_a_wait_condition_completes_through_its_presigned_url(served: Served) -> None:
    hc = served.api.client()
    created = hc.stacks.create(stack_name="waiting", template=WAIT)
    stack_id = created["stack"]["id"]
    start = time.monotonic()
    while True:
        url = next((o["output_value"] for o in hc.stacks.get(stack_id).outputs or []
                    if o["output_key"] == "url" and o.get("output_value")), None)
        if (url and url.startswith("http")) or time.monotonic() - start > 30:
            break
        time.sleep(0.1)
    assert url is not None and "/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3A" in url

    forged = httpx.put(url.replace("Signature=", "Signature=A"), json={}, timeout=10)
    assert forged.status_code == 403

    # As cfn-signal sends it: PUT, a JSON body, no content type.
    body = {"Status": "SUCCESS", "Reason": "configured", "UniqueId": "1", "Data": "done"}
    sent = httpx.put(url, content=json.dumps(body).encode(), headers={"Content-Type": ""},
                     timeout=10)
    assert sent.status_code == 200, sent.text
    assert sent.json()["resource"] == "handle"
    assert "1" in sent.json()["metadata"]
    stack = wait_status(hc, stack_id, timeout=30)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert json.loads(_outputs(hc, stack_id)["data"]) == {"1": "done"}


def test_sigv4_and_form_posted_requests_are_checked(served: Served) -> None:
    hc = served.api.client()
    stack_id = create_complete(hc, SERVER, name="v4")
    cfn = _outputs(hc, stack_id)["occ"]["cfn"]
    url = urlsplit(cfn["metadata_url"])
    params = {"Action": "DescribeStackResource", "StackName": "v4",
              "LogicalResourceId": "server"}
    date = datetime.datetime.now(datetime.UTC)
    amz_date = date.strftime("%Y%m%dT%H%M%SZ")
    credential = f"{cfn['access_key_id']}/{date:%Y%m%d}/RegionOne/cloudformation/aws4_request"
    headers = {"Host": url.netloc, "X-Amz-Date": amz_date,
               "Authorization": f"AWS4-HMAC-SHA256 Credential={credential}, "
                                "SignedHeaders=host;x-amz-date, Signature=?"}
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    signature = ec2_utils.Ec2Signer(cfn["secret_access_key"]).generate(
        {"params": params, "verb": "GET", "host": url.netloc, "path": url.path,
         "headers": headers, "body_hash": empty})
    headers["Authorization"] = headers["Authorization"].replace("?", signature)
    answer = httpx.get(cfn["metadata_url"], params=params, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    tampered = httpx.get(cfn["metadata_url"], params={**params, "StackName": "other"},
                         headers=headers, timeout=10)
    assert tampered.status_code == 403
    assert _error_code(tampered) == "SignatureDoesNotMatch"

    # boto's CloudFormation client: SigV2 parameters in a form-encoded POST body.
    form = {**params, "SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
            "AWSAccessKeyId": cfn["access_key_id"],
            "Timestamp": date.strftime("%Y-%m-%dT%H:%M:%SZ")}
    form["Signature"] = ec2_utils.Ec2Signer(cfn["secret_access_key"]).generate(
        {"params": dict(form), "verb": "POST", "host": url.netloc, "path": url.path})
    posted = httpx.post(cfn["metadata_url"], data=form, timeout=10)
    assert posted.status_code == 200, posted.text
    assert httpx.post(cfn["metadata_url"], data={**form, "LogicalResourceId": "x"},
                      timeout=10).status_code == 403


def test_a_key_keystone_holds_is_never_checked_here(served: Served) -> None:
    """A Keystone-mode key is recorded with no secret: a request signed with an empty
    secret is refused when the API has no Keystone to ask, and nothing is signalled."""
    hc = served.api.client()
    template = {**SERVER, "resources": {**SERVER["resources"],
                                        "other": {"type": "OS::Heat::None"}}}
    stack_id = create_complete(hc, template, name="keystone-held")
    store = served.engine.deps.store
    row = next(r for r in store.list_resources(StackId(stack_id)) if r.name == "other")
    store.record_stack_user_key(
        ResourceOwner(row.id, stack_id, "keystone-held", "other", "admin"), "KEYSTONEKEY")
    cfn = {**_outputs(hc, stack_id)["occ"]["cfn"], "access_key_id": "KEYSTONEKEY"}
    signer = ec2_utils.Ec2Signer("")
    url = urlsplit(cfn["metadata_url"])
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": "KEYSTONEKEY", "Action": "DescribeStackResource",
              "StackName": "keystone-held", "LogicalResourceId": "other"}
    params["Signature"] = signer.generate(
        {"params": params, "verb": "GET", "host": url.netloc, "path": url.path})
    refused = httpx.get(cfn["metadata_url"], params=params, timeout=10)
    assert refused.status_code == 403
    assert _error_code(refused) == "AccessDenied"
