"""A real HTTP server on a loopback port, in a thread, taking webhook event posts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """Records each POST's body and headers; ``refuse`` makes it answer 503 that many
    times first (``None``: every time)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.refused = 0
        self.refuse: int | None = 0
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    if receiver.refuse is None or receiver.refuse > 0:
                        if receiver.refuse is not None:
                            receiver.refuse -= 1
                        receiver.refused += 1
                        status = 503
                    else:
                        receiver.bodies.append(json.loads(data))
                        receiver.headers.append(dict(self.headers))
                        status = 204
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/heat-events"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, done: Callable[[list[dict[str, Any]]], bool], *,
                 timeout: float = 30.0) -> list[dict[str, Any]]:
        """Wait until ``done(bodies)``; the bodies received (the test fails on timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                bodies = list(self.bodies)
            if done(bodies):
                return bodies
            assert time.monotonic() < deadline, f"only {len(bodies)} events arrived"
            time.sleep(0.05)
