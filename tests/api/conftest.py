"""A real API server on a free loopback port: uvicorn in a thread, an embedded engine
on a temporary SQLite database, reached by python-heatclient over HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from hotplate.api import EngineRpc, create_app
from hotplate.app import embedded


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Api:
    base: str

    @property
    def endpoint(self) -> str:
        return f"{self.base}/v1/admin"

    def client(self) -> Any:
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token="noauth")


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = Path(tmp_path_factory.mktemp("api")) / "hotplate.sqlite"
    engine, transport = embedded(f"sqlite:///{db}", workers=8)
    app = create_app(EngineRpc(transport, host=engine.deps.host))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name="api-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the API did not start"
        time.sleep(0.02)
    try:
        yield Api(f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(10)
        engine.stop()
        transport.stop()


@pytest.fixture
def hc(api: Api) -> Any:
    return api.client()
