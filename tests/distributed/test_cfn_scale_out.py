"""``hotplate api-cfn`` for scale-out: the CFN API in a process of its own, reaching a
``hotplate engine`` over RabbitMQ and checking signatures against the shared database."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from xml.etree import ElementTree

import httpx
import pytest

from hotplate.api.background import free_port
from tests.api.helpers import wait_status, wait_until_serving
from tests.distributed.databases import drop_database, fresh_postgres_database
from tests.real_services import POSTGRES, url_or_skip

pytestmark = pytest.mark.timeout(240)
ec2_utils = pytest.importorskip("keystoneclient.contrib.ec2.utils")

SERVER = {"heat_template_version": "2016-10-14",
          "resources": {"server": {"type": "OS::Heat::DeployedServer"}},
          "outputs": {"occ": {"value": {"get_attr": ["server", "os_collect_config"]}}}}


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("w") as sink:
        return subprocess.Popen([sys.executable, "-m", "hotplate.cli.main", *args], env=env,
                                stdout=subprocess.PIPE, stderr=sink, text=True)


def _line(proc: subprocess.Popen[str], log: Path) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, f"process ended: {log.read_text()}"
    return line


@pytest.fixture(scope="module")
def cfn_db_url() -> Iterator[str]:
    """A database of this module's own: ``hotplate api`` prints its admin token only on
    a database's first start, and the other distributed tests' API needs that start."""
    server = url_or_skip(POSTGRES)
    yield fresh_postgres_database(server, "hotplate_cfn_scale_out")
    drop_database(server, "hotplate_cfn_scale_out")


@pytest.fixture(scope="module")
def cluster(broker_url: str, cfn_db_url: str,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, int]]:
    root = tmp_path_factory.mktemp("cfn")
    cfn_port, port = free_port(), free_port()
    env = {**os.environ, "HOTPLATE_DB_URL": cfn_db_url,
           "HOTPLATE_TRANSPORT_URL": broker_url,
           "HOTPLATE_HEAT_METADATA_SERVER_URL": f"http://127.0.0.1:{cfn_port}"}
    procs: list[subprocess.Popen[str]] = []
    try:
        engine = _start(["engine", "--workers", "1", "--threads", "4"], env, root / "e.log")
        procs.append(engine)
        _line(engine, root / "e.log")
        api = _start(["api", "--port", str(port)], env, root / "api.log")
        procs.append(api)
        _line(api, root / "api.log")
        words = (_line(api, root / "api.log") + _line(api, root / "api.log")).split()
        cfn = _start(["api-cfn", "--cfn-port", str(cfn_port)], env, root / "cfn.log")
        procs.append(cfn)
        assert _line(cfn, root / "cfn.log").strip() == (
            f"hotplate CFN API at http://127.0.0.1:{cfn_port}/v1/")
        wait_until_serving(f"http://127.0.0.1:{port}/", api, timeout=30,
                           log=(root / "api.log").read_text)
        from heatclient.client import Client

        hc = Client("1", endpoint=words[words.index("--os-endpoint") + 1],
                    token=words[words.index("--os-token") + 1])
        yield hc, cfn_port
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                assert proc.wait(30) == 0
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()


def _describe(cfn: dict[str, str], secret: str) -> httpx.Response:
    url = urlsplit(cfn["metadata_url"])
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": cfn["access_key_id"],
              "Timestamp": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "Action": "DescribeStackResource", "StackName": cfn["stack_name"],
              "LogicalResourceId": "server"}
    params["Signature"] = ec2_utils.Ec2Signer(secret).generate(
        {"params": params, "verb": "GET", "host": url.netloc, "path": url.path})
    deadline = time.monotonic() + 20
    while True:
        try:
            return httpx.get(cfn["metadata_url"], params=params, timeout=10)
        except httpx.TransportError:
            assert time.monotonic() < deadline
            time.sleep(0.2)


def test_api_cfn_answers_metadata_over_the_broker(cluster: tuple[Any, int]) -> None:
    hc, cfn_port = cluster
    hc.stacks.create(stack_name="scaled-occ", template=SERVER)
    assert wait_status(hc, "scaled-occ", timeout=60).stack_status == "CREATE_COMPLETE"
    occ = hc.stacks.output_show("scaled-occ", "occ")["output"]["output_value"]
    cfn = occ["cfn"]
    assert cfn["metadata_url"] == f"http://127.0.0.1:{cfn_port}/v1/"
    answer = _describe(cfn, cfn["secret_access_key"])
    assert answer.status_code == 200, answer.text
    metadata = ElementTree.fromstring(answer.content).findtext(
        "DescribeStackResourceResult/StackResourceDetail/Metadata")
    assert json.loads(metadata or "")["os-collect-config"] == occ
    wrong = _describe(cfn, "not-the-secret")
    assert wrong.status_code == 403
