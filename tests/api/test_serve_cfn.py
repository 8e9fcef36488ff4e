"""``hotplate serve`` serves the CFN-compatible API beside the orchestration API: a
DeployedServer's metadata read through it with the agent's signature, an unsigned
request refused; ``--cfn-port 0`` switches it off."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree

import httpx
import pytest

from hotplate.api.background import free_port
from tests.api.conftest import Api
from tests.api.helpers import wait_status, wait_until_serving

ec2_utils = pytest.importorskip("keystoneclient.contrib.ec2.utils")

SERVER = {"heat_template_version": "2016-10-14",
          "resources": {"server": {"type": "OS::Heat::DeployedServer"}},
          "outputs": {"occ": {"value": {"get_attr": ["server", "os_collect_config"]}}}}


def _serve(tmp_path: Path, port: int, cfn_port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
         "--cfn-port", str(cfn_port), "--data-dir", str(tmp_path / "var"), "--noauth"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    assert proc.wait(20) == 0
    assert proc.stderr is not None
    err = proc.stderr.read()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return err


def _describe(cfn: dict[str, str]) -> httpx.Response:
    url = urlsplit(cfn["metadata_url"])
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": cfn["access_key_id"],
              "Timestamp": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "Action": "DescribeStackResource", "StackName": cfn["stack_name"],
              "LogicalResourceId": "server"}
    params["Signature"] = ec2_utils.Ec2Signer(cfn["secret_access_key"]).generate(
        {"params": params, "verb": "GET", "host": url.netloc, "path": url.path})
    return httpx.get(cfn["metadata_url"], params=params, timeout=10)


def test_serve_answers_describe_stack_resource_on_its_cfn_port(tmp_path: Path) -> None:
    port, cfn_port = free_port(), free_port()
    proc = _serve(tmp_path, port, cfn_port)
    try:
        api = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(f"{api.endpoint}/build_info", proc)
        hc = api.client()
        hc.stacks.create(stack_name="occ", template=SERVER)
        assert wait_status(hc, "occ").stack_status == "CREATE_COMPLETE"
        occ = hc.stacks.output_show("occ", "occ")["output"]["output_value"]
        cfn = occ["cfn"]
        assert cfn["metadata_url"] == f"http://127.0.0.1:{cfn_port}/v1/"
        deadline = time.monotonic() + 10
        while True:
            try:
                answer = _describe(cfn)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert answer.status_code == 200, answer.text
        detail = ElementTree.fromstring(answer.content).find(
            "DescribeStackResourceResult/StackResourceDetail")
        assert detail is not None
        assert json.loads(detail.findtext("Metadata") or "")["os-collect-config"] == occ
        unsigned = httpx.post(f"http://127.0.0.1:{cfn_port}/v1/signal/arn%3Aopenstack",
                              json={}, timeout=10)
        assert unsigned.status_code == 403
    finally:
        err = _stop(proc)
    assert f"hotplate CFN API at http://127.0.0.1:{cfn_port}/v1/" in err


def test_cfn_port_zero_switches_it_off(tmp_path: Path) -> None:
    port = free_port()
    proc = _serve(tmp_path, port, 0)
    try:
        wait_until_serving(f"http://127.0.0.1:{port}/v1/admin/build_info", proc)
    finally:
        err = _stop(proc)
    assert "CFN API" not in err
