"""A reader of server-sent events for the tests: frames as they arrive, with when."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Frame:
    event: str | None
    data: Any
    id: str | None
    at: float
    comment: str | None = None


@dataclass
class Stream:
    """A stream read in a thread; ``frames`` fills as they come."""

    client: httpx.Client
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    frames: list[Frame] = field(default_factory=list)
    status: int | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    _ready: queue.Queue[int] = field(default_factory=queue.Queue)
    _stop: threading.Event = field(default_factory=threading.Event)
    _socket: socket.socket | None = None

    def start(self) -> Stream:
        threading.Thread(target=self._read, daemon=True).start()
        self.status = self._ready.get(timeout=30)
        return self

    def _read(self) -> None:
        try:
            with self.client.stream("GET", self.url, headers=self.headers,
                                    timeout=httpx.Timeout(30, read=60)) as answer:
                stream = answer.extensions.get("network_stream")
                self._socket = stream.get_extra_info("socket") if stream else None
                self._ready.put(answer.status_code)
                event: dict[str, Any] = {}
                for line in answer.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith(":"):
                        self.frames.append(Frame(None, None, None, time.monotonic(), line))
                    elif line == "":
                        if "data" in event:
                            self.frames.append(Frame(event.get("event"),
                                                     json.loads(event["data"]),
                                                     event.get("id"), time.monotonic()))
                        event = {}
                    else:
                        name, _, value = line.partition(": ")
                        event[name] = value
        except Exception:  # the test closed the client under the reader
            pass
        finally:
            self._ready.put(0)
            self.ended.set()

    def stop(self) -> None:
        """Leave as a browser tab does: the connection goes."""
        self._stop.set()
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
        self.ended.wait(10)
        self.client.close()

    def events(self) -> list[dict[str, Any]]:
        return [e for f in self.frames if f.event == "events" for e in f.data]

    def of(self, kind: str) -> list[Frame]:
        return [f for f in self.frames if f.event == kind]

    def wait_for(self, check: Any, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, f"timed out; frames: {self.frames[-5:]}"
            assert not self.ended.is_set() or check(), "the stream ended"
            time.sleep(0.05)

    def stack_status(self) -> str | None:
        stacks = self.of("stack")
        return stacks[-1].data["stack_status"] if stacks else None
