"""Server-sent events as the web view's stream writes them: each message's lines,
its data one line of JSON written by orjson."""

from __future__ import annotations

from typing import Any

import orjson

_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def encode(data: Any) -> str:
    """One line of JSON; anything not JSON (datetimes and dataclasses included) as
    its str(), as the standard library's ``default=str`` would."""
    return orjson.dumps(data, default=str, option=_PASSTHROUGH).decode()


def frame(event: str | None, data: Any, event_id: str | None = None, *,
          encoded: str | None = None) -> str:
    """One server-sent event: its type, its id (what ``Last-Event-ID`` resumes from),
    its data as one line of JSON (``encoded`` when the caller has it already)."""
    lines = []
    if event:
        lines.append(f"event: {event}")
    if event_id:
        lines.append(f"id: {event_id}")
    lines.append("data: " + (encode(data) if encoded is None else encoded))
    return "\n".join(lines) + "\n\n"


def events_frame(encoded: list[str], last_id: str) -> str:
    """A batch of events, each encoded once when its watcher read it."""
    return frame("events", None, last_id, encoded="[" + ",".join(encoded) + "]")


KEEPALIVE = ": keepalive\n\n"
