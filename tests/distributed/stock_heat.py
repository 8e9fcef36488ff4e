"""Two front ends on one set of engines, for the stock heat-api tests: Heat 27.0.1's own
heat-api (``heat_api.py``) and ``hotplate api``, both sending their RPC over RabbitMQ to
a ``hotplate engine`` on PostgreSQL, each driven with python-heatclient.

Each process runs in a process group of its own and is stopped by its group id, so
an engine's children go with it and nothing else on the machine is touched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from hotplate.api.background import free_port
from hotplate.model.errors import EntityNotFound
from hotplate.rpc import MessagingTimeout
from hotplate.rpc.messaging import OsloTransport
from tests.distributed import heat_api


def heat_venv_or_skip(request: pytest.FixtureRequest) -> Path:
    """heat-api's virtualenv, built once per machine (the build time is printed)."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")

    def report(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line)
        else:
            print(line, file=sys.stderr)

    try:
        return heat_api.ensure_venv(report)
    except heat_api.BuildFailed as exc:
        pytest.skip(f"heat-api's virtualenv could not be built: {exc}")


@dataclass
class FrontEnds:
    """heat-api and hotplate api in front of the same engines and database."""

    heat_endpoint: str
    hotplate_endpoint: str
    logs: Path

    def heat(self) -> Any:
        return client(self.heat_endpoint)

    def hotplate(self) -> Any:
        return client(self.hotplate_endpoint)


def client(endpoint: str) -> Any:
    """python-heatclient, as a noauth Heat is reached."""
    from heatclient.client import Client

    return Client("1", endpoint=endpoint, token="noauth")


def _hotplate(*args: str, log: Path) -> subprocess.Popen[bytes]:
    """A ``hotplate`` command of this virtualenv, in a process group of its own."""
    command = Path(sys.executable).with_name("hotplate")
    with log.open("wb") as sink:
        return subprocess.Popen([str(command), *args], stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


STOP_SECS = 5.0
"""How long a process may take to stop before it is killed: a graceful stop is not
what these tests are about, and their stacks are all deleted by then."""


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM the groups this module started (an engine's children with it), side by
    side; SIGKILL what is left after STOP_SECS."""
    running = [p for p in processes if p.poll() is None]
    for process in running:
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECS
    for process in running:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def _wait_for_engine(broker_url: str, engine: subprocess.Popen[bytes], log: Path) -> None:
    """Until an engine answers on the engine topic (its missing-stack error, by class)."""
    transport = OsloTransport(broker_url, workers_per_server=1, call_timeout=5)
    deadline = time.monotonic() + 90
    try:
        while True:
            assert engine.poll() is None, f"hotplate engine ended: {log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no engine answered: {log.read_text()[-3000:]}"
            try:
                transport.call({}, "engine", "identify_stack", {"stack_name": "probe"},
                               timeout=2)
            except EntityNotFound:
                return
            except MessagingTimeout:
                continue
    finally:
        transport.stop()


def _wait_for_http(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            assert process.poll() is None, f"{process.args!r} ended: {log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{process.args!r} did not start"
            time.sleep(0.1)


@contextmanager
def running(venv: Path, broker_url: str, db_url: str, logs: Path) -> Iterator[FrontEnds]:
    """An engine on ``db_url``, heat-api and hotplate api, until the block ends."""
    started: list[subprocess.Popen[bytes]] = []
    heat: heat_api.HeatApi | None = None
    try:
        # All three start side by side; heat-api sends nothing before a request.
        engine = _hotplate("engine", "--workers", "1", "--transport-url", broker_url,
                           "--db-url", db_url, log=logs / "engine.log")
        started.append(engine)
        heat = heat_api.start(venv, broker_url, free_port(), logs)
        port = free_port()
        api = _hotplate("api", "--noauth", "--port", str(port), "--transport-url", broker_url,
                        log=logs / "hotplate-api.log")
        started.append(api)
        _wait_for_engine(broker_url, engine, logs / "engine.log")
        _wait_for_http(heat.endpoint.rsplit("/v1/", 1)[0] + "/", heat.process, heat.log)
        _wait_for_http(f"http://127.0.0.1:{port}/", api, logs / "hotplate-api.log")
        yield FrontEnds(heat.endpoint, f"http://127.0.0.1:{port}/v1/admin", logs)
    finally:
        if heat is not None:
            heat.stop()
        _stop(started)


def wait_status(hc: Any, stack: str, timeout: float = 60.0) -> Any:
    """Poll until the stack leaves IN_PROGRESS."""
    deadline = time.monotonic() + timeout
    while True:
        found = hc.stacks.get(stack)
        if not found.stack_status.endswith("_IN_PROGRESS"):
            return found
        assert time.monotonic() < deadline, f"{stack} still {found.stack_status}"
        time.sleep(0.2)


def answer(call: Callable[[], Any]) -> tuple[int, str, str | None]:
    """The status and error fields of a request that must fail."""
    from heatclient import exc as heat_exc

    try:
        call()
    except heat_exc.HTTPException as error:
        body = error.error["error"]
        return int(error.code), body.get("type"), body.get("message")
    raise AssertionError("the request succeeded")


def both(front_ends: FrontEnds, call: Callable[[Any], Any]) -> tuple[int, str, str | None]:
    """A failing request through heat-api; hotplate api must answer it the same."""
    through_heat = answer(lambda: call(front_ends.heat()))
    assert answer(lambda: call(front_ends.hotplate())) == through_heat
    return through_heat
