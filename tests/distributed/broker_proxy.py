"""The broker side of the fault tests: a RabbitMQ virtual host of the caller's, and a
TCP proxy between the engines and RabbitMQ that can drop every connection for a
while (the machine's broker is shared by everyone: it is never restarted).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit


def _rabbitmqctl(*args: str) -> bool:
    tool = shutil.which("rabbitmqctl")
    if tool is None:
        return False
    done = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
    return done.returncode == 0


@contextlib.contextmanager
def private_vhost(url: str, prefix: str) -> Iterator[str]:
    """``url`` on a virtual host made for the caller (deleted afterwards); ``url``
    itself when ``rabbitmqctl`` cannot make one."""
    vhost = f"{prefix}-{uuid.uuid4().hex[:8]}"
    parts = urlsplit(url)
    user = parts.username or "guest"
    if _rabbitmqctl("add_vhost", vhost) and _rabbitmqctl(
            "set_permissions", "-p", vhost, user, ".*", ".*", ".*"):
        try:
            yield urlunsplit(parts._replace(path=f"/{vhost}"))
        finally:
            _rabbitmqctl("delete_vhost", vhost)
    else:
        yield url


def via_port(url: str, port: int) -> str:
    """``url`` with its host and port replaced by 127.0.0.1:``port``."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@127.0.0.1:{port}" if userinfo else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


class BrokerProxy:
    """Forwards TCP connections to the broker; ``cut`` drops them all for a while.

    While cut, a new connection is accepted and closed at once, as a broker
    that is going down does. Runs its own event loop in a daemon thread.
    """

    def __init__(self, upstream_url: str) -> None:
        parts = urlsplit(upstream_url)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 5672)
        self._loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._refuse_until = 0.0
        self.accepted = 0
        """Connections forwarded so far (a client that reconnects adds to it)."""
        self.port = 0
        self._thread = threading.Thread(target=self._loop.run_forever, name="broker-proxy",
                                        daemon=True)

    def start(self) -> BrokerProxy:
        self._thread.start()
        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop).result(10)
        self._server = server
        self.port = server.sockets[0].getsockname()[1]
        return self

    def cut(self, seconds: float) -> None:
        """Drop every connection now and refuse new ones for ``seconds``."""
        def drop() -> None:
            self._refuse_until = time.monotonic() + seconds
            for writer in list(self._writers):
                writer.transport.abort()
        self._loop.call_soon_threadsafe(drop)

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for writer in list(self._writers):
                writer.transport.abort()
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      ) -> None:
        if time.monotonic() < self._refuse_until:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.transport.abort()
            return
        self.accepted += 1
        self._writers.update((writer, up_writer))
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            for end in (writer, up_writer):
                self._writers.discard(end)
                end.transport.abort()

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            sink.transport.abort()  # the other direction ends too
