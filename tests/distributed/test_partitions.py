"""Network partitions, with real processes: an engine or the API cut off from the
database, the broker or both, for longer than an engine's lease, then healed.

Each process reaches each server through a ``PartitionProxy`` of its own
(partition_proxy.py), so a test cuts one link and leaves the others alone: a
held link delivers nothing and refuses nothing, as a real partition does.
Timers are short (engine_cluster.py ``TIMERS``, with P = 2 s): an engine's
lease is 3 s, and work resumes within 3P + L = 7 s of a cut.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hotplate.api.background import free_port
from tests.api.helpers import wait_until_serving
from tests.distributed.broker_proxy import private_vhost
from tests.distributed.engine_cluster import Cluster, private_database
from tests.distributed.partition_proxy import PartitionProxy
from tests.real_services import POSTGRES, RABBIT, url_or_skip

pytestmark = pytest.mark.timeout(180)

NOAUTH = {"X-Auth-Token": "noauth"}


@pytest.fixture(scope="module")
def services() -> tuple[str, str]:
    return url_or_skip(POSTGRES), url_or_skip(RABBIT)


@pytest.fixture(scope="module")
def cluster(services: tuple[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    postgres, rabbit = services
    with private_database(postgres, "hotplate_partitions") as db_url, \
            private_vhost(rabbit, "hotplate-partitions") as broker:
        made = Cluster(db_url, broker, broker, tmp_path_factory.mktemp("partitions"))
        try:
            made.start_all("e1", "e2")
            yield made
        finally:
            made.stop()


class ApiProcess:
    """``hotplate api --noauth`` reaching the broker through a proxy of its own."""

    def __init__(self, cluster: Cluster, root: Path) -> None:
        broker = cluster.env["HOTPLATE_TRANSPORT_URL"]
        self.proxy = PartitionProxy.for_url(broker, 5672).start()
        port = free_port()
        self.base = f"http://127.0.0.1:{port}/v1/admin"
        log = root / "api.log"
        env = {**cluster.env, "HOTPLATE_TRANSPORT_URL": self.proxy.url(broker)}
        with log.open("w") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hotplate.cli.main", "api", "--noauth", "--port",
                 str(port)], env=env, stdout=subprocess.DEVNULL, stderr=sink, text=True)
        wait_until_serving(f"http://127.0.0.1:{port}/", self.proc, timeout=30,
                           log=log.read_text)

    def get(self, path: str, timeout: float = 30) -> httpx.Response:
        return httpx.get(self.base + path, headers=NOAUTH, timeout=timeout)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.proxy.stop()


@pytest.fixture
def api(cluster: Cluster, tmp_path: Path) -> Iterator[ApiProcess]:
    made = ApiProcess(cluster, tmp_path)
    try:
        yield made
    finally:
        made.stop()


# -- the API cut from the broker ----------------------------------------------------
def _timed(api: ApiProcess, path: str) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = api.get(path)
    return response, time.monotonic() - started


@pytest.mark.parametrize("how", ["hold", "drop"])
def test_the_api_cut_from_the_broker_answers_503_and_recovers(api: ApiProcess,
                                                               how: str) -> None:
    assert api.get("/stacks").status_code == 200
    getattr(api.proxy, how)()
    try:
        answers = [_timed(api, "/stacks") for _ in range(3)]
    finally:
        api.proxy.heal()
    for response, took in answers:
        assert response.status_code == 503, response.text
        assert took < 5.0, took
        assert int(response.headers["Retry-After"]) >= 1
        body = response.json()
        assert body["code"] == 503 and body["title"] == "Service Unavailable"
        assert body["error"]["type"] == "HTTPServiceUnavailable"
        assert "broker is unreachable" in body["error"]["message"]
    started = time.monotonic()
    while api.get("/stacks").status_code != 200:
        assert time.monotonic() - started < 20, "the API did not recover"
        time.sleep(0.2)
