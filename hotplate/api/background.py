"""The API served from a background thread, for embedding (tests, benchmarks, tools)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


KEEP_ALIVE_SECS = 75
"""How long an idle client connection stays open. uvicorn's default (5 s)
equals the poll interval of heatclient's ``--wait`` (5 s), so the server
would close a connection just as the client reuses it; clients then fail
with "Remote end closed connection without response"."""


class ApiServer(uvicorn.Server):
    """uvicorn's server, which ends the app's open event streams as it starts to shut
    down: uvicorn waits for every response in progress to finish, and a stream
    never would."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        streams = getattr(getattr(self.config.app, "state", None), "ui_streams", None)
        if streams is not None:
            streams.close()
        await super().shutdown(sockets)


class BackgroundServer:
    """``with BackgroundServer(app) as base_url:`` serves ``app`` on loopback meanwhile."""

    def __init__(self, app: Any, *, port: int | None = None, start_timeout: float = 15.0) -> None:
        self.port = port or free_port()
        self._server = ApiServer(uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off",
            timeout_keep_alive=KEEP_ALIVE_SECS))
        self._thread = threading.Thread(target=self._server.run, name="hotplate-api",
                                        daemon=True)
        self._start_timeout = start_timeout

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> str:
        self._thread.start()
        deadline = time.monotonic() + self._start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the API server did not start")
            time.sleep(0.02)
        return self.base_url

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.should_exit = True
        self._thread.join(10)
