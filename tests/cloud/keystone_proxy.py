"""A forward HTTP proxy that can hold Keystone's token validations back: a slow Keystone.

Handed to ``hotplate serve`` as its ``http_proxy``, it passes every request on to
the real Keystone, and waits ``delay`` seconds first when the request is a token
validation (``GET .../auth/tokens``). Nothing is answered in Keystone's stead.
"""

from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
               "proxy-authorization", "te", "trailer", "upgrade"}


class SlowKeystoneProxy:
    """``with SlowKeystoneProxy() as url:`` proxies meanwhile; set ``delay`` to slow it."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.validations = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                target = urlsplit(self.path)
                if self.command == "GET" and target.path.endswith("/auth/tokens"):
                    proxy.validations += 1
                    if proxy.delay:
                        time.sleep(proxy.delay)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in _HOP_BY_HOP}
                conn = http.client.HTTPConnection(target.hostname or "127.0.0.1",
                                                  target.port or 80, timeout=60)
                try:
                    path = target.path + (f"?{target.query}" if target.query else "")
                    conn.request(self.command, path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                finally:
                    conn.close()
                self.send_response(resp.status, resp.reason)
                for name, value in resp.getheaders():
                    if name.lower() not in _HOP_BY_HOP and name.lower() != "content-length":
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = do_PATCH = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="slow-keystone-proxy")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> SlowKeystoneProxy:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
