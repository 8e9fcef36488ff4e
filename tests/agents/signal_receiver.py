"""A real HTTP server, in a thread, that receives the signals agents send.

It also serves ``metadata`` (GET and HEAD of any path) for os-collect-config's
``request`` collector.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class SignalReceiver:
    """Records every request; answers each with the next of ``statuses`` (then 200)."""

    base_url: str
    received: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def bodies(self) -> list[Any]:
        with self.lock:
            return [r.body for r in self.received]


@contextmanager
def signal_receiver(host: str = "127.0.0.1") -> Iterator[SignalReceiver]:
    """A receiver listening on a free port of ``host`` until the block ends."""
    receiver: SignalReceiver

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            with receiver.lock:
                receiver.received.append(
                    Received(self.command, self.path, dict(self.headers.items()), body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
            payload = b"{}"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_POST = do_PUT = _answer

        def do_GET(self) -> None:
            with receiver.lock:
                payload = json.dumps(receiver.metadata).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command == "GET":
                self.wfile.write(payload)

        do_HEAD = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    receiver = SignalReceiver(f"http://{host}:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
