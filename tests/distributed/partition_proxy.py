"""A TCP proxy that partitions what crosses it: the link between one process and one
server (PostgreSQL, MariaDB, RabbitMQ), cut and healed by a test.

- ``hold()``: no byte crosses, in either direction, and nothing is refused:
  both ends see an open connection that has gone silent. New connections are
  accepted and held too (their first bytes wait). ``heal()`` delivers what
  waited, in order, and the link goes on as if slow.
- ``drop()``: as silent, but what is sent meanwhile is lost; a connection that
  lost bytes cannot go on (its stream has a hole), so ``heal()`` ends it, as
  both ends' TCP would have given up on it by then. New connections made
  while dropping are ended at the heal too.

Both stay in user space: the kernel on each side keeps acknowledging, so
keepalives and TCP_USER_TIMEOUT never fire through it (``netns.py`` cuts a
real link for that). Runs its own event loop in a daemon thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

OPEN, HOLD, DROP = "open", "hold", "drop"


@dataclass(eq=False)
class _Link:
    """One proxied connection: its two writers, and what waits in each direction."""

    down: asyncio.StreamWriter
    up: asyncio.StreamWriter | None = None
    waiting: dict[str, list[bytes]] = field(default_factory=lambda: {"up": [], "down": []})
    lost: bool = False


class PartitionProxy:
    """Forwards TCP connections to ``upstream``; see the module docstring."""

    def __init__(self, upstream: tuple[str, int], name: str = "proxy") -> None:
        self._upstream = upstream
        self._loop = asyncio.new_event_loop()
        self._links: set[_Link] = set()
        self._state = OPEN
        self._healed = asyncio.Event()
        self.port = 0
        self.accepted = 0
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)

    @classmethod
    def for_url(cls, url: str, default_port: int) -> PartitionProxy:
        parts = urlsplit(url.replace("+psycopg", "").replace("+pymysql", ""))
        return cls((parts.hostname or "127.0.0.1", parts.port or default_port))

    def start(self) -> PartitionProxy:
        self._thread.start()

        async def begin() -> asyncio.Server:
            self._healed.set()
            return await asyncio.start_server(self._handle, "127.0.0.1", 0)

        self._server = asyncio.run_coroutine_threadsafe(begin(), self._loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def state(self) -> str:
        return self._state

    def hold(self) -> None:
        self._call(self._set, HOLD)

    def drop(self) -> None:
        self._call(self._set, DROP)

    def heal(self) -> None:
        self._call(self._set, OPEN)

    def stop(self) -> None:
        async def close() -> None:
            self._server.close()
            for link in list(self._links):
                self._abort(link)
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()

    def url(self, url: str) -> str:
        """``url`` with its host and port replaced by this proxy's."""
        parts = urlsplit(url)
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo}@127.0.0.1:{self.port}" if userinfo else f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    # -- the loop's side -------------------------------------------------------------
    def _call(self, fn: object, *args: object) -> None:
        async def run() -> None:
            fn(*args)  # type: ignore[operator]
        asyncio.run_coroutine_threadsafe(run(), self._loop).result(10)

    def _set(self, state: str) -> None:
        self._state = state
        if state == OPEN:
            for link in list(self._links):
                if link.lost:
                    self._abort(link)
                    continue
                for direction, chunks in link.waiting.items():
                    sink = link.up if direction == "up" else link.down
                    if sink is not None:
                        for chunk in chunks:
                            sink.write(chunk)
                    chunks.clear()
            self._healed.set()
        else:
            self._healed.clear()
            if state == DROP:
                for link in self._links:
                    link.lost = True

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      ) -> None:
        link = _Link(writer)
        self._links.add(link)
        self.accepted += 1
        try:
            if self._state == DROP:
                link.lost = True
            await self._healed.wait()  # a partitioned link makes no new connection upstream
            if link.lost:
                return
            try:
                up_reader, link.up = await asyncio.open_connection(*self._upstream)
            except OSError:
                return
            await asyncio.gather(self._pipe(reader, link, "up"),
                                 self._pipe(up_reader, link, "down"))
        finally:
            self._abort(link)

    async def _pipe(self, source: asyncio.StreamReader, link: _Link, direction: str) -> None:
        sink = link.up if direction == "up" else link.down
        assert sink is not None
        try:
            while data := await source.read(65536):
                if self._state == HOLD:
                    link.waiting[direction].append(data)
                    continue
                if self._state == DROP:
                    link.lost = True
                    continue
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        # A connection one end closed is ended at the other only once the link is
        # open: across a partition, not even its end gets through.
        await self._healed.wait()
        self._abort(link)

    def _abort(self, link: _Link) -> None:
        self._links.discard(link)
        for end in (link.down, link.up):
            if end is not None:
                end.transport.abort()
