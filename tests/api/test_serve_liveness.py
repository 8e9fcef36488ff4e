"""Real ``hotplate serve`` processes on one database, reporting every second
(HOTPLATE_PERIODIC_INTERVAL=1): one killed with SIGKILL reads ``down`` in
``openstack orchestration service list`` within two intervals while the live
one stays ``up``, and the next engine to start on that host removes the dead
one's row (Heat's service_manage_report and service_manage_cleanup)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.api.background import free_port
from tests.api.conftest import Api
from tests.api.helpers import wait_until_serving

pytestmark = pytest.mark.timeout(120)

INTERVAL = 1
SLACK = 1.5
"""Seconds allowed on top of the two intervals: polling and a busy machine."""


class Servers:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.procs: list[subprocess.Popen[str]] = []

    def start(self) -> tuple[Api, subprocess.Popen[str]]:
        port = free_port()
        env = {**os.environ, "HOTPLATE_PERIODIC_INTERVAL": str(INTERVAL)}
        env.pop("HOTPLATE_DB_URL", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "hotplate.cli.main", "serve", "--port", str(port),
             "--data-dir", str(self.data_dir), "--noauth"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        api = Api(f"http://127.0.0.1:{port}")
        wait_until_serving(f"{api.endpoint}/build_info", proc, timeout=60)
        return api, proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.stderr is not None:
                proc.stderr.close()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    made = Servers(tmp_path / "var")
    try:
        yield made
    finally:
        made.stop()


def _statuses(api: Api) -> dict[str, str]:
    """engine id -> status, in the order the rows were created."""
    return {s.engine_id: s.status for s in api.client().services.list()}


def test_a_killed_engine_reads_down_within_two_intervals(servers: Servers) -> None:
    first, killed = servers.start()
    [dead_id] = _statuses(first)
    survivor, _ = servers.start()
    listed = survivor.client().services.list()
    assert {s.report_interval for s in listed} == {INTERVAL}
    assert [s.status for s in listed] == ["up", "up"]
    live_id = next(s.engine_id for s in listed if s.engine_id != dead_id)

    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    was_killed = time.monotonic()
    while True:
        statuses = _statuses(survivor)
        assert statuses[live_id] == "up"
        if statuses[dead_id] == "down":
            break
        assert time.monotonic() - was_killed <= 2 * INTERVAL + SLACK, \
            "the killed engine still reads up"
        time.sleep(0.1)

    # The survivor keeps reporting: up for several intervals more.
    until = time.monotonic() + 3 * INTERVAL
    while time.monotonic() < until:
        assert _statuses(survivor) == {dead_id: "down", live_id: "up"}
        time.sleep(0.2)

    # More than three reports behind: the next engine of this host removes the row.
    newcomer, _ = servers.start()
    statuses = _statuses(newcomer)
    assert dead_id not in statuses
    assert list(statuses.values()) == ["up", "up"] and live_id in statuses


def test_a_clean_stop_leaves_the_list(servers: Servers) -> None:
    first, stopped = servers.start()
    [gone_id] = _statuses(first)
    second, _ = servers.start()
    stopped.terminate()
    assert stopped.wait(20) == 0
    statuses: dict[str, Any] = _statuses(second)
    assert gone_id not in statuses and list(statuses.values()) == ["up"]
