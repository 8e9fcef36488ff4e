"""``hotplate serve`` as a real process on SQLite, for the agents to reach."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOTPLATE = Path(sys.executable).with_name("hotplate")


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class HotplateServer:
    """A running server: its orchestration endpoint, an admin token, its log."""

    endpoint: str
    cfn_url: str
    token: str
    log: Path
    pid: int

    def heat(self) -> Any:
        """A python-heatclient on the orchestration API, as ``openstack stack`` uses."""
        from heatclient import client

        return client.Client("1", endpoint=self.endpoint, token=self.token)

    def log_tail(self) -> str:
        return self.log.read_text()[-4000:] if self.log.exists() else ""


def _wait_for(host: str, port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection((host, port), 1).close()
            return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"hotplate serve exited:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"hotplate serve did not listen:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)


@contextmanager
def hotplate_serve(host: str, workdir: Path) -> Iterator[HotplateServer]:
    """``hotplate serve --host HOST`` with its CFN API on HOST too, until the block ends."""
    data = workdir / "var"
    created = subprocess.run(
        [str(HOTPLATE), "token", "create", "--project", "admin", "--role", "admin",
         "--data-dir", str(data)], capture_output=True, text=True, timeout=120, check=True)
    token = created.stdout.strip().splitlines()[-1]
    port, cfn_port = free_port(host), free_port(host)
    log = workdir / "hotplate-serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(HOTPLATE), "serve", "--host", host, "--port", str(port),
             "--cfn-port", str(cfn_port), "--data-dir", str(data)],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=workdir)
    try:
        _wait_for(host, port, process, log)
        _wait_for(host, cfn_port, process, log)
        yield HotplateServer(f"http://{host}:{port}/v1/admin",
                             f"http://{host}:{cfn_port}/v1/", token, log, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
