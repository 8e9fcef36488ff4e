"""A real ``hotplate serve --auth keystone`` where the cloud's catalog points.

The catalog's ``orchestration`` endpoint is 127.0.0.1:8004 and its
``cloudformation`` 127.0.0.1:8000, so the server binds those; another suite
may hold them for a while: the server starts once both are free, and starts
again while another process took the CFN port between the check and the bind
(``hotplate serve`` then serves the API without it), at most ``PORT_WAIT``
seconds in all. It validates tokens as the cloud's
``heat`` service user; ``extra`` adds configuration (``[trustee]``, the stack
domain, ...), ``env`` variables (a proxy in front of Keystone).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from tests.api.helpers import wait_until_serving
from tests.cloud.locate import Cloud

PORT, CFN_PORT = 8004, 8000
PORT_WAIT = 300.0
SERVICE_USER = os.environ.get("HOTPLATE_TEST_AUTHTOKEN_USER") or "heat"
SERVICE_PASSWORD = os.environ.get("HOTPLATE_TEST_AUTHTOKEN_PASSWORD") or "secret"


@dataclass
class Serving:
    cloud: Cloud
    log: Path
    tmp: Path
    port: int = PORT

    def url(self, project: str, path: str = "/stacks") -> str:
        return f"http://127.0.0.1:{self.port}/v1/{project}{path}"


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def authtoken_section(cloud: Cloud) -> str:
    return ("[keystone_authtoken]\n"
            f"www_authenticate_uri = {cloud.auth_url}\n"
            f"auth_url = {cloud.auth_url}\n"
            "auth_type = password\n"
            f"username = {SERVICE_USER}\npassword = {SERVICE_PASSWORD}\n"
            "project_name = service\nuser_domain_name = Default\n"
            "project_domain_name = Default\n"
            f"region_name = {cloud.region}\n")


def _wait_for_ports(port: int, cfn_port: int, deadline: float) -> None:
    while not (port_free(port) and (not cfn_port or port_free(cfn_port))):
        if time.monotonic() > deadline:
            pytest.fail(f"ports {port}/{cfn_port}, the catalog's orchestration and "
                        "cloudformation, stayed taken")
        time.sleep(2.0)


def _listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself listens on ``port`` (not merely someone)."""
    return any(conn.status == psutil.CONN_LISTEN and conn.laddr.port == port
               for conn in psutil.Process(pid).net_connections(kind="tcp"))


def _cfn_bound(proc: subprocess.Popen[str], cfn_port: int, log: Path) -> bool:
    """Whether the server came to serve its CFN port; False once it said it could
    not, or its thread's bind failed (another process took the port meanwhile)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if _listens_on(proc.pid, cfn_port):
            return True
        text = log.read_text()
        if "the CFN API is not served" in text or "address already in use" in text:
            return False
        time.sleep(0.1)
    return False


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(30)


@contextmanager
def keystone_serve(cloud: Cloud, tmp: Path, *, extra: str = "",
                   env: Mapping[str, str] | None = None, port: int = PORT,
                   cfn_port: int = CFN_PORT) -> Iterator[Serving]:
    """``hotplate serve --auth keystone --verbose`` on 8004/8000 (or ``port`` and
    ``cfn_port``, 0: no CFN API), stopped afterwards."""
    conf = tmp / "hotplate.conf"
    conf.write_text(authtoken_section(cloud) + extra)
    conf.chmod(0o600)
    log = tmp / "serve.log"
    deadline = time.monotonic() + PORT_WAIT
    while True:
        _wait_for_ports(port, cfn_port, deadline)
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "hotplate.cli.main", "--verbose", "serve",
                 "--auth", "keystone", "--config-file", str(conf), "--port", str(port),
                 "--cfn-port", str(cfn_port), "--data-dir", str(tmp / "var")],
                stdout=out, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, **(env or {})})
        try:
            wait_until_serving(f"http://127.0.0.1:{port}/", proc, timeout=60,
                               log=log.read_text)
            if not cfn_port or _cfn_bound(proc, cfn_port, log):
                break
        except BaseException:
            _stop(proc)
            raise
        _stop(proc)
        if time.monotonic() > deadline:
            pytest.fail(f"the CFN port {cfn_port} was taken by another process each "
                        f"time the server started:\n{log.read_text()}")
    try:
        yield Serving(cloud, log, tmp, port)
    finally:
        _stop(proc)
